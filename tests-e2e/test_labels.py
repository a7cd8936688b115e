"""The labels a person reads for the bundled journal, generated with no client occurrences: short,
with keywords that are never stopwords, judged against a list the engine does not own."""

import json

from conftest import run_cli

# scikit-learn's English stop list (sklearn.feature_extraction.text.ENGLISH_STOP_WORDS, the Glasgow
# information retrieval group's list), as data.
GLASGOW = set("""
    a about above across after afterwards again against all almost alone along already also although
    always am among amongst amoungst amount an and another any anyhow anyone anything anyway
    anywhere are around as at back be became because become becomes becoming been before beforehand
    behind being below beside besides between beyond bill both bottom but by call can cannot cant co
    con could couldnt cry de describe detail do done down due during each eg eight either eleven
    else elsewhere empty enough etc even ever every everyone everything everywhere except few
    fifteen fifty fill find fire first five for former formerly forty found four from front full
    further get give go had has hasnt have he hence her here hereafter hereby herein hereupon hers
    herself him himself his how however hundred i ie if in inc indeed interest into is it its itself
    keep last latter latterly least less ltd made many may me meanwhile might mill mine more
    moreover most mostly move much must my myself name namely neither never nevertheless next nine
    no nobody none noone nor not nothing now nowhere of off often on once one only onto or other
    others otherwise our ours ourselves out over own part per perhaps please put rather re same see
    seem seemed seeming seems serious several she should show side since sincere six sixty so some
    somehow someone something sometime sometimes somewhere still such system take ten than that the
    their them themselves then thence there thereafter thereby therefore therein thereupon these
    they thick thin third this those though three through throughout thru thus to together too top
    toward towards twelve twenty two un under until up upon us very via was we well were what
    whatever when whence whenever where whereafter whereas whereby wherein whereupon wherever
    whether which while whither who whoever whole whom whose why will with within without would yet
    you your yours yourself yourselves
""".split())


def test_journal_labels_are_short_and_keywords_are_never_stopwords(journal_db):
    r = run_cli("patterns", "findings", "--db", journal_db, "--owner", "demo", "--all", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["findings"]
    assert len(findings) >= 10
    for f in findings:
        label = f["generatedLabel"]
        assert 0 < len(label) <= 60, label
        assert f["keywords"], label
        for k in f["keywords"]:
            assert k.lower() not in GLASGOW, f"stopword keyword {k!r} in {label!r}"
        assert f["description"] and label.startswith(f["description"]), label
        assert len(f["description"]) <= 40, label


def test_journal_labels_name_what_recurs_not_a_passage_cut_short(journal_db):
    """Labels were the first words of a passage ("train eased away with everyone inside…"): a
    person reads a label as what the entries share, so it is a phrase of at most four words that
    at least two members write, and it names the group's shared element when it has one."""
    r = run_cli("patterns", "findings", "--db", journal_db, "--owner", "demo", "--all", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["findings"]
    for f in findings:
        phrase = f["description"]
        assert "…" not in phrase and len(phrase.split()) <= 4, f["generatedLabel"]
    phrases = {}
    for f in findings:
        shown = run_cli("patterns", "show", "--db", journal_db, "--owner", "demo", "--json", str(f["groupId"]), timeout=120)
        assert shown.returncode == 0, shown.stderr
        element = json.loads(shown.stdout)["group"].get("sharedElement")
        if element:
            assert element.lower()[:4] in f["description"].lower(), (element, f["generatedLabel"])
        phrases[f["groupId"]] = f["description"].lower()
    # The journal's best-known situations are named by what recurs in them.
    labels = " | ".join(phrases.values())
    for word in ("train", "lighthouse", "teeth"):
        assert word in labels, labels
