"""A game with no lead, whose first password cannot be written, stops with one sentence
and an exit status systemd does not restart on.

Before: `serve` died on a PermissionError traceback writing `<game>-lead-password.txt` into the
read-only code folder, and under `Restart=always` started again every 2 s forever, each start a
traceback. Now: one line saying what to do (`terrabank user lead --role lead`, or a state directory),
exit status 78 (EX_CONFIG), which both units list in `RestartPreventExitStatus=`.
"""

from __future__ import annotations

import configparser
import os
import subprocess
import uuid
from pathlib import Path

from test_state_directory import ROOT, TERRABANK, code_folder, free_port, read_only

UNITS = ("terrabank.service", "terrabank@.service")


def restart_prevented(unit: str) -> set[int]:
    """The exit statuses of `RestartPreventExitStatus=` in the unit shipped in deploy/."""
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(ROOT / "deploy" / unit)
    return {int(word) for word in parser.get("Service", "RestartPreventExitStatus", fallback="").split() if word.isdigit()}


def test_serve_with_no_lead_and_nowhere_to_write_its_password_says_so_and_is_not_restarted(postgres_server, tmp_path):
    code = code_folder(tmp_path)
    game = f"no-lead-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "TERRABANK_DATABASE_URL": postgres_server.url, "TERRABANK_DB": game,
           "TERRABANK_CONFIG": str(code / "config.toml")}
    for name in ("TERRABANK_QUEUE_URL", "TERRABANK_STATE_DIR", "STATE_DIRECTORY"):
        env.pop(name, None)  # the operator's first try: no state directory, the code folder read-only
    with read_only(code):
        subprocess.run([TERRABANK, "init"], cwd=code, env=env, check=True, capture_output=True, timeout=120)
        served = subprocess.run([TERRABANK, "serve", "--host", "127.0.0.1", "--port", str(free_port()),
                                 "--base", "http://192.168.4.1:5000"], cwd=code, env=env, capture_output=True,
                                text=True, stdin=subprocess.DEVNULL, timeout=180)  # not a terminal, as under systemd
    said = served.stderr.strip().splitlines()
    assert "Traceback" not in served.stderr + served.stdout, served.stderr
    assert len(said) == 1, served.stderr
    assert said[0].startswith("terrabank: ") and "has no lead account" in said[0]
    assert f"user lead --role lead" in said[0] and "TERRABANK_STATE_DIR" in said[0]
    assert served.returncode not in (0, 1, 2), served.returncode  # neither a success nor a plain failure
    for unit in UNITS:
        assert served.returncode in restart_prevented(unit), f"deploy/{unit} would restart it every 2 s"
