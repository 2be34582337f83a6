"""A printed ledger line is one move: typed again from another device, however it is read, it books once
(bank/web/field/paper_line.py).

Before, a numbered line booked under an id made of its sheet, its number and the move as read: the same
line typed by a second facilitator books once only when read alike. A handwritten 1 read as 2 (another
harvester card), an award's reason written in other words, a resource misread: the line was booked a
second time and nobody was told. Now the second reading is refused naming the entry booked from that
line; once that entry is undone, the line books again as read now. Two processes of the game (SQLite or
PostgreSQL) typing the line at once, alike or not, book one entry (test_paper_copies_shared.py).
"""

from __future__ import annotations

from test_paper_lines_identify import leads, send  # noqa: F401 (leads: the lead's laptop and a second lead's)

from bank.web import create_app
from bank.web.field.paper_line import earlier_id
from conftest import WebClient


def outcome(result: dict) -> list:
    return [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]]


def test_a_line_read_otherwise_on_a_second_laptop_is_refused_naming_the_entry_booked(app, leads):
    first, second = leads
    bank = app.extensions["terrabank"].bank
    booked = send(first, "feuille 0A\n1 Bleus récolte eau 1\n2 14:05 Bleus prime 2 Belle cabane !\n")
    assert outcome(booked) == [("booked", None), ("booked", None)]
    seq, water, points = bank.last_seq, bank.state.stock("blue")["water"], bank.state.reputation["blue"]
    # The second laptop reads the 1 as 2 (another harvester card) and writes the reason its own way.
    again = send(second, "Feuille 0a\n1 bleus recolte EAU 2\n2 Bleus prime 2 belle cabane\n")
    assert outcome(again) == [("refused", "paper_line_booked"), ("duplicate", None)]
    refused = again["lines"][0]["error"]
    assert refused["params"] == {"n": 1, "sheet": "0A", "seq": booked["lines"][0]["seq"], "type": "harvest"}
    assert again["lines"][1]["seq"] == booked["lines"][1]["seq"]
    assert (bank.last_seq, bank.state.stock("blue")["water"], bank.state.reputation["blue"]) == (seq, water, points)
    # The first reading was the wrong one: undone, the line books as read now, and once.
    assert first.command(type="reverse", seq=booked["lines"][0]["seq"], reason="lu 1 pour 2").status_code == 200
    assert outcome(send(second, "feuille 0A\n1 Bleus récolte eau 2\n")) == [("booked", None)]
    assert outcome(send(first, "feuille 0A\n1 Bleus récolte eau 2\n")) == [("duplicate", None)]
    # The old batch sent again (a page reloaded with the form filled): the undone reading is not booked again.
    assert outcome(send(first, "feuille 0A\n1 Bleus récolte eau 1\n")) == [("duplicate", None)]
    assert bank.last_seq == seq + 2  # the undo, then card 2's harvest, once
    assert bank.state.stock("blue")["water"] == water  # card 1's harvest undone, card 2's booked


def test_after_a_restart_the_line_is_known_however_it_is_read(tmp_path, config):
    def started():
        app = create_app({"DB": tmp_path / "g.db", "CONFIG": config, "TESTING": True, "PASSWORD_HASH": "pbkdf2:sha256:1000"})
        if not app.extensions["terrabank"].access.users():
            app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
        client = WebClient(app.test_client())
        assert client.login("lead").status_code == 200
        return app, client

    app, lead = started()
    assert lead.command(type="start_clock").status_code == 200
    assert outcome(send(lead, "feuille 0B\n1 Jaunes récolte énergie 1\n")) == [("booked", None)]
    seq = app.extensions["terrabank"].bank.last_seq
    app.extensions["terrabank"].bank.close()
    app.extensions["terrabank"].access.close()
    app, lead = started()
    try:
        assert outcome(send(lead, "feuille 0B\n1 Jaunes récolte énergie 1\n1 Jaunes récolte énergie 3\n")) == [
            ("duplicate", None), ("refused", "paper_line_twice")]
        assert outcome(send(lead, "feuille 0B\n1 Jaunes récolte eau 1\n")) == [("refused", "paper_line_booked")]
        assert app.extensions["terrabank"].bank.last_seq == seq
    finally:
        app.extensions["terrabank"].bank.close()
        app.extensions["terrabank"].access.close()


def test_a_line_booked_before_slots_is_known_again(app, leads):
    """A game typed back on the older code booked a line under its sheet, number and move: typed again
    now, that line is the same entry, not a new one."""
    first, _ = leads
    bank = app.extensions["terrabank"].bank
    for n, command in enumerate([{"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"},
                                 {"type": "award", "team": "blue", "points": 2, "reason": "Belle cabane !"}], 1):
        bank.execute({**command, "id": earlier_id("0A", n, command), "actor": "lead"})
    seq = bank.last_seq
    result = send(first, "feuille 0A\n1 Bleus récolte eau 1\n2 Bleus prime 2 Belle cabane !\n")
    assert outcome(result) == [("duplicate", None), ("duplicate", None)]
    assert bank.last_seq == seq
