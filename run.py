#!/usr/bin/env python3
"""Terrabank launcher, standard library only: `python3 run.py serve` or `python3 run.py test`.

Creates .venv on first use, installs the project into it (again only when
pyproject.toml changes), then runs the bank or the tests. `test` also installs the
`test` extra (pytest, psycopg, redis, playwright...: every Python package the tests
use); `serve` and the other commands install only what the bank needs, so a Raspberry
Pi that only serves never downloads them. Any other subcommand is handed to the
`terrabank` command, e.g. `python3 run.py verify`; `python3 run.py install` only
prepares .venv for the tests.
"""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
BIN = os.path.join(VENV, "Scripts" if os.name == "nt" else "bin")
EXE = ".exe" if os.name == "nt" else ""
PYTHON = os.path.join(BIN, "python" + EXE)
TERRABANK = os.path.join(BIN, "terrabank" + EXE)
STAMP = os.path.join(VENV, ".terrabank-installed")
PYPROJECT = os.path.join(ROOT, "pyproject.toml")
NO_VENV = ("Python cannot create a virtual environment here (the venv/ensurepip module is "
           "missing). On Debian or Raspberry Pi OS run: sudo apt install python3-venv\n"
           "then run this command again.")


def fail(message, code=1):
    """Print one clear message and stop."""
    print("run.py: " + message, file=sys.stderr)
    sys.exit(code)


def ensure_venv():
    """Create .venv if it is missing or broken (no python inside)."""
    if os.path.exists(PYTHON):
        return
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
        fail(NO_VENV)
    print("run.py: creating the virtual environment in .venv ...", flush=True)
    if os.path.isdir(VENV):
        shutil.rmtree(VENV)  # a half-made .venv from an earlier failed attempt
    if subprocess.call([sys.executable, "-m", "venv", VENV]) != 0 or not os.path.exists(PYTHON):
        # Debian's python3 without python3-venv leaves a .venv without pip: remove it
        # so the next attempt, after installing the package, starts clean.
        shutil.rmtree(VENV, ignore_errors=True)
        fail(NO_VENV)


def pyproject_hash():
    """Fingerprint of pyproject.toml: a change means the dependencies may have changed."""
    with open(PYPROJECT, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_stamp():
    """(pyproject.toml's fingerprint, the extras installed with it) from the last install, or (None, set())."""
    try:
        with open(STAMP, encoding="utf-8") as f:
            words = f.read().split()
    except FileNotFoundError:
        return None, set()
    if not words:
        return None, set()
    return words[0], set(words[1:])


def ensure_installed(extras=()):
    """pip install -e ".[extras]" unless this pyproject.toml is already installed with them.

    The stamp holds the fingerprint and the extras, so a `test` after a serve-only install
    adds the test extra, and a `serve` after `test` installs nothing."""
    wanted = pyproject_hash()
    installed_hash, installed_extras = read_stamp()
    if installed_hash == wanted and set(extras) <= installed_extras:
        return
    target = "." + ("[" + ",".join(sorted(extras)) + "]" if extras else "")
    what = "and what its tests use " if extras else ""
    print(f"run.py: installing Terrabank {what}into .venv ...", flush=True)
    code = subprocess.call([PYTHON, "-m", "pip", "install", "--disable-pip-version-check",
                            "-e", target], cwd=ROOT)
    if code != 0:
        fail("pip could not install the dependencies (the first install needs internet); "
             "fix the error above and run this command again.")
    kept = installed_extras if installed_hash == wanted else set()  # still installed, same pins
    with open(STAMP, "w", encoding="utf-8") as f:
        f.write(" ".join([wanted] + sorted(kept | set(extras))) + "\n")


def run(args, **kwargs):
    """Run a command, passing Ctrl-C to it; return its exit code."""
    try:
        return subprocess.call(args, **kwargs)
    except KeyboardInterrupt:
        return 130


def bank_env():
    """Environment where `terrabank` finds the repo's config.toml and terrabank.db."""
    env = dict(os.environ)
    env.setdefault("TERRABANK_CONFIG", os.path.join(ROOT, "config.toml"))
    env.setdefault("TERRABANK_DB", os.path.join(ROOT, "terrabank.db"))
    # The bank's messages then name the command this user has (`terrabank` is not on their PATH).
    env["TERRABANK_LAUNCHER"] = ("python" if os.name == "nt" else "python3") + " run.py"
    return env


def serve(extra):
    """Start the web bank; until it exists, create the game if needed and show standings."""
    env = bank_env()
    probe = subprocess.run([TERRABANK, "serve", "--help"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode == 0:
        if os.name == "posix":
            # Become the bank rather than wait for it: this launcher would otherwise hold 18 MB of a
            # Raspberry Pi's memory for the whole game doing nothing (issue 27, P3). Same pid, so
            # Ctrl+C and a service manager reach the bank directly.
            sys.stdout.flush()
            os.execve(TERRABANK, [TERRABANK, "serve"] + extra, env)
        return run([TERRABANK, "serve"] + extra, env=env)
    print("run.py: the web app is not there yet; showing the standings instead.", flush=True)
    if not os.path.exists(env["TERRABANK_DB"]):
        code = run([TERRABANK, "init"], env=env)
        if code != 0:
            return code
    return run([TERRABANK, "standings"], env=env)


# The parallel pass's workers: most tests wait on servers, browsers and databases, so four of them
# keep CI's two cores busy.
WORKERS = "4"
REPORTS = os.path.join(ROOT, ".suite-report")


def names_tests(args):
    """Whether the arguments name test files or tests (then plain pytest runs them as asked)."""
    return any("::" in arg or (not arg.startswith("-") and os.path.exists(os.path.join(ROOT, arg)))
               for arg in args)


def split_marks(args):
    """(the -m expression given, the other arguments)."""
    rest, expression = [], None
    words = iter(args)
    for arg in words:
        if arg == "-m":
            expression = next(words, None)
        elif arg.startswith("-m") and not arg.startswith("--"):
            expression = arg[2:]
        else:
            rest.append(arg)
    return expression, rest


# The project's own modules, compiled once before the tests (test modules and conftest files aside:
# tests/suite_kit.py compiles those as pytest does, with their assertions rewritten).
COMPILED = ("bank", "trias", "printables", "bench", "tests")
NOT_COMPILED = r"[\\/](test_[^\\/]*|conftest)\.py$"


def compile_project():
    """Write the bytecode of the project's own modules, as pip does for the packages it installs (this
    one is installed editable, so pip compiled none of it). Where PYTHONDONTWRITEBYTECODE is set, as in
    many CI images, Python never writes it: every `terrabank` process a test starts, and every worker,
    would compile the whole bank again. It still reads what is there; compileall redoes changed files only."""
    run([PYTHON, "-m", "compileall", "-qq", "-x", NOT_COMPILED] + [d for d in COMPILED if os.path.isdir(
        os.path.join(ROOT, d))], cwd=ROOT)
    # The test files too, as pytest compiles them (their asserts rewritten), for the same reason: each of
    # the parallel pass's workers compiled all of them again (about 9 CPU-seconds each).
    if os.path.exists(os.path.join(ROOT, "tests", "suite_kit.py")):
        run([PYTHON, os.path.join("tests", "suite_kit.py"), "rewrite"], cwd=ROOT)


def without_workers(args):
    """The arguments without xdist's worker count (-n 2, -n2, --numprocesses=2): the serial pass has no xdist."""
    kept, words = [], iter(args)
    for arg in words:
        if arg in ("-n", "--numprocesses"):
            next(words, None)
        elif not arg.startswith(("-n", "--numprocesses=")):
            kept.append(arg)
    return kept


def files_read(path):
    """The serial tests' files the parallel pass listed (tests/suite_kit.py), so that the serial pass
    collects those alone; none (the whole suite collected again) if the list is missing or empty."""
    try:
        with open(path, encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip() and os.path.exists(os.path.join(ROOT, line.strip()))]
    except FileNotFoundError:
        return []


def test(extra):
    """The whole suite in two passes: in parallel (pytest-xdist, one file per worker at a time),
    then the tests marked `serial`, alone. Each prints its 20 slowest tests; either failing fails.
    Arguments naming tests run them with plain pytest, as asked."""
    pytest = [PYTHON, "-m", "pytest"]
    compile_project()
    if names_tests(extra):
        return run(pytest + extra, cwd=ROOT)
    expression, rest = split_marks(extra)
    given = f"({expression}) and " if expression else ""
    os.makedirs(REPORTS, exist_ok=True)
    parallel, serial = os.path.join(REPORTS, "parallel.json"), os.path.join(REPORTS, "serial.json")
    serial_files = os.path.join(REPORTS, "serial-files.txt")
    for path in (parallel, serial, serial_files):
        if os.path.exists(path):
            os.remove(path)
    workers = [] if any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in rest) else ["-n", WORKERS]
    print("run.py: pass 1 of 2, in parallel: the tests not marked serial", flush=True)
    # --no-loadscope-reorder (pytest-xdist 3.8): xdist would hand out the files with the most tests first;
    # the suite's plugin (tests/suite_kit.py) has ordered them longest first, so the pass does not end on a long file.
    first = run(pytest + workers + ["--dist", "loadfile", "--no-loadscope-reorder", "-m", given + "not serial"] + rest,
                cwd=ROOT,
                env={**os.environ, "TERRABANK_SUITE_REPORT": parallel, "TERRABANK_SUITE_SERIAL_FILES": serial_files})
    print("run.py: pass 2 of 2, alone: the tests marked serial (they need a quiet machine)", flush=True)
    second = run(pytest + ["-p", "no:xdist", "-m", given + "serial"] + without_workers(rest) + files_read(serial_files),
                 cwd=ROOT,
                 env={**os.environ, "TERRABANK_SUITE_REPORT": serial,
                      "TERRABANK_SUITE_EARLIER": parallel if os.path.exists(parallel) else ""})
    codes = [code for code in (first, second) if code != 5]  # 5: that pass selected no test
    print(f"run.py: parallel pass {outcome(first)}, serial pass {outcome(second)}", flush=True)
    if not codes:
        return 5
    return next((code for code in codes if code != 0), 0)


def outcome(code):
    return {0: "passed", 5: "selected no test", 130: "interrupted"}.get(code, f"failed (pytest exit code {code})")


def main(argv):
    """Dispatch `serve`, `test`, or hand anything else to `terrabank`."""
    if sys.version_info < (3, 11):
        fail("Terrabank needs Python 3.11 or newer; this is " + sys.version.split()[0] + ".")
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__.strip())
        return 0
    ensure_venv()
    command, extra = argv[0], argv[1:]
    # Only the tests need the test extra (playwright alone is ~100 MB): a Pi that serves skips it.
    ensure_installed(("test",) if command in ("test", "install") else ())
    if command == "install":
        return 0  # .venv is ready for the tests, nothing run
    if command == "test":
        return test(extra)
    if command == "serve":
        return serve(extra)
    return run([TERRABANK] + argv, env=bank_env())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
