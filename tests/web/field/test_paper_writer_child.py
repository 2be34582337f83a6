"""The state the bank writes by itself is drawn outside the serving worker.

Before: the first state sheet (written seconds after the bank starts, then at every session end)
imported ReportLab and the print pack into the worker, where they stayed all day: ~8 MB of a
Raspberry Pi's memory (the served tree with 200 pages went over its 60 MB goal). Now a child
process draws and writes the file and exits; the worker keeps only the snapshot's code.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from printkit import all_text

ROOT = Path(__file__).resolve().parents[3]

WORKER = textwrap.dedent("""
    import sys
    from bank.web import create_app
    from bank.web.field import paper_writer

    app = create_app({"DB": sys.argv[1], "CONFIG": sys.argv[2], "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    written = paper_writer.of(app).write("asked")
    print(written)
    print(sorted(m for m in sys.modules if m.split(".")[0] == "reportlab" or m in ("printables.pack", "printables.state_ledger")))
    app.extensions["terrabank"].bank.close()
""")


def test_the_state_sheet_is_drawn_in_a_child_and_reportlab_never_loads_in_the_worker(tmp_path):
    done = subprocess.run([sys.executable, "-c", WORKER, str(tmp_path / "game.db"), str(ROOT / "config.toml")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    written, loaded = done.stdout.strip().splitlines()[-2:]
    assert loaded == "[]", loaded  # before: reportlab's modules, the pack and the ledger, held by the worker
    text = all_text(Path(written).read_bytes())
    assert "Registre de reprise" in text or "Continuation ledger" in text  # the whole file, ledgers included
