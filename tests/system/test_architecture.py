"""The house as built: rooms by layer, imports pointing one way, no circle, small files.

Every import counts, a function's own included: a lazy import is still a dependency, and
a circle of lazy imports is still a circle a newcomer has to untangle. The rooms and what
each may import are the table below; docs/ARCHITECTURE.md draws the same arrows.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bank", "trias", "printables")

# room -> the rooms it may import (its own always). The longest matching room name wins.
MAY_IMPORT = {
    "trias": set(),  # the pure Trias engine: nothing of the bank
    "bank.errors": set(),  # the refusal every room raises
    "bank.game": {"bank.errors"},  # the field game's pure rules
    "bank.store": {"bank.errors"},  # durability for any engine: knows no game, no service, no web
    "bank.services": {"bank.errors", "bank.game", "bank.store", "trias"},
    "printables": {"bank.errors", "bank.game", "trias"},  # draws from the config and the game's views
    "bank.web.serving": {"bank.errors", "bank.store"},  # the server: knows no route
    "bank.web.access": {"bank.errors", "bank.game", "bank.store", "bank.web.serving"},
    "bank.web.push": {"bank.errors", "bank.game", "bank.store", "bank.services", "bank.web.serving", "bank.web.access"},
    "bank.web.field": {"bank.errors", "bank.game", "bank.store", "bank.services", "printables", "bank.web",
                       "bank.web.serving", "bank.web.access", "bank.web.push"},
    "bank.web.trias": {"bank.errors", "bank.store", "bank.services", "printables", "trias", "bank.web",
                       "bank.web.serving", "bank.web.access", "bank.web.push", "bank.web.field"},
    "bank.web": {"bank.errors", "bank.game", "bank.store", "bank.services", "printables", "trias",
                 "bank.web.serving", "bank.web.access", "bank.web.push", "bank.web.field", "bank.web.trias"},
    "bank.cli": {"bank.errors", "bank.game", "bank.store", "bank.services", "printables", "trias", "bank.web",
                 "bank.web.serving", "bank.web.access", "bank.web.push", "bank.web.field", "bank.web.trias"},
}
# Known upward edges, each named so that no new one creeps in unseen. The live layer builds the
# field game's pictures (payloads) and passes another process's Trias notice on: both to untie.
KNOWN_UPWARD = {
    ("bank.web.push.broadcaster", "bank.web.field.payloads"),
    ("bank.web.push.live", "bank.web.trias.live"),
}
# Third-party packages a pure core must not touch: the cores run without a server, a database or a PDF.
CORE_FORBIDDEN = {
    "trias": {"flask", "flask_socketio", "werkzeug", "sqlite3", "psycopg", "reportlab", "redis"},
    "bank.game": {"flask", "flask_socketio", "werkzeug", "sqlite3", "psycopg", "reportlab", "redis"},
    "bank.store": {"flask", "flask_socketio", "reportlab", "redis"},  # werkzeug.security hashes passwords
}
ROOT_FILES = {"__init__.py", "errors.py"}  # everything else of bank/ lives in a room
MAX_LINES = 400


def modules(root: Path) -> dict:
    """module name -> (path, is_package) for every .py file of the project's packages under root."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imports(root: Path) -> dict:
    """module -> {(imported module, line)}: the project's modules each one imports, anywhere in it. The real
    tree is read once per run (three tests read it; it does not change meanwhile), a planted one each time."""
    return _the_real_imports() if root == ROOT else _read_imports(root)


@functools.cache
def _the_real_imports() -> dict:
    return _read_imports(ROOT)


def _read_imports(root: Path) -> dict:
    known = modules(root)
    graph = {}
    for name, (path, is_package) in known.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = name.split(".")[:len(name.split(".")) - node.level + (1 if is_package else 0)]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in known and target != name:
                    edges.add((target, node.lineno))
                elif target.split(".")[0] not in PACKAGES:
                    edges.add((target, node.lineno))  # third-party or standard library, for CORE_FORBIDDEN
        graph[name] = edges
    return graph


def room(module: str) -> str | None:
    """The room a module belongs to (the longest room name that is a prefix of it)."""
    matches = [r for r in MAY_IMPORT if module == r or module.startswith(r + ".")]
    return max(matches, key=len) if matches else None


def wrong_way(root: Path) -> list:
    """Every import that points against the table, or into a core from a forbidden package."""
    graph, problems = imports(root), []
    for source, edges in graph.items():
        mine = room(source)
        for target, line in sorted(edges):
            theirs = room(target)
            if target in graph:  # one of ours
                if mine is None or theirs is None:
                    problems.append(f"{source}:{line} -> {target}: a module outside every room")
                elif theirs != mine and theirs not in MAY_IMPORT[mine] and (source, target) not in KNOWN_UPWARD:
                    problems.append(f"{source}:{line} imports {target}: {mine} may not import {theirs}")
            else:
                for core, forbidden in CORE_FORBIDDEN.items():
                    if room(source) == core and target.split(".")[0] in forbidden:
                        problems.append(f"{source}:{line} imports {target}: {core} must stay free of it")
    return problems


def cycles(root: Path) -> list:
    """The import circles between the project's modules (strongly connected components, Tarjan)."""
    every = imports(root)  # its keys are the project's modules: an edge to anything else leaves the circle test
    graph = {m: {t for t, _ in edges if t in every} for m, edges in every.items()}
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_import_points_the_way_the_rooms_allow():
    assert wrong_way(ROOT) == []


def test_no_import_circle_anywhere_in_the_tree():
    assert cycles(ROOT) == []


def test_known_upward_edges_still_exist():
    """An exception that is no longer needed is removed from KNOWN_UPWARD, so it cannot hide a new one."""
    graph = imports(ROOT)
    assert {(s, t) for s, t in KNOWN_UPWARD if t not in {target for target, _ in graph.get(s, set())}} == set()


def test_bank_root_holds_only_the_entrance_and_the_shared_errors():
    assert sorted(p.name for p in (ROOT / "bank").glob("*.py")) == sorted(ROOT_FILES)


def test_every_room_says_what_it_holds_and_may_import():
    """Each package's __init__.py opens with a paragraph: a newcomer reads the room from its door."""
    for init in sorted((ROOT / "bank").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert len(doc) > 80, f"{init.relative_to(ROOT)} has no paragraph saying what the room holds"


def test_no_file_in_bank_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "bank").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _plant(tmp_path: Path, files: dict) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    return tmp_path


@pytest.mark.parametrize("planted, expected", [
    ("from bank.web.field import api\n", "bank.store may not import bank.web.field"),
    ("def later():\n    from bank.cli import main\n", "bank.store may not import bank.cli"),  # lazy counts too
    ("from ..services import bank\n", "bank.store may not import bank.services"),  # relative too
])
def test_a_planted_wrong_way_import_is_caught(tmp_path, planted, expected):
    root = _plant(tmp_path, {"bank/store/__init__.py": "", "bank/store/journal.py": planted,
                             "bank/web/__init__.py": "", "bank/web/field/__init__.py": "", "bank/web/field/api.py": "",
                             "bank/cli/__init__.py": "", "bank/cli/main.py": "",
                             "bank/services/__init__.py": "", "bank/services/bank.py": ""})
    assert [p for p in wrong_way(root) if expected in p], wrong_way(root)


def test_a_planted_core_import_of_flask_is_caught(tmp_path):
    root = _plant(tmp_path, {"trias/engine.py": "import flask\n"})
    assert wrong_way(root) == ["trias.engine:1 imports flask: trias must stay free of it"]


def test_a_planted_circle_is_caught(tmp_path):
    root = _plant(tmp_path, {"bank/store/__init__.py": "", "bank/store/a.py": "from bank.store import b\n",
                             "bank/store/b.py": "def f():\n    from bank.store.a import x\n"})
    assert cycles(root) == [["bank.store.a", "bank.store.b"]]


# --- the tests and benches mirror the rooms ---------------------------------------------------------

WHOLE_SYSTEM = "system"  # game days, faults, attacks, chaos, soak, the house itself: no one room
DOCS = "docs"  # the pages of docs/ checked against the code and the benches' figures
FLAT_ALLOWED = {"conftest.py"}  # beside the kits (helpers that define no test), the one file pytest wants there


def code_rooms(root: Path) -> set:
    """The folders a test or a bench may live in: one per package of the code (bank's rooms without the
    `bank/` prefix, `trias`, `printables` and their sub-packages), one for the docs, one for the whole system."""
    found = {WHOLE_SYSTEM, DOCS}
    for package in PACKAGES:
        for init in (root / package).rglob("__init__.py"):
            parts = init.parent.relative_to(root).parts
            if parts[0] == "bank":
                parts = parts[1:]
            if parts:
                found.add("/".join(parts))
    return found


def defines_a_test(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
               or isinstance(node, ast.ClassDef) and node.name.startswith("Test") for node in tree.body)


def same_base_names(folder: Path, pattern: str, why: str) -> list:
    """A sentence for each base name two files under `folder` share (one room's copy would stand for the other's)."""
    seen: dict = {}
    for path in sorted(folder.rglob(pattern)):
        seen.setdefault(path.name, []).append(path.relative_to(folder.parent).as_posix())
    return [f"{name} is the base name of {' and '.join(paths)}: {why}; rename one" for name, paths in seen.items()
            if len(paths) > 1]


def misplaced_tests(root: Path) -> list:
    """Every test file outside its room, every flat file that holds tests, and every test module imported
    from another folder (a test file runs alone: what two folders share lives in a kit)."""
    tests, rooms, problems = root / "tests", code_rooms(root), []
    for path in sorted(tests.glob("*.py")):
        if path.name not in FLAT_ALLOWED and (path.name.startswith("test_") or defines_a_test(path)):
            problems.append(f"tests/{path.name} lies flat: a test file lives in the folder of the room it tests")
    where = {path.stem: path.parent for path in tests.rglob("test_*.py")}
    problems += same_base_names(tests, "*.py", "pytest imports a test file or a kit by it, and tests/suite_budget.json "
                                               "knows a test file by it")
    for path in sorted(tests.rglob("test_*.py")):
        folder = path.parent.relative_to(tests).as_posix()
        if folder != "." and folder not in rooms:
            problems.append(f"tests/{folder}/{path.name}: tests/{folder} matches no room of the code")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                if name in where and where[name] != path.parent:
                    problems.append(f"{path.relative_to(root)}:{node.lineno} imports {name} of another folder: "
                                    "move what they share into a kit")
    return problems


def test_every_test_file_lives_in_the_folder_of_its_room():
    assert misplaced_tests(ROOT) == []


@pytest.mark.parametrize("planted, expected", [
    ({"tests/test_flat.py": "def test_x():\n    pass\n"}, "tests/test_flat.py lies flat"),
    ({"tests/helper.py": "def test_hidden():\n    pass\n"}, "tests/helper.py lies flat"),
    ({"tests/nowhere/test_lost.py": ""}, "tests/nowhere matches no room"),
    ({"tests/store/test_a.py": "", "tests/web/field/test_b.py": "from test_a import helper\n"},
     "tests/web/field/test_b.py:1 imports test_a of another folder"),
    ({"tests/store/test_same.py": "", "tests/web/field/test_same.py": ""},
     "test_same.py is the base name of tests/store/test_same.py and tests/web/field/test_same.py"),
])
def test_a_planted_misplaced_test_is_caught(tmp_path, planted, expected):
    root = _plant(tmp_path, {"bank/store/__init__.py": "", "bank/web/__init__.py": "", "bank/web/field/__init__.py": "",
                             "tests/conftest.py": "", "tests/some_kit.py": "def helper():\n    pass\n", **planted})
    assert [p for p in misplaced_tests(root) if expected in p], misplaced_tests(root)


def test_the_rooms_of_tests_are_the_rooms_of_the_code(tmp_path):
    root = _plant(tmp_path, {"bank/store/__init__.py": "", "bank/web/__init__.py": "", "bank/web/field/__init__.py": "",
                             "tests/store/test_a.py": "", "tests/web/field/test_b.py": "from test_c import x\n",
                             "tests/web/field/test_c.py": "", "tests/system/test_d.py": "", "tests/some_kit.py": ""})
    assert misplaced_tests(root) == []


def misplaced_benches(root: Path) -> list:
    """Every bench outside its room. A file flat in bench/ is a module the benches share (harness, clients,
    the floors...): another bench or a test imports it or starts it by name; one nothing uses is a bench."""
    bench, rooms, problems = root / "bench", code_rooms(root), []
    if not bench.is_dir():
        return problems
    users = [p for folder in ("bench", "tests") if (root / folder).is_dir() for p in (root / folder).rglob("*.py")]
    texts = {p: p.read_text(encoding="utf-8") for p in users}
    for path in sorted(bench.glob("*.py")):
        name = re.escape(path.stem)
        used = re.compile(rf"^\s*(from {name} import|import {name}\b)|[\"'/]{name}\.py[\"']", re.M)
        if not any(used.search(text) for other, text in texts.items() if other != path):
            problems.append(f"bench/{path.name} lies flat and nothing uses it: a bench lives in the folder of its room")
    problems += same_base_names(bench, "*.py", "a bench or a test loads a bench's module by its name")
    for path in sorted(bench.rglob("*.py")):
        folder = path.parent.relative_to(bench).as_posix()
        if folder != "." and folder not in rooms:
            problems.append(f"bench/{folder}/{path.name}: bench/{folder} matches no room of the code")
    return problems


def test_every_bench_lives_in_the_folder_of_its_room():
    assert misplaced_benches(ROOT) == []


@pytest.mark.parametrize("planted, expected", [
    ({"bench/bench_alone.py": "print(1)\n"}, "bench/bench_alone.py lies flat and nothing uses it"),
    ({"bench/nowhere/bench_lost.py": ""}, "bench/nowhere matches no room"),
    ({"bench/web/bench_a.py": ""}, "bench_a.py is the base name of bench/store/bench_a.py and bench/web/bench_a.py"),
])
def test_a_planted_misplaced_bench_is_caught(tmp_path, planted, expected):
    root = _plant(tmp_path, {"bank/store/__init__.py": "", "bench/harness.py": "", "bench/floor.py": "",
                             "bench/store/bench_a.py": "import harness\nSCRIPT = 'floor.py'\n", **planted})
    assert [p for p in misplaced_benches(root) if expected in p], misplaced_benches(root)
    assert not [p for p in misplaced_benches(root) if p.startswith(("bench/harness.py", "bench/floor.py", "bench/store/"))]
