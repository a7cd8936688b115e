"""KindredKit as another package's dependency, pinned by version, as docs/library.md tells an app to add it.

The app's `Package.swift` and `main.swift` are read from docs/library.md (the blocks after
`<!-- consumer-file: PATH -->`) and its expected output from the block after `<!-- consumer-output -->`,
so the page and the test cannot drift apart. The only change to the page's text is the dependency's URL:
in its place goes the `file://` URL of a clone of this repository whose only tag is the page's `from:`
version, on the committed HEAD. SwiftPM then treats Kindred as it treats any version-pinned dependency
(it refuses unsafe build flags in one, for instance). Uncommitted changes are not in the clone: commit
them first.

The clone and the app's build folder are kept in tests-e2e/.cache/library-dependency (git-ignored;
KINDRED_LIBRARY_CACHE moves it) while HEAD's Package.swift and Sources/ stay the same: a rerun then
only links and runs the app. Other sources start from an empty folder: a full release build of
Kindred's modules, a few minutes on two cores (CI, on a fresh clone, always pays it).
"""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess

from conftest import REPO

DOC = REPO / "docs" / "library.md"
CACHE = pathlib.Path(os.environ.get("KINDRED_LIBRARY_CACHE", REPO / "tests-e2e" / ".cache" / "library-dependency"))
BUILD_TIMEOUT = float(os.environ.get("KINDRED_LIBRARY_BUILD_TIMEOUT", "1500"))

FILE_MARK = re.compile(r"^<!--\s*consumer-file:\s*(\S+)\s*-->\s*$")
OUTPUT_MARK = re.compile(r"^<!--\s*consumer-output\s*-->\s*$")
FENCE = re.compile(r"^```")
DEPENDENCY = re.compile(r'\.package\(url:\s*"([^"]+)",\s*from:\s*"([^"]+)"\)')


def read_page():
    """({path: text} of the consumer's files, the expected output) from docs/library.md."""
    lines = DOC.read_text(encoding="utf-8").split("\n")
    files, output, i = {}, None, 0
    while i < len(lines):
        mark_file, mark_output = FILE_MARK.match(lines[i]), OUTPUT_MARK.match(lines[i])
        if mark_file or mark_output:
            assert i + 1 < len(lines) and FENCE.match(lines[i + 1]), f"{DOC.name}:{i + 1}: a marker not followed by a fenced block"
            end = i + 2
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            text = "\n".join(lines[i + 2:end]) + "\n"
            if mark_file:
                files[mark_file.group(1)] = text
            else:
                output = text
            i = end
        i += 1
    return files, output


def git(*args, cwd=None):
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"git {' '.join(args)} failed:\n{p.stderr}"
    return p.stdout.strip()


def run_bounded(argv, timeout):
    """`argv` in a process group of its own, all of which is killed past `timeout` seconds (swift build's compilers too)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        raise AssertionError(f"{' '.join(argv)} took more than {timeout:.0f} s:\n{tail(out)}") from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, "")


def tail(text, n=60):
    return "\n".join(text.strip().split("\n")[-n:])


def prepare_remote(head, version):
    """CACHE/kindred: a clone of REPO at `head` whose only tag is `version`, and the commit it is at.

    The clone in CACHE is kept while Package.swift and Sources/ are those of `head` (a commit that
    changes only docs or tests builds the same library); otherwise CACHE is emptied first: the tag
    would have to move, and a version that moves is not something SwiftPM expects of a dependency.
    """
    stamp = CACHE / "head.json"
    want = {"sources": git("rev-parse", "HEAD:Package.swift", "HEAD:Sources", cwd=REPO).split(), "version": version}
    if stamp.is_file() and (CACHE / "kindred" / ".git").is_dir():
        kept = json.loads(stamp.read_text())
        if {k: kept.get(k) for k in want} == want:
            return CACHE / "kindred", kept["head"]
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    remote = CACHE / "kindred"
    git("clone", "--quiet", "--no-checkout", str(REPO), str(remote))
    git("checkout", "--quiet", "--detach", head, cwd=remote)
    tags = git("tag", "--list", cwd=remote).split()
    if tags:
        git("tag", "--delete", *tags, cwd=remote)
    git("tag", version, head, cwd=remote)
    stamp.write_text(json.dumps({**want, "head": head}))
    return remote, head


def write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def test_the_page_shows_a_version_pinned_dependency_at_tools_version_6_0():
    files, output = read_page()
    assert set(files) == {"Package.swift", "Sources/JournalApp/main.swift"}, files.keys()
    manifest = files["Package.swift"]
    assert manifest.startswith("// swift-tools-version:6.0\n"), manifest.split("\n")[0]
    deps = DEPENDENCY.findall(manifest)
    assert len(deps) == 1 and re.fullmatch(r"\d+\.\d+\.\d+", deps[0][1]), deps
    url = deps[0][0]
    identity = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git").lower()
    assert f'.product(name: "KindredKit", package: "{identity}")' in manifest
    assert "import KindredKit" in files["Sources/JournalApp/main.swift"]
    assert output and output.strip(), "the page shows what the example prints"
    # Kindred's own manifest: the tools version the page names, and nothing SwiftPM refuses in a pinned dependency.
    ours = (REPO / "Package.swift").read_text(encoding="utf-8")
    assert ours.startswith("// swift-tools-version:6.0\n")
    assert ".unsafeFlags(" not in ours


def test_an_app_pinned_to_a_tagged_clone_builds_and_prints_the_pages_output(tmp_path):
    swift = shutil.which("swift")
    assert swift, "swift is not on PATH"
    files, expected = read_page()
    (url, version), = DEPENDENCY.findall(files["Package.swift"])
    head = git("rev-parse", "HEAD", cwd=REPO)
    dirty = git("status", "--porcelain", "--", "Package.swift", "Sources", cwd=REPO)
    note = f"(built from the committed HEAD {head[:10]}" + ("; uncommitted changes under Sources/ or in Package.swift are not in it)" if dirty else ")")

    remote, built = prepare_remote(head, version)
    if built != head:
        note = note[:-1] + f"; its Package.swift and Sources/ as at {built[:10]}, the clone kept from an earlier run)"
    app = CACHE / "app"
    for path, text in files.items():
        if path == "Package.swift":
            text = text.replace(f'"{url}"', json.dumps(remote.as_uri()))
        write_if_changed(app / path, text)

    build = run_bounded([swift, "build", "-c", "release", "--package-path", str(app)], BUILD_TIMEOUT)
    assert build.returncode == 0, f"the app did not build {note}:\n{tail(build.stdout)}"
    resolved = json.loads((app / "Package.resolved").read_text())
    pins = {p["identity"]: p["state"] for p in resolved["pins"]}
    assert pins.get("kindred", {}).get("version") == version and pins["kindred"].get("revision") == built, pins

    run = subprocess.run([str(app / ".build" / "release" / "JournalApp")], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"the app failed {note}:\n{run.stdout}\n{run.stderr}"
    assert run.stdout == expected, f"the app printed something other than docs/library.md shows {note}:\n{run.stdout}\n{run.stderr}"
    assert (tmp_path / "journal.sqlite").is_file()
