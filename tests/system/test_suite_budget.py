"""The suite's time watched as code is: no test file far over its budget (tests/suite_budget.json).

`python3 run.py test` runs this last in its serial pass, with the parallel pass's report at hand;
the files are judged at the run's own pace (tests/suite_kit.py `over_budget`), so a loaded machine
slows every file alike and fails nothing, while one file grown several times slower does.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

import suite_kit
from suite_kit import DURATIONS, EARLIER_ENV, file_key, kinds_of, load_budget, over_budget, read_reports

pytestmark = [pytest.mark.serial("judges the run's durations, after the parallel pass"), pytest.mark.suite_budget]

BUDGET = {"a.py": 100.0, "b.py": 50.0, "c.py": 10.0}


def test_a_run_slower_everywhere_is_judged_at_its_own_pace_and_passes():
    pace, over = over_budget(BUDGET, {name: 3 * seconds for name, seconds in BUDGET.items()})
    assert pace == pytest.approx(3.0)
    assert over == []


def test_one_file_several_times_slower_than_the_rest_fails_naming_it():
    measured = {**BUDGET, "c.py": 45.0}  # 10 s budget: allowed 2 x 10 x pace + 20 s
    pace, over = over_budget(BUDGET, measured)
    assert len(over) == 1 and over[0].startswith("c.py took 45 s, over its budget of 10 s")


def test_a_long_file_without_a_budget_fails_and_a_short_one_passes():
    _, over = over_budget(BUDGET, {**BUDGET, "new.py": 61.0, "small.py": 5.0})
    assert len(over) == 1 and over[0].startswith("new.py took 61 s and has no budget")


def test_a_test_gets_its_kinds_from_its_fixtures_imports_and_store():
    assert kinds_of(SimpleNamespace(fixturenames=["chromium", "tmp_path"]), set()) == {"browser"}
    assert kinds_of(SimpleNamespace(fixturenames=[]), {"netns_kit", "redis_kit", "bank"}) == {"netns", "redis"}
    on_pg = SimpleNamespace(fixturenames=["storage_backend"], callspec=SimpleNamespace(params={"storage_backend": "postgresql"}))
    assert kinds_of(on_pg, set()) == {"postgres"}


def test_the_parallel_pass_lists_every_serial_tests_file_for_the_serial_pass(tmp_path, monkeypatch):
    """run.py's serial pass collects only the files listed here: a file holding a serial test must be in it."""
    def item(nodeid, serial):
        return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: object() if serial and name == "serial" else None)

    listed = tmp_path / "serial-files.txt"
    monkeypatch.setenv(suite_kit.SERIAL_FILES_ENV, str(listed))
    suite_kit.write_serial_files([item("tests/b/test_x.py::test_1", False), item("tests/b/test_x.py::test_2", True),
                                  item("tests/a/test_y.py::test_3[p]", True), item("tests/a/test_z.py::test_4", False)])
    assert listed.read_text() == "tests/a/test_y.py\ntests/b/test_x.py\n"
    monkeypatch.delenv(suite_kit.SERIAL_FILES_ENV)
    suite_kit.write_serial_files([item("tests/c/test_w.py::test_5", True)])  # not asked: nothing written
    assert listed.read_text() == "tests/a/test_y.py\ntests/b/test_x.py\n"


def test_the_budget_names_files_by_base_name_and_every_one_exists():
    """A file keeps its budget when it moves to another folder; a removed file's entry goes with it."""
    here = {path.name for path in suite_kit.HERE.rglob("test_*.py")}
    assert set(load_budget()["files"]) <= here


def test_the_test_files_are_compiled_ahead_byte_for_byte_as_pytest_compiles_them(tmp_path):
    """run.py writes pytest's bytecode of the test files once (`suite_kit.py rewrite`), so that the parallel
    pass's workers, where PYTHONDONTWRITEBYTECODE is set, read it rather than each compile every file."""
    import subprocess
    import sys

    test = tmp_path / "test_ahead.py"
    test.write_text("def test_it():\n    assert [1, 2] == [1, 3]\n")
    assert suite_kit.write_rewritten([test]) == 1
    [ours] = (tmp_path / "__pycache__").glob("test_ahead.*pytest*.pyc")
    assert suite_kit.write_rewritten([test]) == 0  # up to date: left as it is
    written = ours.read_bytes()
    ours.unlink()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--rootdir", str(tmp_path), "-c", os.devnull, str(test)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert "assert [1, 2] == [1, 3]" in done.stdout and "At index 1 diff" in done.stdout, done.stdout  # rewritten
    assert ours.read_bytes() == written, "pytest's own bytecode of the file differs from the one written ahead"
    test.write_text("def test_it():\n    assert [1, 2] == [1, 2]\n")  # edited: the bytecode is stale
    assert suite_kit.write_rewritten([test]) == 1
    names = {path.name for path in suite_kit.rewritten_files()}
    assert {"conftest.py", "suite_kit.py", "test_suite_budget.py"} <= names and "browserkit.py" not in names


def test_no_test_file_of_this_run_went_far_over_its_budget():
    measured = read_reports(p for p in os.environ.get(EARLIER_ENV, "").split(os.pathsep) if p)
    for name, seconds in DURATIONS.files.items():
        measured[name] = measured.get(name, 0.0) + seconds
    measured.pop(file_key(__file__), None)
    budget = load_budget()["files"]
    if not set(measured) & set(budget):
        pytest.skip("no other test file ran before this one: `python3 run.py test` checks the whole run")
    pace, over = over_budget(budget, measured)
    assert not over, "\n".join(over)
