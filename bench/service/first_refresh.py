"""The first `patterns/refresh` of a fresh `kindred serve`, which loads the owner's pattern state
(every group and pending mark) and occurrences, timed for one or more binaries, alternated.

    python3 bench/service/first_refresh.py --prepared DIR [--runs 3] [--kindred BIN ...]

DIR is a `bench/service/run.sh --prepared DIR` folder (its `synthetic-N` or `corpus-N` history). Each
run copies the history to a fresh folder, starts `serve`, waits a second after `initialize` (so that
the start's own work is done), then times one `patterns/refresh` of the owner.
"""
import argparse, os, shutil, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import place_one  # noqa: E402


def once(binary, history):
    tmp = tempfile.mkdtemp(prefix="kindred-first-refresh-")
    try:
        for name in os.listdir(history):
            if name.startswith("k.sqlite"):
                shutil.copy(os.path.join(history, name), os.path.join(tmp, name))
        s = place_one.Server(binary, os.path.join(tmp, "k.sqlite"))
        s.call("initialize", {})
        time.sleep(1)
        t = time.time()
        s.call("patterns/refresh", {"owner": "ana"})
        ms = (time.time() - t) * 1000
        s.close()
        return ms
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prepared", required=True, help="a run.sh --prepared folder")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kindred", action="append", help="binary to time (repeatable; default .build/release/kindred)")
    a = ap.parse_args()
    binaries = a.kindred or [os.path.join(place_one.ROOT, ".build", "release", "kindred")]
    histories = sorted(d for d in os.listdir(a.prepared) if os.path.exists(os.path.join(a.prepared, d, "build.json")))
    if not histories:
        ap.error(f"no prepared history in {a.prepared}")
    history = os.path.join(a.prepared, histories[0])
    times = {b: [] for b in binaries}
    for _ in range(a.runs):
        for b in binaries:
            times[b].append(once(b, history))
    print(f"First patterns/refresh of a fresh serve, history {histories[0]}, {a.runs} runs alternated:\n")
    print("| binary | runs, ms | median ms |\n|---|---|---:|")
    for b in binaries:
        print(f"| {b} | {', '.join(f'{t:.0f}' for t in times[b])} | {statistics.median(times[b]):.0f} |")


if __name__ == "__main__":
    main()
