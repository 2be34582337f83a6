"""The tests run where the optional packages are missing ("Two commands, whole").

`python3 run.py test` installs every Python package the tests use (the `test` extra), but a
venv made by `python3 run.py serve`, a hand-made one, or a failed pip leaves some out: then a
test module must skip the tests that need them (tests/needs.py), never fail to import and
stop the whole run. Checked in a subprocess where importing those packages raises ImportError,
as on a machine where they are not installed.

The skip summary (tests/needs.py, printed at the end of the run) is checked here too, with
programs made to look missing through TERRABANK_TESTS_PRETEND_MISSING.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

# Not in `pip install .` or its dependencies: the `test`, `postgres`, `queue` and `bench` extras
# (greenlet comes with playwright; aiohttp, websocket and requests are python-socketio's clients').
OPTIONAL = ("psycopg", "psycopg_binary", "psycopg_c", "psycopg_pool", "redis", "playwright", "greenlet",
            "aiohttp", "websocket", "requests", "gevent")

# Run as `python -c`: hides OPTIONAL before anything imports them, proves it, then runs pytest.
HIDDEN = textwrap.dedent("""
    import sys

    OPTIONAL = {optional!r}

    class Hide:
        '''A meta-path finder that answers as if the optional packages were not installed.'''
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in OPTIONAL:
                raise ModuleNotFoundError(f"No module named {{name!r}} (hidden by test_optional_imports)", name=name)
            return None

    sys.meta_path.insert(0, Hide())
    for name in list(sys.modules):
        if name.partition(".")[0] in OPTIONAL:
            del sys.modules[name]
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("the hiding did not work: psycopg imported")
    import pytest
    sys.exit(pytest.main(sys.argv[1:]))
""").format(optional=OPTIONAL)


def _pytest_without_optional(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HIDDEN, "-p", "no:cacheprovider", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)


def test_every_test_module_is_collected_without_the_optional_packages():
    """`pytest --collect-only` over every tests/**/test_*.py with psycopg, redis, playwright... hidden:
    no collection error (a module importing one of them at its top fails here)."""
    modules = sorted(str(p.relative_to(ROOT)) for p in TESTS.rglob("test_*.py"))
    assert len(modules) > 50, modules
    # --assert=plain: whether a module imports does not depend on pytest rewriting its asserts, which
    # is half of a collection's CPU where no bytecode is kept (PYTHONDONTWRITEBYTECODE).
    done = _pytest_without_optional("--collect-only", "-q", "--assert=plain", *modules)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-6000:]
    assert "ERROR collecting" not in out and "error" not in out.splitlines()[-1], out[-6000:]
    assert "tests collected" in out.splitlines()[-1], out[-2000:]


def test_the_run_ends_with_what_was_not_tested_and_the_apt_line(tmp_path):
    """Tests needing programs that are missing skip, and the run's last lines say which program
    skipped how many tests, with the one `sudo apt-get install` line that would run them."""
    (tmp_path / "test_sample.py").write_text(textwrap.dedent("""
        import pytest
        from needs import needs, require

        @needs("chromium")
        def test_browser_a():
            pass

        @needs("chromium", "zbarimg")
        def test_browser_and_scan():
            pass

        @pytest.fixture(scope="module")
        def database():
            require("initdb")

        def test_database_1(database):
            pass

        def test_database_2(database):
            pass

        @needs("pdftoppm")
        def test_render():
            pass

        def test_plain():
            pass
    """))
    env = dict(os.environ, PYTHONPATH=str(TESTS), TERRABANK_TESTS_PRETEND_MISSING="chromium,zbarimg,initdb")
    done = _pytest_without_optional("-p", "needs", "-q", "--rootdir", str(tmp_path), str(tmp_path), env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    have_pdftoppm = "pdftoppm (poppler-utils)" in out
    lines = [line.strip() for line in out.splitlines()]
    assert "chromium (Debian package chromium): 2 tests skipped" in lines, out
    assert "zbarimg (Debian package zbar-tools): 1 test skipped" in lines, out
    assert "initdb (Debian package postgresql): 2 tests skipped" in lines, out
    packages = "chromium postgresql zbar-tools" if not have_pdftoppm else "chromium poppler-utils postgresql zbar-tools"
    assert f"sudo apt-get install {packages}" in lines, out


def test_no_summary_when_every_program_is_there(tmp_path):
    """With nothing missing, the run says nothing about missing programs."""
    (tmp_path / "test_sample.py").write_text("from needs import needs\n\n@needs('chromium')\ndef test_a():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=str(TESTS))
    env.pop("TERRABANK_TESTS_PRETEND_MISSING", None)
    done = _pytest_without_optional("-p", "needs", "-q", "--rootdir", str(tmp_path), str(tmp_path), env=env)
    out = done.stdout + done.stderr
    if "1 skipped" in out:  # this machine really lacks chromium: then the summary must say so
        assert "sudo apt-get install chromium" in out, out
    else:
        assert "1 passed" in out and "apt-get" not in out, out
