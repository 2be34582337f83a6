"""What a test needs beyond `python3 run.py test`'s install, and the one way it skips without it.

System programs come from Debian packages (`.ci/run` installs them); Python packages from the
`test` extra (`python3 run.py test` installs them). A test that needs one says so:

    pytestmark = needs("playwright", "chromium")     # a module, a class, or @needs(...) on a test
    require("initdb")                                # inside a fixture or a test: skips there
    psycopg = module("psycopg")                      # a top-level import that never fails

The skip's reason names what is missing in one format, so that the run ends with what was not
tested (pytest_terminal_summary below, used by tests/conftest.py): one line per missing
program with the number of tests it skipped, and the one `sudo apt-get install` line that
would run them.

TERRABANK_TESTS_PRETEND_MISSING=chromium,initdb makes those look missing: only
tests/system/test_optional_imports.py sets it, to check this summary on a machine that has them all.
"""

from __future__ import annotations

import glob
import importlib
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"  # Playwright drives Debian's Chromium (never `playwright install`)


def _postgres_bin() -> str | None:
    """The newest /usr/lib/postgresql/N/bin/initdb (Debian keeps it off PATH), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return found[-1] if found else None


def _on_path_or(*fallbacks: str):
    def find(name: str) -> bool:
        return shutil.which(name) is not None or any(Path(p).exists() for p in fallbacks)
    return find


# program -> (its Debian package, how to find it)
PROGRAMS = {
    "chromium": ("chromium", lambda _: Path(CHROMIUM).exists()),
    "initdb": ("postgresql", lambda _: _postgres_bin() is not None),
    "redis-server": ("redis-server", _on_path_or()),
    "nginx": ("nginx", _on_path_or("/usr/sbin/nginx")),  # /usr/sbin is not on every user's PATH
    "pdftoppm": ("poppler-utils", _on_path_or()),
    "pdftotext": ("poppler-utils", _on_path_or()),  # a PDF's text as a viewer copies it
    "zbarimg": ("zbar-tools", _on_path_or()),
    "sqlite3": ("sqlite3", _on_path_or()),
    "ip": ("iproute2", _on_path_or("/usr/sbin/ip", "/sbin/ip")),  # the network cuts (tests/netns_kit.py)
    "nft": ("nftables", _on_path_or("/usr/sbin/nft")),
}

# Python packages the tests use that `pip install .` leaves out: import name -> pip's name.
PACKAGES = {"playwright": "playwright", "psycopg": "psycopg[binary]", "redis": "redis", "pypdf": "pypdf",
            "hypothesis": "hypothesis", "axe_playwright_python": "axe-playwright-python"}

DEBIAN = re.compile(r"(\S+) \(Debian package ([^)]+)\)")
PYTHON = re.compile(r"the Python package (\S+) \(")


def _pretended() -> set[str]:
    return {n.strip() for n in os.environ.get("TERRABANK_TESTS_PRETEND_MISSING", "").split(",") if n.strip()}


def have(name: str) -> bool:
    """Whether the program or Python package `name` (a key of PROGRAMS or PACKAGES) is here."""
    if name in _pretended():
        return False
    if name in PROGRAMS:
        return PROGRAMS[name][1](name)
    if name not in PACKAGES:
        raise KeyError(f"tests/needs.py does not know {name!r}: add it to PROGRAMS or PACKAGES")
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def reason(*names: str) -> str | None:
    """Why a test needing `names` cannot run here (naming each missing one's package), or None."""
    parts = []
    for name in names:
        if have(name):
            continue
        if name in PROGRAMS:
            parts.append(f"{name} (Debian package {PROGRAMS[name][0]})")
        else:
            parts.append(f"the Python package {name} ({PACKAGES[name]}: `python3 run.py test` installs it)")
    return "needs " + ", ".join(parts) if parts else None


def needs(*names: str):
    """A skipif mark for a test, a class or a module's pytestmark."""
    why = reason(*names)
    return pytest.mark.skipif(why is not None, reason=why or "")


def require(*names: str) -> None:
    """Skip the running test (or every test of a fixture) when one of `names` is missing."""
    why = reason(*names)
    if why:
        pytest.skip(why)


class _Missing:
    """Stands for a Python package that is not installed, so a test module imports anyway
    (its tests skip through needs()); using it outside a skipped test skips that test."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return _Missing(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        require(self._name.partition(".")[0])
        raise ImportError(f"{self._name} is not installed")  # reached only if the name is not in PACKAGES


def module(dotted: str):
    """`import dotted`, or a stand-in when its package is missing (the top level of a test module)."""
    top = dotted.partition(".")[0]
    if top in _pretended():
        return _Missing(dotted)
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return _Missing(dotted)


def _skipped_by(reports) -> tuple[dict[str, set], dict[str, set]]:
    """From the run's skip reports: program -> the tests it skipped; Python package -> same."""
    programs: dict[str, set] = {}
    packages: dict[str, set] = {}
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        for program, _package in DEBIAN.findall(text):
            programs.setdefault(program, set()).add(report.nodeid)
        for package in PYTHON.findall(text):
            packages.setdefault(package, set()).add(report.nodeid)
    return programs, packages


def _tests(n: int) -> str:
    return f"{n} test{'' if n == 1 else 's'} skipped"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """The end of the run: what was not tested for want of a program or package, and how to get it.
    A wrapper tried first, so it writes after pytest's own summaries (the skip reasons of -ra)."""
    result = yield
    _summary(terminalreporter)
    return result


def _summary(terminalreporter) -> None:
    programs, packages = _skipped_by(terminalreporter.stats.get("skipped", []))
    if not programs and not packages:
        return  # everything the selected tests need is here: nothing to say
    write = terminalreporter.write_line
    terminalreporter.section("not tested here: missing programs or packages", sep="=")
    for program in sorted(programs):
        write(f"{program} (Debian package {PROGRAMS[program][0]}): {_tests(len(programs[program]))}")
    for package in sorted(packages):
        write(f"the Python package {package}: {_tests(len(packages[package]))}")
    if programs:
        debs = sorted({PROGRAMS[p][0] for p in programs})
        write("To run them (Debian, Raspberry Pi OS):")
        write("sudo apt-get install " + " ".join(debs))
    if packages:
        write("To run them: python3 run.py test (it installs the test extra: pip install -e '.[test]')")
