"""`kindred lsp` on a generated folder of notes: initial indexing to searchable (notes per second),
a saved edit to searchable (the latency of the first workspace/symbol that finds it), an unsaved
edit (didChange) to searchable, peak memory; beside `kindred ingest` of the same notes as JSON Lines
(then embedding, as ingest does), run before and after it (`--rounds` times each). Wall time and
CPU time (user + system) both: on a shared machine the CPU time is the fair comparison.

    python3 bench/editor/bench.py --kindred .build/release/kindred --notes 1000 --words 300 [--set embedder.precision=int8] [--rounds 2]

Standard library only: a small LSP client over pipes (Content-Length framing)."""

import argparse
import json
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def make_notes(root, n, words, seed=7):
    """`n` notes of about `words` words, sentences drawn from the bundled journal, one file each."""
    sentences = []
    for line in (REPO / "datasets" / "journal" / "records.jsonl").read_text(encoding="utf-8").splitlines():
        sentences += [s.strip() + "." for s in json.loads(line)["text"].split(".") if len(s.split()) > 3]
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        out = []
        while sum(len(s.split()) for s in out) < words:
            out.append(rng.choice(sentences))
        texts.append(" ".join(out))
        day = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}"
        (root / f"{day}-{i:04d}.md").write_text(f"# Note {i}\n\n{texts[-1]}\n", encoding="utf-8")
    return texts


class Client:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.answers = {}
        self.logs = []
        self.cv = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(out.read(length))
            with self.cv:
                if "method" in message and "id" in message:  # a request from the server: accept it
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                elif message.get("method") == "window/logMessage":
                    self.logs.append((time.monotonic(), message["params"]["message"]))
                elif "id" in message:
                    self.answers[message["id"]] = message
                self.cv.notify_all()

    def request(self, method, params, timeout=600):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.cv:
            self.cv.wait_for(lambda: rid in self.answers, timeout)
            return self.answers.pop(rid)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_log(self, prefix, count=1, timeout=3600):
        with self.cv:
            self.cv.wait_for(lambda: sum(m.startswith(prefix) for _, m in self.logs) >= count, timeout)
            return [(t, m) for t, m in self.logs if m.startswith(prefix)][count - 1]


def peak_rss_mib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid):
    """User and system CPU time of a running process so far (load beside it does not count)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_lsp(kindred, root, sets):
    cmd = [kindred, "lsp"] + [a for s in sets for a in ("--set", s)]
    c = Client(cmd)
    started = time.monotonic()
    c.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {"window": {"workDoneProgress": True}}})
    c.notify("initialized", {})
    t, message = c.wait_log("kindred: indexed")
    indexed = t - started
    indexed_cpu = cpu_seconds(c.proc.pid)
    t, patterns = c.wait_log("kindred: patterns refreshed")
    message += "; " + patterns
    with_patterns = t - started
    # A saved note: the first search that finds it (a new file each time, as a new entry is written).
    latencies = []
    for k in range(5):
        note = root / f"2025-12-{k + 1:02d}-kayak.md"
        note.write_text(f"# Kayak {k}\n\nWe built a wooden kayak in the garage and painted it canary yellow, coat {k}.\n")
        t0 = time.monotonic()
        c.notify("textDocument/didSave", {"textDocument": {"uri": note.as_uri()}})
        hits = c.request("workspace/symbol", {"query": f"painting the kayak we built yellow, coat {k}"})["result"]
        latencies.append(time.monotonic() - t0)
        assert hits and note.as_uri() in [h["location"]["uri"] for h in hits[:k + 1]], hits[:2]
    # An unsaved edit: the buffer's full text (didChange), indexed after the server's quiet time
    # (300 ms); searched every 20 ms until a search finds it. The file on disk is not touched.
    edits = []
    for k in range(5):
        note = root / f"2025-12-{k + 10:02d}-edited.md"
        note.write_text(f"# Edited {k}\n\nNothing yet.\n")
        c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": note.as_uri(), "type": 1}]})
        c.request("workspace/symbol", {"query": "nothing yet"})
        c.notify("textDocument/didOpen", {"textDocument": {"uri": note.as_uri(), "languageId": "markdown", "version": 1, "text": note.read_text()}})
        t0 = time.monotonic()
        c.notify("textDocument/didChange", {"textDocument": {"uri": note.as_uri(), "version": 2}, "contentChanges": [
            {"text": f"# Edited {k}\n\nWe planted a kumquat tree in a terracotta pot on the balcony, pot {k}.\n"}]})
        while True:
            hits = c.request("workspace/symbol", {"query": f"a kumquat tree in a pot, pot {k}"})["result"]
            if note.as_uri() in [h["location"]["uri"] for h in hits[:k + 1]]:
                break
            assert time.monotonic() - t0 < 60, "the edit was not found within 60 s"
            time.sleep(0.02)
        edits.append(time.monotonic() - t0)
    rss = peak_rss_mib(c.proc.pid)
    c.request("shutdown", None)
    c.notify("exit", None)
    c.proc.wait(60)
    return indexed, indexed_cpu, with_patterns, message, sorted(latencies)[len(latencies) // 2], sorted(edits)[len(edits) // 2], rss


def run_ingest(kindred, texts, tmp, sets):
    tmp.mkdir()
    jsonl = tmp / "notes.jsonl"
    jsonl.write_text("".join(json.dumps({"id": f"n{i}", "revision": 1, "text": t, "kind": "note"}) + "\n" for i, t in enumerate(texts)))
    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([kindred, "ingest", "--db", str(tmp / "ingest.sqlite"), "--owner", "notes", str(jsonl)]
                       + [a for s in sets for a in ("--set", s)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.monotonic() - t0, (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kindred", default=str(REPO / ".build" / "release" / "kindred"))
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=1, help="ingest, lsp, then ingest again: this many times")
    args = ap.parse_args()
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory() as d:
            tmp = pathlib.Path(d)
            root = tmp / "notes"
            root.mkdir()
            texts = make_notes(root, args.notes, args.words)
            before, before_cpu = run_ingest(args.kindred, texts, tmp / "before", args.set)
            indexed, indexed_cpu, with_patterns, message, save, edit, rss = run_lsp(args.kindred, root, args.set)
            after, after_cpu = run_ingest(args.kindred, texts, tmp / "after", args.set)
            ingest, ingest_cpu = (before + after) / 2, (before_cpu + after_cpu) / 2
            print(json.dumps({"round": round_ + 1, "notes": args.notes, "words": args.words, "set": args.set,
                              "lsp_indexed_s": round(indexed, 2), "lsp_notes_per_s": round(args.notes / indexed, 1),
                              "ingest_s_before_after": [round(before, 2), round(after, 2)], "ingest_notes_per_s": round(args.notes / ingest, 1),
                              "lsp_over_ingest": round(indexed / ingest, 3),
                              # CPU seconds: the work each did, whatever ran beside them.
                              "lsp_cpu_s_to_indexed": round(indexed_cpu, 1), "ingest_cpu_s_before_after": [round(before_cpu, 1), round(after_cpu, 1)],
                              "lsp_cpu_over_ingest_cpu": round(indexed_cpu / ingest_cpu, 3), "lsp_with_patterns_s": round(with_patterns, 2),
                              "save_to_searchable_ms_median_of_5": round(save * 1000), "edit_to_searchable_ms_median_of_5": round(edit * 1000),
                              "lsp_peak_rss_mib": round(rss), "log": message}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
