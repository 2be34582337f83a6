"""The witnesses' reports, limited per reporter and shown unconfirmed until two agree.

Before: the bank kept the newest 20 reports of all: one team link's 300 false reports in 16 s pushed an
earlier real report out, and a false report was listed as `team:blue` with no sign that nobody else saw it.
Now each reporter (a team link, the big screen's key, a facilitator) keeps its own newest few: a flood
withdraws only the flooder's reports; a report says whether a second reporter agreed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[3] / "config.toml"


@pytest.fixture
def game(tmp_path):
    from bank.web import create_app

    app = create_app({"DB": str(tmp_path / "game.db"), "CONFIG": str(CONFIG), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    services.bank.execute({"id": "start", "type": "start_clock"})
    try:
        yield app
    finally:
        services.bank.close()
        services.access.close()


def _report(client, token: str, seq: int, hash_: str):
    answer = client.post("/api/chain/witness", json={"team": token, "saw": {"seq": seq, "hash": hash_}})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer.get_json()


def _kept(app) -> list[dict]:
    from conftest import WebClient

    lead = WebClient(app.test_client())
    assert lead.login("lea", "password1").status_code == 200
    return lead.client.get("/api/chain/witness").get_json()["reports"]


def test_a_flood_from_one_link_never_pushes_out_another_reporters_report(game):
    tokens = game.extensions["terrabank"].access.team_tokens()
    client = game.test_client()
    real = "a1" * 32  # what red's phone saw at entry 1 (not this bank's head there: a rollback)
    assert _report(client, tokens["red"], 1, real)["known"] is False
    for i in range(300):  # a stolen blue link: 300 made-up heads
        _report(client, tokens["blue"], 1 + i % 7, f"{i:064x}")
    kept = _kept(game)
    reds = [r for r in kept if r["by"] == "team:red"]
    assert [r["saw"] for r in reds] == [{"seq": 1, "hash": real}]  # before: pushed out by the 20 newest
    blues = [r for r in kept if r["by"] == "team:blue"]
    assert 0 < len(blues) <= 5 and len(kept) == len(blues) + 1  # the flooder keeps its newest few only
    assert reds[0]["confirmed"] is False  # one link alone: unconfirmed (before: no such field)
    assert all(r["confirmed"] is False for r in blues)


def test_a_report_is_confirmed_once_a_second_reporter_agrees(game):
    services = game.extensions["terrabank"]
    tokens = services.access.team_tokens()
    client = game.test_client()
    seen = "b2" * 32
    _report(client, tokens["red"], 1, seen)
    _report(client, tokens["red"], 1, seen)  # the same page again: not a second witness
    assert [r["confirmed"] for r in _kept(game)] == [False]
    _report(client, tokens["green"], 1, seen)
    kept = _kept(game)
    assert len(kept) == 1 and kept[0]["confirmed"] is True
    assert kept[0]["reporters"] == ["team:red", "team:green"]
    for i in range(50):  # red floods afterwards: its confirmed report goes, green's stays, unconfirmed again
        _report(client, tokens["red"], 2, f"{i:064x}")
    kept = [r for r in _kept(game) if r["saw"]["hash"] == seen]
    assert len(kept) == 1 and kept[0]["reporters"] == ["team:green"] and kept[0]["confirmed"] is False
