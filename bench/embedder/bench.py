#!/usr/bin/env python3
"""Embedding throughput: Kindred's SentenceEmbedder vs sentence-transformers on the same texts.

Workloads: 12-word sentences and 100-word texts; batch 32 and batch 1; 1 and 2 threads.
Each measurement runs in its own process (so thread settings and peak RSS are per run); model
loading and one warm-up batch are excluded from the timing, peak RSS includes everything.

Kindred is driven through `kindred-bench embedder --texts FILE --batch B --threads T`, which prints
{"sentences": N, "seconds": S, "processor_seconds": P, ...}; P (user + system time of every thread,
busy-waiting included) gives sentences per processor-second, which a machine shared with other work
blurs far less than wall-clock time. sentence-transformers runs in this script's `--st-worker` mode.

Usage: bench.py [--kindred-bench PATH] [--model DIR] [--out RESULTS.md] [--only kindred|st]
"""
import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

WORDS = (
    "the a man woman child dog cat bird ran walked jumped quickly slowly quietly over under near "
    "house garden river mountain city village bright dark cold warm morning evening night dream "
    "remembered forgot found lost friend family mother father teacher tree water light music book "
    "table window coffee road train letter story song storm summer winter old new small large"
).split()


def make_texts(words_per_text, count, seed):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(words_per_text)).capitalize() + "." for _ in range(count)]


def default_model_dir():
    if os.environ.get("KINDRED_MODEL_DIR"):
        return os.environ["KINDRED_MODEL_DIR"]
    data = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return os.path.join(data, "kindred", "models", "all-MiniLM-L6-v2")


def run_measured(cmd, env=None):
    """Like run_child but reads the child's own peak RSS via wait4."""
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {errtext.strip()[-500:]}")
    lines = [l for l in text.strip().splitlines() if l.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(cmd)} printed no JSON: {text[-300:]} {errtext[-300:]}")
    result = json.loads(lines[-1])
    result["peak_rss_kb"] = usage.ru_maxrss  # KiB on Linux
    result["child_processor_seconds"] = usage.ru_utime + usage.ru_stime  # the whole process, every thread
    return result


def st_worker(args):
    """Child process: time sentence-transformers on one workload."""
    import torch

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    from sentence_transformers import SentenceTransformer

    with open(args.texts, encoding="utf-8") as f:
        texts = [l.rstrip("\n") for l in f if l.strip()]
    model = SentenceTransformer(args.model, device="cpu")
    model.encode(texts[: args.batch], batch_size=args.batch, normalize_embeddings=True)
    start, processor_start = time.perf_counter(), time.process_time()
    model.encode(texts, batch_size=args.batch, normalize_embeddings=True, convert_to_numpy=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"sentences": len(texts), "seconds": seconds, "processor_seconds": time.process_time() - processor_start,
                      "torch": torch.__version__, "threads": torch.get_num_threads()}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kindred-bench", default=".build/release/kindred-bench", help="the kindred-bench binary")
    p.add_argument("--model", default=default_model_dir())
    p.add_argument("--out", help="write the markdown table here as well")
    p.add_argument("--only", choices=["kindred", "st"])
    p.add_argument("--short-count", type=int, default=512)
    p.add_argument("--long-count", type=int, default=128)
    p.add_argument("--st-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--texts", help=argparse.SUPPRESS)
    p.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.st_worker:
        return st_worker(args)

    tmp = tempfile.mkdtemp(prefix="kindred-embed-bench-")
    workloads = {
        "12 words": (make_texts(12, args.short_count, 1), args.short_count),
        "100 words": (make_texts(100, args.long_count, 2), args.long_count),
    }
    files = {}
    for name, (texts, _) in workloads.items():
        path = os.path.join(tmp, name.replace(" ", "_") + ".txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(texts) + "\n")
        files[name] = path

    rows = []
    engines = [e for e in ("kindred", "st") if args.only in (None, e)]
    for name, path in files.items():
        for batch in (32, 1):
            for threads in (1, 2):
                for engine in engines:
                    if engine == "kindred":
                        cmd = [args.kindred_bench, "embedder", "--texts", path, "--batch", str(batch),
                               "--threads", str(threads)]
                        env = dict(os.environ, KINDRED_MODEL_DIR=args.model)
                    else:
                        cmd = [sys.executable, __file__, "--st-worker", "--texts", path, "--batch", str(batch),
                               "--threads", str(threads), "--model", args.model]
                        env = None
                    try:
                        r = run_measured(cmd, env)
                        rate = r["sentences"] / r["seconds"]
                        per_cpu = r["sentences"] / r["processor_seconds"] if r.get("processor_seconds") else float("nan")
                        rows.append((name, batch, threads, engine, f"{rate:.1f}", f"{per_cpu:.1f}", f"{r['peak_rss_kb'] / 1024:.0f}"))
                    except Exception as e:  # keep going; report the failure in the table
                        rows.append((name, batch, threads, engine, "error", "", str(e)[:60]))
                    print(" | ".join(map(str, rows[-1])), file=sys.stderr, flush=True)

    engine_names = {"kindred": "Kindred", "st": "sentence-transformers"}
    lines = [
        "| texts | batch | threads | engine | sentences/s | sentences per processor-second | peak RSS (MiB) |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for name, batch, threads, engine, rate, per_cpu, rss in rows:
        lines.append(f"| {name} | {batch} | {threads} | {engine_names[engine]} | {rate} | {per_cpu} | {rss} |")
    publish(lines, args.out)


def publish(table_lines, out):
    """Prints the table under a line naming the date, the machine and its load, and appends both to `out`."""
    load = os.getloadavg()
    head = (f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Machine: {platform.machine()}, {os.cpu_count()} CPUs, "
            f"{platform.platform()}; load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}. "
            f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}.")
    table = "\n".join([head, ""] + table_lines)
    print(table)
    if out:
        with open(out, "a", encoding="utf-8") as f:
            f.write(table + "\n\n")


if __name__ == "__main__":
    main()
