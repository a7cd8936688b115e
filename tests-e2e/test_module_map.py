"""The README's module map, Package.swift and the imports in the sources agree.

Package.swift is read as text: every `.systemLibrary`, `.target`, `.executableTarget` and
`.testTarget` call, its name, its `dependencies:` and its `path:`. The README's "Modules" table has
one row per target that is not a test target: `` | `Name` | `Dep`, `Dep` | what it holds | ``
(`—` for none). A Swift target's imports of the package's own modules must be exactly the
dependencies it declares, so that no target leans on another's dependencies and none declares one
it does not use.
"""

import re

from conftest import REPO

KINDS = ("systemLibrary", "target", "executableTarget", "testTarget")
TARGET_CALL = re.compile(r"\.(" + "|".join(KINDS) + r")\(\s*name:\s*\"([^\"]+)\"")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?(\w+)", re.M)
MAP_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|")


def call_span(text, start):
    """The text of the call whose `(` follows `start`, up to its matching `)` (strings skipped)."""
    i = text.index("(", start)
    depth, j, in_string = 0, i, False
    while j < len(text):
        c = text[j]
        if in_string:
            if c == "\\":
                j += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[i : j + 1]
        j += 1
    raise ValueError(f"unclosed call at {start}")


def package_targets(text):
    """{name: (kind, [dependencies], path)} from the text of Package.swift."""
    text = "\n".join(line.split("//", 1)[0] for line in text.split("\n"))
    targets = {}
    for m in TARGET_CALL.finditer(text):
        kind, name = m.group(1), m.group(2)
        call = call_span(text, m.start())
        deps = re.search(r"dependencies:\s*\[([^\]]*)\]", call)
        path = re.search(r"path:\s*\"([^\"]+)\"", call)
        default = ("Tests/" if kind == "testTarget" else "Sources/") + name
        targets[name] = (kind, re.findall(r"\"([^\"]+)\"", deps.group(1)) if deps else [], path.group(1) if path else default)
    return targets


def readme_module_map(text):
    """{name: [dependencies]} from the rows of the README's "Modules" table."""
    section = text.split("\n## Modules\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.split("\n"):
        m = MAP_ROW.match(line)
        if m:
            rows[m.group(1)] = re.findall(r"`([^`]+)`", m.group(2))
    return rows


def map_differences(targets, rows):
    """What the README's map says that Package.swift does not, one line each."""
    out = []
    products = {name: deps for name, (kind, deps, _) in targets.items() if kind != "testTarget"}
    for name in sorted(products.keys() - rows.keys()):
        out.append(f"{name}: a target of Package.swift missing from the README's module map")
    for name in sorted(rows.keys() - products.keys()):
        out.append(f"{name}: in the README's module map but not a target of Package.swift")
    for name in sorted(products.keys() & rows.keys()):
        if sorted(products[name]) != sorted(rows[name]):
            out.append(f"{name}: Package.swift declares {sorted(products[name])}, the README says {sorted(rows[name])}")
    return out


def imports_of(folder):
    found = set()
    for f in sorted(folder.rglob("*.swift")):
        found.update(IMPORT.findall(f.read_text(encoding="utf-8")))
    return found


def import_differences(targets, root):
    """Swift targets whose imports of the package's modules differ from their declared dependencies."""
    ours = set(targets)
    out = []
    for name, (kind, deps, path) in sorted(targets.items()):
        folder = root / path
        if kind == "systemLibrary" or not any(folder.rglob("*.swift")):
            continue  # C: a module map, or C sources
        imported = imports_of(folder) & ours
        if imported != set(deps):
            unused, undeclared = sorted(set(deps) - imported), sorted(imported - set(deps))
            out.append(f"{name}: declared but not imported {unused}, imported but not declared {undeclared}")
    return out


def test_the_readme_module_map_is_package_swift():
    targets = package_targets((REPO / "Package.swift").read_text(encoding="utf-8"))
    rows = readme_module_map((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(rows) >= 20, "the README's module map was not found"
    assert map_differences(targets, rows) == []


def test_every_target_declares_exactly_what_it_imports():
    targets = package_targets((REPO / "Package.swift").read_text(encoding="utf-8"))
    assert {"kindred", "Service", "KindredCore", "ServiceTests"} <= targets.keys()
    assert import_differences(targets, REPO) == []


def test_the_comparisons_catch_a_missing_target_and_changed_dependencies(tmp_path):
    package = '''
        targets: [
            .systemLibrary(name: "CLib", pkgConfig: "lib"),
            .target(name: "Core"),
            .target(name: "Maths", dependencies: ["Core", "CLib"], exclude: ["README.md"]),
            // .target(name: "Commented", dependencies: ["Core"]),
            .executableTarget(name: "tool", dependencies: [
                "Maths",
            ], path: "Examples/tool"),
            .testTarget(name: "MathsTests", dependencies: ["Maths"]),
        ]
    '''
    targets = package_targets(package)
    assert targets == {
        "CLib": ("systemLibrary", [], "Sources/CLib"),
        "Core": ("target", [], "Sources/Core"),
        "Maths": ("target", ["Core", "CLib"], "Sources/Maths"),
        "tool": ("executableTarget", ["Maths"], "Examples/tool"),
        "MathsTests": ("testTarget", ["Maths"], "Tests/MathsTests"),
    }
    readme = "# X\n\n## Modules\n\n| module | depends on | what |\n|---|---|---|\n" \
        "| `CLib` | — | C |\n| `Core` | — | core |\n| `Maths` | `Core` | maths |\n\n## Next\n\n| `tool` | — | not in the map |\n"
    assert map_differences(targets, readme_module_map(readme)) == [
        "tool: a target of Package.swift missing from the README's module map",
        "Maths: Package.swift declares ['CLib', 'Core'], the README says ['Core']",
    ]
    (tmp_path / "Sources/Maths").mkdir(parents=True)
    (tmp_path / "Sources/Maths/A.swift").write_text("import Foundation\ninternal import CLib\n")
    (tmp_path / "Sources/Core").mkdir(parents=True)
    (tmp_path / "Sources/Core/B.swift").write_text("@testable import Maths\n")
    (tmp_path / "Examples/tool").mkdir(parents=True)
    (tmp_path / "Examples/tool/main.swift").write_text("import Maths\n")
    assert import_differences(targets, tmp_path) == [
        "Core: declared but not imported [], imported but not declared ['Maths']",
        "Maths: declared but not imported ['Core'], imported but not declared []",
    ]
