"""Search in other languages and scripts, over the wire with the real model: a Japanese record found
by a run of its text, a German query finding another form of its word, highlights that point at the
matched sentence, and hybrid that lets keyword matching lead where the model (English MiniLM) does
not serve the query's language."""

from conftest import run_cli

RECORDS = [
    {"id": "ja1", "revision": 1, "text": "今日は雨だった。昨日はリアルタイム戦略ゲームを遅くまで遊んだ！友達も来た。"},
    {"id": "ja2", "revision": 1, "text": "東京の電車はいつも混んでいる。"},
    {"id": "de1", "revision": 1, "text": "Ich habe im Traum die Häuser meiner Kindheit gesehen, und alle Fenster waren offen."},
    {"id": "de2", "revision": 1, "text": "Der Zug ist wieder zu spät gekommen, und ich habe den Termin verpasst."},
    {"id": "en1", "revision": 1, "text": "I kept running for my train but it left without me every time."},
]


def load(server):
    r = server.result("records/upsert", {"owner": "me", "records": RECORDS, "waitForIndex": True}, timeout=120)
    assert r["indexed"] is True


def ids(answer):
    return [h["id"] for h in answer["results"]]


def test_a_japanese_record_is_found_by_a_run_of_its_text(server):
    load(server)
    for text in ("戦略ゲーム", "リアルタイム戦略ゲーム", "略ゲ"):
        for mode in ("keyword", "hybrid"):
            r = server.result("search/query", {"owner": "me", "text": text, "mode": mode})
            assert ids(r)[0] == "ja1", (text, mode, r)
            h = r["results"][0]["highlight"]
            assert h["text"] == "昨日はリアルタイム戦略ゲームを遅くまで遊んだ！"
            assert (h["start"], h["end"]) == (8, 31)  # Unicode scalars into the record's text
    # One character finds the records holding it.
    assert ids(server.result("search/query", {"owner": "me", "text": "京", "mode": "keyword"})) == ["ja2"]


def test_a_german_query_finds_another_form_of_the_word(server):
    load(server)
    assert ids(server.result("search/query", {"owner": "me", "text": "Haus", "mode": "keyword"})) == ["de1"]
    assert ids(server.result("search/query", {"owner": "me", "text": "die Züge", "mode": "keyword"})) == ["de2"]
    r = server.result("search/query", {"owner": "me", "text": "Fenstern", "mode": "hybrid"})
    assert ids(r)[0] == "de1"
    assert any("keyword matching leads" in n and "'de'" in n for n in r["notes"])
    # The highlight is the sentence holding the word's other form.
    server.result("records/upsert", {"owner": "me", "records": [
        {"id": "de3", "revision": 1, "text": "Es regnete den ganzen Tag. Am Abend stand ich lange an den Fenstern und wartete."}], "waitForIndex": True})
    r = server.result("search/query", {"owner": "me", "text": "Fenster", "mode": "keyword"})
    h = {x["id"]: x["highlight"]["text"] for x in r["results"]}
    assert h["de3"] == "Am Abend stand ich lange an den Fenstern und wartete."


def test_english_queries_are_read_as_before(server):
    load(server)
    r = server.result("search/query", {"owner": "me", "text": "the dream where I kept missing a train", "mode": "hybrid"})
    assert ids(r)[0] == "en1"
    assert "notes" not in r
    # An English stopword list still drops "the": a query of stopwords finds nothing by keyword.
    assert ids(server.result("search/query", {"owner": "me", "text": "the", "mode": "keyword"})) == []


def test_embedder_languages_is_checked(tmp_path, db):
    lines = tmp_path / "r.jsonl"
    lines.write_text('{"id":"a","revision":1,"text":"Der Zug ist wieder zu spät gekommen."}\n', encoding="utf-8")
    assert run_cli("ingest", "--db", db, "--owner", "me", "--set", "embedder.languages=all", lines).returncode == 0
    p = run_cli("search", "--db", db, "--owner", "me", "--set", "embedder.languages=english", "Zug")
    assert p.returncode == 2 and "embedder.languages" in p.stderr and "'english'" in p.stderr
    # A model declared to serve German: the cosine leads and no note is given.
    p = run_cli("search", "--db", db, "--owner", "me", "--json", "--set", "embedder.languages=en,de", "Züge")
    assert p.returncode == 0, p.stderr
    answer = __import__("json").loads(p.stdout)
    assert [h["id"] for h in answer["results"]] == ["a"] and "notes" not in answer
