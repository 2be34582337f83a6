"""GET /api/reload: the lead's admin page reads there what became of the last config reload (its master's word)."""

from __future__ import annotations

from bank.web.serving import reload


def test_the_lead_reads_the_masters_last_word_on_a_reload_and_nobody_else_does(web):
    lead, banker = web("lead"), web("banker")
    assert lead.client.get("/api/reload").get_json() == {"reload": None}  # no reload since the start
    try:
        reload.tell("refused", problem="config.toml: not valid TOML (Invalid value (at line 410, column 5))")
        said = lead.client.get("/api/reload").get_json()["reload"]
        assert said["state"] == "refused" and "line 410" in said["problem"] and 0 <= said["age"] < 60, said
        reload.tell("waiting", why="file", problem="another program holds the game's write lock")
        assert lead.client.get("/api/reload").get_json()["reload"]["why"] == "file"
        reload.tell("refused", problem="config.toml: « " + "é" * 9000 + " »")  # longer than its memory holds: cut
        assert lead.client.get("/api/reload").get_json()["reload"]["problem"].startswith("config.toml: « éé")
        assert banker.client.get("/api/reload").status_code == 403
        assert web().client.get("/api/reload").status_code in (401, 403)
    finally:
        reload._STATUS[:4] = bytes(4)  # this process's word said nothing again, for the tests after
