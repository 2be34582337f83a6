"""The suite's own bookkeeping: a marker for each kind of test, the run's durations, each file's budget.

A plugin (tests/conftest.py lists it in `pytest_plugins`):

- Kinds: each test gets the markers `browser`, `postgres`, `redis`, `netns` from the fixtures it uses
  and the kits and packages its module imports, and `slow` when it is of one of those kinds or took
  SLOW_SECONDS or more in the measured run (tests/suite_budget.json), so that nobody marks hundreds of
  files by hand and a new browser test is `slow` the day it is written. `serial` is set by the test
  itself (it needs a quiet machine: it measures time or CPU, or loads both cores): `python3 run.py test`
  runs those alone after the parallel pass.
- Order: the files with the largest budget first, so that pytest-xdist's workers (one file at a time,
  `--dist loadfile`) do not end the run waiting for one long file started last.
- Durations: with TERRABANK_SUITE_REPORT set, the controller writes each test file's seconds (setup,
  call and teardown of its tests) to that JSON file at the end of the run; run.py sets it for each pass.
- Budget: tests/system/test_suite_budget.py checks the run's files against tests/suite_budget.json, judged
  at the run's own pace (a machine twice as loaded takes about twice as long everywhere), so that load
  cannot fail it but one file grown far slower than the rest does.

`python3 tests/suite_kit.py budget REPORT...` writes tests/suite_budget.json from a full run's
reports (a quiet machine's, with every test selected).

`python3 tests/suite_kit.py rewrite` writes the bytecode pytest would write for the test files, conftest
and this plugin (their asserts rewritten), once, before a run: where PYTHONDONTWRITEBYTECODE is set, as
in CI's image, pytest writes none, so each xdist worker rewrote and compiled every test file again (a
collection took 17.6 CPU-s without them, 8.8 with them). pytest still reads them there, checked
against the source's hash: an edited file is rewritten by pytest as before.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
BUDGET_FILE = HERE / "suite_budget.json"
REPORT_ENV = "TERRABANK_SUITE_REPORT"
EARLIER_ENV = "TERRABANK_SUITE_EARLIER"  # the reports of this run's passes done before this one
# Where the parallel pass writes the files that hold serial tests, so that the serial pass collects
# those files only (a whole collection is seconds of CPU, alone on the machine).
SERIAL_FILES_ENV = "TERRABANK_SUITE_SERIAL_FILES"

# A test taking this long (setup, call and teardown) in the measured run is `slow`.
SLOW_SECONDS = 1.0
# Over budget: more than MARGIN times its budget at the run's pace, and GRACE seconds beyond.
MARGIN, GRACE = 2.0, 20.0
# A file the budget does not know yet may take this long at the run's pace before it must get one.
UNBUDGETED = 60.0

FIXTURE_KINDS = {"chromium": "browser", "postgres_server": "postgres", "redis_server": "redis"}
# What a test module imports (its own top-level names' modules) -> the kind it is.
IMPORT_KINDS = {"browserkit": "browser", "playwright": "browser", "axe_playwright_python": "browser",
                "postgres_kit": "postgres", "psycopg": "postgres", "redis_kit": "redis", "redis": "redis",
                "netns_kit": "netns"}
KINDS = ("browser", "postgres", "redis", "netns")


def file_key(path: str | os.PathLike) -> str:
    """A test file's name in the budget and the reports: its base name (unique in tests/), so that a
    file moved to another folder keeps its budget."""
    return Path(str(path).split("::", 1)[0]).name


def load_budget(path: Path = BUDGET_FILE) -> dict:
    """{"files": {file: seconds}, "slow": [file::test ids]} (empty when the file is missing)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"files": {}, "slow": []}
    return {"files": data.get("files", {}), "slow": data.get("slow", [])}


def node_key(nodeid: str) -> str:
    """A test's id in the budget: its file's base name, then the rest of pytest's id."""
    file, _, rest = nodeid.partition("::")
    return f"{file_key(file)}::{rest}"


def _imported(module) -> set[str]:
    """The top-level names of the packages and kits a test module's globals come from."""
    names = set()
    for value in vars(module).values():
        name = value.__name__ if isinstance(value, type(sys)) else getattr(value, "__module__", None)
        if isinstance(name, str):
            names.add(name.partition(".")[0])
    return names


def kinds_of(item, imported: set[str]) -> set[str]:
    kinds = {FIXTURE_KINDS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_KINDS}
    kinds |= {IMPORT_KINDS[name] for name in imported if name in IMPORT_KINDS}
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("storage_backend") == "postgresql":
        kinds.add("postgres")
    return kinds


def pytest_collection_modifyitems(config, items):
    budget = load_budget()
    slow = set(budget["slow"])
    imports: dict[str, set[str]] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module.__name__ not in imports:
            imports[module.__name__] = _imported(module)
        kinds = kinds_of(item, imports[module.__name__])
        for kind in sorted(kinds):
            item.add_marker(kind)
        if kinds or node_key(item.nodeid) in slow:
            item.add_marker("slow")
    write_serial_files(items)
    # Largest budget first (a stable sort: a file's tests keep their order); the budget check last,
    # once every other test of its pass has run.
    files = budget["files"]
    items.sort(key=lambda item: (item.get_closest_marker("suite_budget") is not None,
                                 -files.get(file_key(item.nodeid), 0.0)))


def write_serial_files(items) -> None:
    """The files of the tests marked serial, one a line, to SERIAL_FILES_ENV's path (when set). This hook
    runs before `-m` and `-k` deselect anything, so the list holds every serial test's file."""
    path = os.environ.get(SERIAL_FILES_ENV)
    if not path:
        return
    files = sorted({item.nodeid.split("::", 1)[0] for item in items if item.get_closest_marker("serial")})
    partial = Path(f"{path}.{os.getpid()}")  # each xdist worker writes the same list: whole files only
    partial.write_text("".join(f"{name}\n" for name in files), encoding="utf-8")
    os.replace(partial, path)


class Durations:
    """Each test file's seconds in this run, summed from every test report the controller receives
    (a worker's own reports too, under pytest-xdist, arrive here)."""

    def __init__(self):
        self.files: dict[str, float] = {}
        self.tests: dict[str, float] = {}

    def add(self, report) -> None:
        self.files[file_key(report.nodeid)] = self.files.get(file_key(report.nodeid), 0.0) + report.duration
        key = node_key(report.nodeid)
        self.tests[key] = self.tests.get(key, 0.0) + report.duration


DURATIONS = Durations()  # this process's run, read by the budget check when it runs in the same pass


def pytest_runtest_logreport(report):
    DURATIONS.add(report)


def pytest_sessionfinish(session):
    path = os.environ.get(REPORT_ENV)
    if not path or hasattr(session.config, "workerinput"):
        return  # a worker: the controller writes the pass's report
    Path(path).write_text(json.dumps({"files": DURATIONS.files, "tests": DURATIONS.tests}, indent=1,
                                     sort_keys=True), encoding="utf-8")


def read_reports(paths) -> dict:
    """The files' seconds from several passes' reports (a file runs in one pass; summed if in two)."""
    files: dict[str, float] = {}
    for path in paths:
        for name, seconds in json.loads(Path(path).read_text(encoding="utf-8"))["files"].items():
            files[name] = files.get(name, 0.0) + seconds
    return files


def over_budget(budget: dict[str, float], measured: dict[str, float]) -> tuple[float, list[str]]:
    """(the run's pace, one sentence per file over its budget).

    The pace is how much slower than the budget this run went overall (at least 1: a faster machine
    does not tighten anything); a file is over when it took more than MARGIN times its budget at that
    pace plus GRACE seconds, or, without a budget, more than UNBUDGETED seconds at that pace."""
    both = [name for name in measured if name in budget]
    planned = sum(budget[name] for name in both)
    pace = max(1.0, sum(measured[name] for name in both) / planned) if planned > 0 else 1.0
    over = []
    for name, seconds in sorted(measured.items()):
        if name in budget:
            allowed = MARGIN * budget[name] * pace + GRACE
            if seconds > allowed:
                over.append(f"{name} took {seconds:.0f} s, over its budget of {budget[name]:.0f} s "
                            f"(allowed {allowed:.0f} s at this run's pace {pace:.2f})")
        elif seconds > UNBUDGETED * pace:
            over.append(f"{name} took {seconds:.0f} s and has no budget (allowed {UNBUDGETED * pace:.0f} s "
                        f"without one): add it to tests/suite_budget.json")
    return pace, over


def write_budget(report_paths, path: Path = BUDGET_FILE) -> None:
    """tests/suite_budget.json from a full run's reports: each file's seconds (rounded up to the next
    half second) and the ids of the tests that took SLOW_SECONDS or more."""
    files: dict[str, float] = {}
    slow: list[str] = []
    for report in report_paths:
        data = json.loads(Path(report).read_text(encoding="utf-8"))
        for name, seconds in data["files"].items():
            files[name] = files.get(name, 0.0) + seconds
        slow += [key for key, seconds in data["tests"].items() if seconds >= SLOW_SECONDS]
    rounded = {name: -(-seconds * 2 // 1) / 2 for name, seconds in sorted(files.items())}
    path.write_text(json.dumps({"files": rounded, "slow": sorted(set(slow))}, indent=1) + "\n",
                    encoding="utf-8")


def rewritten_files(folder: Path = HERE) -> list[Path]:
    """The files under `folder` whose asserts pytest rewrites: test modules, conftest files and this plugin."""
    return sorted(path for path in folder.rglob("*.py") if path.name.startswith("test_")
                  or path.name.endswith("_test.py") or path.name == "conftest.py" or path == Path(__file__).resolve())


def write_rewritten(paths) -> int:
    """Write pytest's bytecode (asserts rewritten) for each file whose cached one is missing or stale, with
    pytest's own functions (same code, same file, same check against the source); return how many."""
    from _pytest.assertion import rewrite

    class Quiet:
        trace = staticmethod(lambda *args: None)

    written = 0
    for path in paths:
        path = Path(os.path.abspath(path))
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            continue  # there, and up to date
        if not rewrite.try_makedirs(pyc.parent):
            break  # a read-only checkout: pytest rewrites in memory, as before
        # config None: the code of the default ini (rewrite_before_a_run checks that the run's is).
        checked, code = rewrite._rewrite_test(path, None)
        written += bool(rewrite._write_pyc(Quiet, code, checked, pyc))
    return written


def rewrite_before_a_run(workers: int = 2) -> None:
    """write_rewritten over the suite's files, shared between `workers` processes. Skipped where the run's
    code would differ from this one's: an ini option of pytest's own changes the rewritten code."""
    import tomllib
    from concurrent.futures import ProcessPoolExecutor

    options = tomllib.loads((HERE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    if options.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("enable_assertion_pass_hook"):
        return
    files = rewritten_files()
    try:
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(write_rewritten, [files[i::workers] for i in range(workers)]))
    except Exception as exc:  # another pytest's internals: its workers rewrite each file, as before
        print(f"suite_kit: test files not compiled ahead ({exc!r})", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] == ["rewrite"]:
        rewrite_before_a_run()
    elif len(sys.argv) < 3 or sys.argv[1] != "budget":
        sys.exit("usage: python3 tests/suite_kit.py budget REPORT.json [REPORT.json...] | rewrite")
    else:
        write_budget(sys.argv[2:])
