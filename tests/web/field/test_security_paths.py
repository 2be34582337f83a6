"""Downloads and file paths stay in their folder: no URL serves config.toml, the database or its secret,
and `terrabank export/print --out` cannot overwrite the game itself."""

from __future__ import annotations

import pytest

from bank.cli import main as cli

SECRET_MARKERS = (b"SQLite format", b"[game]", b"[[teams]]")

TRAVERSALS = [
    "../config.toml", "..%2fconfig.toml", "%2e%2e%2fconfig.toml", "%2e%2e/%2e%2e/config.toml", "..\\config.toml",
    "..%5cconfig.toml", "%252e%252e%252fconfig.toml", "/etc/passwd", "%2fetc%2fpasswd", "....//config.toml",
    "..;/config.toml", "web.db", "../web.db", "../../web.db", "web.secret", "../web.secret", "%00config.toml",
]
PREFIXES = ["/api/export/", "/api/print/", "/static/", "/static/js/", "/t/", "/api/team/"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_traversal_never_serves_the_games_files(web, app, prefix):
    lead = web("lead")
    secret = (app.config["SECRET_KEY"]).encode()
    for attempt in TRAVERSALS:
        for suffix in ("", ".csv", ".pdf"):
            with lead.client.get(prefix + attempt + suffix) as reply:
                body = reply.get_data()
                assert reply.status_code in (301, 308, 400, 404), (prefix + attempt + suffix, reply.status_code)
                assert not any(marker in body for marker in SECRET_MARKERS) and secret not in body, prefix + attempt


@pytest.mark.parametrize("what", ["journal", "standings", "config", "..", "web", "../web"])
@pytest.mark.parametrize("fmt", ["json", "csv", "db", "toml", "secret"])
def test_only_the_four_exports_exist(web, what, fmt):
    reply = web("lead").client.get(f"/api/export/{what}.{fmt}")
    if what in ("journal", "standings") and fmt in ("json", "csv"):
        assert reply.status_code == 200
    else:
        assert reply.status_code == 404 and reply.get_json()["error"]["message"]


@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from conftest import CONFIG_PATH

    args = ["--config", str(CONFIG_PATH), "--db", "g.db"]
    assert cli.main([*args, "init"]) == 0
    return args, tmp_path


@pytest.mark.parametrize("out", ["g.db", "./g.db", "g.db-wal", "g.secret", "CONFIG"])
def test_export_cannot_overwrite_the_game(game, capsys, out):
    args, folder = game
    from conftest import CONFIG_PATH

    out = str(CONFIG_PATH) if out == "CONFIG" else out
    before = (folder / "g.db").read_bytes(), CONFIG_PATH.read_bytes()
    assert cli.main([*args, "export", "journal", "--format", "csv", "--out", out]) == 2
    assert "one of the game's own files" in capsys.readouterr().err
    assert ((folder / "g.db").read_bytes(), CONFIG_PATH.read_bytes()) == before
    assert cli.main([*args, "verify"]) == 0


@pytest.mark.parametrize("out, words", [(".", "is a folder"), ("missing/dir/x.csv", "check that the folder exists"),
                                        ("/proc/nope.csv", "Cannot write")])
def test_export_to_an_odd_path_is_a_clear_error_and_leaves_no_file(game, capsys, out, words):
    args, folder = game
    files = sorted(p.name for p in folder.iterdir())
    assert cli.main([*args, "export", "standings", "--format", "csv", "--out", out]) == 2
    assert words in capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == files


def test_export_replaces_an_old_file_whole(game):
    args, folder = game
    (folder / "standings.csv").write_text("old content that is much longer than the new one\n" * 100)
    assert cli.main([*args, "export", "standings", "--format", "csv", "--out", "standings.csv"]) == 0
    text = (folder / "standings.csv").read_text()
    assert text.startswith("rank,team") and "old content" not in text
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_print_to_a_file_instead_of_a_folder_is_a_clear_error(game, capsys):
    args, _ = game
    assert cli.main([*args, "print", "--kind", "cards", "--out", "g.db"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert cli.main([*args, "verify"]) == 0
