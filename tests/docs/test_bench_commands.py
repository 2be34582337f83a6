"""Every command docs/PERFORMANCE.md gives to reproduce a figure starts, and finds what it loads.

The benches live in rooms that mirror the code (bench/web/push, bench/system, ...). When they
moved there, `bench_footprint.py --memory-only` (the P3 row's command, and part of the Pi budget
run) died at once: it loaded `bench_fanout` by name from bench/, where it no longer was. The
table's own test only checks that each named file exists; this one runs them.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
PERFORMANCE = ROOT / "docs" / "PERFORMANCE.md"
EXTRA_MISSING = "is not installed: the benchmark's Socket.IO clients need the bench extra"


def installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a finder that hides it (tests/system/test_optional_imports.py) says so by raising
        return False


HAS_EXTRA = installed("aiohttp")


def reproduce_scripts() -> list[str]:
    """The bench scripts the page runs with Python (`.venv/bin/python bench/...py`), each once."""
    found = re.findall(r"python (bench/[\w/]+\.py)", PERFORMANCE.read_text(encoding="utf-8"))
    return sorted(set(found))


def names_loaded_by_name() -> set[str]:
    """Module names the benches import by a string: bench_extra.load("x") and bench_servers' BENCHES."""
    names = set()
    for path in BENCH.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "bench_extra"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
            if (isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "BENCHES" for t in node.targets)
                    and isinstance(node.value, ast.Dict)):
                names.update(value.value for value in node.value.values if isinstance(value, ast.Constant))
    return names


def test_every_reproduce_command_of_the_performance_table_answers_help():
    scripts = reproduce_scripts()
    assert len(scripts) >= 10
    # Started together: each is a Python start-up and its imports, most of it waiting on the disk.
    runs = {script: subprocess.Popen([sys.executable, str(ROOT / script), "--help"], cwd=ROOT, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for script in scripts}
    broken = []
    for script, proc in runs.items():
        out, err = proc.communicate(timeout=120)
        if proc.returncode == 0 and "usage" in out.lower():
            continue
        if not HAS_EXTRA and EXTRA_MISSING in err and "Traceback" not in err:
            continue  # says in one sentence what to install: what a newcomer without the extra should see
        broken.append(f"{script} --help: exit {proc.returncode}: {(err or out).strip().splitlines()[-1:]}")
    assert not broken, "\n".join(broken)


def test_a_bench_loads_another_by_its_name_from_whichever_room_holds_it():
    names = names_loaded_by_name()
    assert {"bench_fanout", "clients", "bench_footprint"} <= names
    sys.path.insert(0, str(BENCH))
    try:
        import bench_extra
        for name in sorted(names):
            assert (bench_extra.room_of(name) / f"{name}.py").is_file(), name
    finally:
        sys.path.remove(str(BENCH))
    # As bench_footprint.py does from bench/system: the fan-out bench lives in bench/web/push.
    code = ("import sys; sys.path.insert(0, 'bench'); import bench_extra; "
            "bench_extra.load('bench_fanout'); print('loaded')")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if HAS_EXTRA:
        assert run.returncode == 0 and "loaded" in run.stdout, run.stderr
    else:
        assert EXTRA_MISSING in run.stderr and "Traceback" not in run.stderr, run.stderr


@pytest.mark.parametrize("name", ["clients"])
def test_a_bench_without_the_extra_says_what_to_install_in_one_sentence(name):
    if HAS_EXTRA:
        pytest.skip("aiohttp is installed here: nothing to say")
    code = f"import sys; sys.path.insert(0, 'bench'); import {name}"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and EXTRA_MISSING in run.stderr and "Traceback" not in run.stderr, run.stderr
