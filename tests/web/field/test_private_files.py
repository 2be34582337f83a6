"""Every file holding team stock or secrets is its owner's alone: 0600 in a 0700 folder.

Before: the paper state PDFs (`<game>-paper/game-state-*.pdf`, every team's stock, which the rules keep
private) were written 0644 in a 0755 folder, for hosted games too; a hosted game's folder (its game
file, secret key) and its copy of config.toml (the Wi-Fi password) were made with the umask's 0755/0644.
Each test runs under the common umask 022, which is what left them readable.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

CONFIG = str(Path(__file__).resolve().parents[3] / "config.toml")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_the_paper_state_is_written_0600_in_a_0700_folder(app, umask_022):
    from bank.web.field import paper_writer

    written = paper_writer.of(app).write("asked")
    assert written.name.startswith("game-state-")
    assert (mode(written), mode(written.parent)) == (0o600, 0o700)


def test_a_paper_folder_left_open_by_an_earlier_version_is_closed(app, umask_022):
    from bank.web.field import paper_writer

    writer = paper_writer.of(app)
    writer.folder.mkdir(mode=0o755)
    os.chmod(writer.folder, 0o755)
    written = writer.write("asked")
    assert (mode(written), mode(written.parent)) == (0o600, 0o700)


def test_a_hosted_games_folder_config_and_paper_state_are_its_owners_alone(tmp_path, umask_022):
    from bank.web import create_app
    from bank.web.field import paper_writer

    host = create_app({"DB": tmp_path / "host.db", "CONFIG": CONFIG, "TESTING": True,
                       "PASSWORD_HASH": "pbkdf2:sha256:1000", "GAMES_DIR": str(tmp_path / "games")})
    games = host.extensions["terrabank_hosted"]
    try:
        games.create("camp")
        folder = tmp_path / "games" / "camp"
        assert mode(folder) == 0o700 and mode(folder / "config.toml") == 0o600
        written = paper_writer.of(games.app("camp")).write("asked")
        assert written.is_relative_to(folder)
        assert (mode(written), mode(written.parent)) == (0o600, 0o700)
    finally:
        for app in [host, *games._apps.values()]:
            app.extensions["terrabank"].bank.close()


def test_the_print_packs_state_sheet_is_private_and_the_rest_is_not(tmp_path, umask_022):
    from printables import pack

    assert mode(pack.write(tmp_path, "game-state-a4.pdf", b"%PDF")) == 0o600
    assert mode(pack.write(tmp_path, "rules-a4.pdf", b"%PDF")) == 0o644
