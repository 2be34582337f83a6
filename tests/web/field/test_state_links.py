"""The state directory refuses symbolic links it did not make.

Before: `paper_writer.folder_for` resolved symlinks, so a `<game>-paper` link planted in the state
directory (or beside the game file) sent every team's stock sheets into a folder of the planter's
choosing, and the writer made that folder 0700 and wrote 0600 files there without a word; the address
note (`<game>-address.txt`) was written through a planted link into whatever file it named. Now the
bank refuses a link where its own folder or file goes: nothing is written through it, and the admin
page and the log name the path and say to remove the link.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

CONFIG = str(Path(__file__).resolve().parents[3] / "config.toml")


def _app(tmp_path, monkeypatch):
    from bank.web import create_app

    monkeypatch.setenv("TERRABANK_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "state").mkdir(mode=0o700)
    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": CONFIG, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    return app


def test_a_planted_paper_link_is_refused_named_and_nothing_written_through_it(tmp_path, monkeypatch, caplog):
    from bank.web.field import paper_writer
    from conftest import WebClient

    app = _app(tmp_path, monkeypatch)
    services = app.extensions["terrabank"]
    services.access.add_user("lead", "correct horse", "lead")
    try:
        writer = paper_writer.of(app)
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o755)
        writer.folder.symlink_to(foreign)  # planted by whoever could write the state directory
        assert writer.folder.is_symlink()  # before: the writer's folder was the link's target
        with caplog.at_level(logging.INFO):
            writer.attempt()
            writer.attempt()
        assert list(foreign.iterdir()) == []  # before: game-state-*.pdf, every team's stock, in the foreign folder
        assert oct(os.stat(foreign).st_mode & 0o777) == oct(0o755)  # nor was it narrowed to the bank's 0700
        said = [r.getMessage() for r in caplog.records if "cannot write the game state" in r.getMessage()]
        assert len(said) == 1 and str(writer.folder) in said[0] and "symbolic link" in said[0], said
        lead = WebClient(app.test_client())
        assert lead.login("lead").status_code == 200
        saved = lead.client.get("/api/paper/saved").get_json()
        assert str(writer.folder) in saved["error"] and "remove the link" in saved["error"], saved
        assert saved["files"] == []
        writer.folder.unlink()  # the way out the message gives: the bank then makes its own folder
        written = writer.write("asked")
        assert written.parent == writer.folder and not writer.folder.is_symlink()
    finally:
        services.bank.close()
        services.access.close()


def test_a_planted_address_link_is_not_written_through(tmp_path, monkeypatch, capsys):
    from bank.cli.serve import address_path, remember_address, remembered_address

    monkeypatch.setenv("TERRABANK_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "state").mkdir(mode=0o700)
    victim = tmp_path / "someone-elses-file"
    victim.write_text("precious\n")
    path = address_path("camp")
    path.symlink_to(victim)
    remember_address("camp", "http://192.168.4.1:5000")
    assert victim.read_text() == "precious\n"  # before: overwritten with the address
    said = capsys.readouterr().out
    assert str(path) in said and "symbolic link" in said, said
    assert remembered_address("camp") is None  # nor read back as the phones' address
    path.unlink()
    remember_address("camp", "http://192.168.4.1:5000")
    assert remembered_address("camp") == "http://192.168.4.1:5000"
