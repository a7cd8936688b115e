"""The bench's query sets, rebuilt from their packages and cached under bench/results/data/search-quality/.

Every set is a dict {name, docs: [{id, text, ...record fields}], queries: [{id, text, relevant: [ids],
split?}], source: {...}}. Relevance is binary.

- debian_short2long: Debian's English package descriptions (Translation-en of the release's main
  component, fetched by `apt-get update` into a private lists folder): the short description is the
  query, the long description of the same package its one relevant document.
- chatterbot_q2a: chatterbot-corpus english/*.yml conversations: the first line is the question, the
  line after it an answer; a question's relevant documents are every answer given to it.
- manpages_name2desc: the C library and system call pages of Debian's `manpages-dev` (fetched with
  `apt-get download`, unpacked with `dpkg-deb -x` into a private folder, rendered by `man -l`): a
  function's name is the query (`pthread_create`), the DESCRIPTION sections of the pages whose NAME
  line lists it are relevant. A keyword-heavy set: the query is one identifier, which keyword search
  matches exactly and an embedding model only knows by its word pieces.
- journal: datasets/journal/{records,queries}.jsonl of the checkout, when present.
"""
import glob
import json
import os
import random
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "bench", "results", "data", "search-quality")


class Unavailable(Exception):
    """A set whose source is not on this machine (the bench skips it and says why)."""


def _cached(name, build, refresh):
    path = os.path.join(DATA, name + ".json")
    if os.path.exists(path) and not refresh:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    data = build()
    os.makedirs(DATA, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    os.replace(tmp, path)
    return data


# ---------------------------------------------------------------- Debian descriptions

def _os_release():
    info = {}
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                info[k] = v.strip('"')
    except OSError:
        pass
    return info


def _debian_source_files():
    """The machine's Debian source definitions (files that point at a Debian archive)."""
    override = os.environ.get("SQ_APT_SOURCES")
    if override:
        return [override]
    files = sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    if os.path.exists("/etc/apt/sources.list"):
        files.append("/etc/apt/sources.list")
    keep = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = [l for l in text.splitlines() if not l.lstrip().startswith("#")]
        if any(re.search(r"/debian/?(\s|$)", l) for l in lines):
            keep.append(path)
    return keep


def translation_en(refresh=False):
    """Path of the decompressed Translation-en of `<codename> main`, fetched once into a private lists folder."""
    osr = _os_release()
    codename = osr.get("VERSION_CODENAME")
    if osr.get("ID") != "debian" or not codename or not shutil.which("apt-get"):
        raise Unavailable("not a Debian machine with apt-get")
    out = os.path.join(DATA, f"debian-{codename}-main-Translation-en.txt")
    if os.path.exists(out) and not refresh:
        return out, codename
    apt = os.path.join(DATA, "apt")
    lists, parts, cache = (os.path.join(apt, d) for d in ("lists", "sources", "cache"))
    for d in (os.path.join(lists, "partial"), parts, os.path.join(cache, "archives", "partial")):
        os.makedirs(d, exist_ok=True)
    sources = _debian_source_files()
    if not sources:
        raise Unavailable("no Debian archive in /etc/apt sources (set SQ_APT_SOURCES to a .sources file)")
    for old in glob.glob(os.path.join(parts, "*")):
        os.remove(old)
    for i, src in enumerate(sources):
        ext = ".sources" if src.endswith(".sources") else ".list"
        shutil.copy(src, os.path.join(parts, f"{i:02d}-{os.path.basename(src).rsplit('.', 1)[0]}{ext}"))
    cmd = ["apt-get", "-q", "-o", f"Dir::State::Lists={lists}", "-o", "Dir::Etc::SourceList=/dev/null",
           "-o", f"Dir::Etc::SourceParts={parts}", "-o", f"Dir::Cache={cache}",
           "-o", "Acquire::Languages=en", "-o", "APT::Sandbox::User=root", "update"]
    print("  apt-get update into a private lists folder (English descriptions on) ...", flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(p for p in glob.glob(os.path.join(lists, f"*_dists_{codename}_main_i18n_Translation-en*"))
                   if not p.endswith(".diff_Index"))
    if not found:
        raise Unavailable(f"apt-get update gave no Translation-en for {codename} main (exit {r.returncode}): "
                          + r.stderr.strip()[-400:])
    helper = "/usr/lib/apt/apt-helper"
    with open(out + ".tmp", "wb") as f:
        subprocess.run([helper, "cat-file", found[0]], stdout=f, check=True)
    os.replace(out + ".tmp", out)
    return out, codename


def parse_translation(path):
    """[(package, short, long)] from a Translation-en file; long paragraphs joined by blank lines."""
    entries = []
    with open(path, encoding="utf-8", errors="replace") as f:
        blocks = f.read().split("\n\n")
    for block in blocks:
        pkg, short, body, in_desc = None, None, [], False
        for line in block.split("\n"):
            if line.startswith("Package:"):
                pkg = line.split(":", 1)[1].strip()
                in_desc = False
            elif line.startswith("Description-en:"):
                short = line.split(":", 1)[1].strip()
                in_desc = True
            elif in_desc and line.startswith(" "):
                body.append(line[1:])
            else:
                in_desc = False
        if not pkg or not short:
            continue
        paragraphs, cur = [], []
        for line in body:
            if line.strip() == ".":
                if cur:
                    paragraphs.append(" ".join(cur))
                cur = []
            else:
                cur.append(line.strip())
        if cur:
            paragraphs.append(" ".join(cur))
        entries.append((pkg, short, "\n\n".join(paragraphs)))
    return entries


def debian_short2long(n_docs=2000, n_queries=500, seed=13, refresh=False):
    path, codename = translation_en(refresh)

    def build():
        entries = parse_translation(path)
        shorts, firsts = {}, {}
        for _, s, l in entries:
            shorts[s.lower()] = shorts.get(s.lower(), 0) + 1
            p0 = l.split("\n\n")[0].lower()
            firsts[p0] = firsts.get(p0, 0) + 1
        # One package per description family: the short description and the long description's first
        # paragraph must both be unique in the release (0ad and 0ad-data share their first paragraph).
        cands = sorted((p, s, l) for p, s, l in entries
                       if len(s.split()) >= 3 and len(l.split()) >= 15
                       and shorts[s.lower()] == 1 and firsts[l.split("\n\n")[0].lower()] == 1)
        rng = random.Random(seed)
        picked = rng.sample(cands, min(n_docs, len(cands)))
        docs = [{"id": p, "text": l} for p, s, l in picked]
        qpick = random.Random(seed + 1).sample(picked, min(n_queries, len(picked)))
        queries = [{"id": "q-" + p, "text": s, "relevant": [p]} for p, s, l in qpick]
        return {"name": "debian_short2long", "docs": docs, "queries": queries,
                "source": {"what": f"Debian {codename} main Translation-en", "entries": len(entries),
                           "candidates": len(cands), "seed": seed}}

    data = _cached(f"debian_short2long-{n_docs}-{n_queries}-s{seed}", build, refresh)
    return data


# ---------------------------------------------------------------- chatterbot-corpus

def chatterbot_q2a(refresh=False):
    try:
        import chatterbot_corpus
        import yaml
    except ImportError as e:
        raise Unavailable(f"chatterbot-corpus not installed ({e})")

    def build():
        folder = os.path.join(os.path.dirname(chatterbot_corpus.__file__), "data", "english")
        answers, answer_ids, by_question, order = [], {}, {}, []
        for path in sorted(glob.glob(os.path.join(folder, "*.yml"))):
            with open(path, encoding="utf-8") as f:
                y = yaml.load(f, Loader=yaml.BaseLoader)  # plain strings: "yes" stays "yes"
            for conv in y.get("conversations", []):
                if not isinstance(conv, list) or len(conv) < 2:
                    continue
                q, a = conv[0].strip(), conv[1].strip()
                if not q or not a:
                    continue
                if a not in answer_ids:
                    answer_ids[a] = f"a{len(answers):04d}"
                    answers.append({"id": answer_ids[a], "text": a})
                if q not in by_question:
                    by_question[q] = []
                    order.append(q)
                if answer_ids[a] not in by_question[q]:
                    by_question[q].append(answer_ids[a])
        queries = [{"id": f"q{i:04d}", "text": q, "relevant": by_question[q]} for i, q in enumerate(order)]
        return {"name": "chatterbot_q2a", "docs": answers, "queries": queries,
                "source": {"what": f"chatterbot-corpus {getattr(chatterbot_corpus, '__version__', '')} english/*.yml"}}

    return _cached("chatterbot_q2a", build, refresh)


# ---------------------------------------------------------------- manpages-dev

def _manpages_dev(refresh=False):
    """Folder of the unpacked manpages-dev package and its version, fetched once with apt-get download."""
    if not (shutil.which("apt-get") and shutil.which("dpkg-deb") and shutil.which("man")):
        raise Unavailable("apt-get, dpkg-deb and man are needed for manpages_name2desc")
    root = os.path.join(DATA, "manpages-dev")
    done = os.path.join(root, "version")
    if os.path.exists(done) and not refresh:
        with open(done, encoding="utf-8") as f:
            return root, f.read().strip()
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    r = subprocess.run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", "manpages-dev"],
                       cwd=root, capture_output=True, text=True)
    debs = glob.glob(os.path.join(root, "manpages-dev_*.deb"))
    if not debs:
        raise Unavailable(f"apt-get download manpages-dev failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    subprocess.run(["dpkg-deb", "-x", debs[0], os.path.join(root, "x")], check=True)
    version = os.path.basename(debs[0]).split("_")[1]
    with open(done, "w", encoding="utf-8") as f:
        f.write(version)
    return root, version


def _man_sections(path):
    """The rendered page's sections, by heading: {"NAME": text, "DESCRIPTION": text, ...}."""
    env = dict(os.environ, MANWIDTH="100000", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    out = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env).stdout
    out = re.sub(r".\x08", "", out)
    sections, current = {}, None
    for line in out.splitlines():
        if line and not line[0].isspace():
            current = line.strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line.strip())
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def manpages_name2desc(n_queries=500, seed=13, words=250, refresh=False):
    root, version = _manpages_dev(refresh)

    def build():
        pages = []
        for sec in ("man2", "man3"):
            for path in sorted(glob.glob(os.path.join(root, "x", "usr", "share", "man", sec, "*.gz"))):
                if os.path.islink(path):
                    continue  # another name of a page that is listed itself
                s = _man_sections(path)
                name, desc = s.get("NAME", ""), s.get("DESCRIPTION", "")
                if " - " not in name or len(desc.split()) < 15:
                    continue
                names = [n.strip() for n in name.split(" - ", 1)[0].split(",") if n.strip()]
                # Paragraphs kept; the description's first `words` words, as a record holds a page's gist.
                paras, total = [], 0
                for p in re.split(r"\n\s*\n", desc):
                    p = " ".join(p.split())
                    if not p:
                        continue
                    left = words - total
                    if left <= 0:
                        break
                    ws = p.split()
                    paras.append(" ".join(ws[:left]))
                    total += min(len(ws), left)
                page = os.path.basename(path)[: -len(".gz")]
                pages.append({"id": f"{sec}/{page}", "names": names, "text": "\n\n".join(paras)})
        listed = {}
        for p in pages:
            for n in p["names"]:
                listed.setdefault(n, []).append(p["id"])
        picked = random.Random(seed).sample(pages, min(n_queries, len(pages)))
        queries = []
        for p in picked:
            n = p["names"][0]
            queries.append({"id": "q-" + p["id"], "text": n, "relevant": sorted(listed[n])})
        docs = [{"id": p["id"], "text": p["text"]} for p in pages]
        return {"name": "manpages_name2desc", "docs": docs, "queries": queries,
                "source": {"what": f"Debian manpages-dev {version}, sections 2 and 3", "pages": len(pages),
                           "seed": seed, "words": words}}

    return _cached(f"manpages_name2desc-{n_queries}-s{seed}-w{words}", build, refresh)


# ---------------------------------------------------------------- journal

RECORD_FIELDS = ("id", "revision", "text", "kind", "date", "tags", "metadata")


def journal(folder=None):
    folder = folder or os.environ.get("SQ_JOURNAL_DIR") or os.path.join(ROOT, "datasets", "journal")
    rpath, qpath = os.path.join(folder, "records.jsonl"), os.path.join(folder, "queries.jsonl")
    if not (os.path.exists(rpath) and os.path.exists(qpath)):
        raise Unavailable(f"{os.path.relpath(folder, ROOT)}/records.jsonl and queries.jsonl are not in this checkout")
    docs, queries = [], []
    with open(rpath, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                docs.append({k: r[k] for k in RECORD_FIELDS if k in r and r[k] is not None})
    with open(qpath, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                queries.append({"id": q["id"], "text": q["query"], "relevant": list(q["relevant"]),
                                "split": q.get("split", "report")})
    return {"name": "journal", "docs": docs, "queries": queries,
            "source": {"what": os.path.relpath(folder, ROOT)}}


# ---------------------------------------------------------------- latency corpus

def latency_corpus(n, seed=13, refresh=False):
    """n short real texts: every distinct Debian short and long description, then paragraphs of the long
    ones, then numbered copies if that is still not enough; in a seeded order."""
    path, codename = translation_en(refresh)

    def build():
        entries = parse_translation(path)
        seen, texts = set(), []
        for _, s, l in entries:
            for t in (s, l):
                if t and t not in seen:
                    seen.add(t)
                    texts.append(t)
        rng = random.Random(seed)
        rng.shuffle(texts)
        if len(texts) < n:
            paras = []
            for _, s, l in entries:
                for p in l.split("\n\n"):
                    if len(p.split()) >= 5 and p not in seen:
                        seen.add(p)
                        paras.append(p)
            rng.shuffle(paras)
            texts += paras[: n - len(texts)]
        base, k = list(texts), 2
        while len(texts) < n:
            texts += [f"{t} ({k})" for t in base[: n - len(texts)]]
            k += 1
        return {"texts": texts[:n], "source": f"Debian {codename} main Translation-en", "seed": seed}

    return _cached(f"latency-corpus-{n}-s{seed}", build, refresh)
