"""One printed ledger line books one entry, whatever kind of move it is read as
(bank/web/field/paper_line.py, paper_line_index.py).

A trade or a fight between the sheet's team and another books under the move's slots (paper_shared.py),
not under the line's: before, the line's identity did not hold for it. A trade read with other amounts
on a second laptop booked a second trade; a line booked as a harvest and typed later as a trade (or the
other way round) booked both. Now the second reading is refused naming the entry booked from that line
(or the other team's booking it stood for), nothing changes, and once that entry is undone the line books
again as read now. Two processes of the game (SQLite or PostgreSQL) typing the line two ways at once
book one entry; a process that never saw the line (a restart) knows it from the journal.
"""

from __future__ import annotations

from bank.web.field import paper_line
from test_paper_copies_shared import at_once, leads, send  # noqa: F401 (leads: a lead on each of two processes)
from two_processes_kit import store  # noqa: F401 (the fixture: sqlite, postgresql)

TRADE = "Bleus commerce Rouges donne 2 eau reçoit 1 dioxygène"
MISREAD = "Bleus commerce Rouges donne 3 eau reçoit 1 dioxygène"  # the 2 read as a 3 on the second laptop


def said(result: dict) -> list:
    return [(line["status"], (line.get("error") or {}).get("code")) for line in result["lines"]]


def game(made) -> tuple:
    """The journal's last entry and both teams' stocks, as the second process sees them once caught up."""
    bank = made[1].extensions["terrabank"].bank
    bank.catch_up()
    return bank.last_seq, bank.state.stock("blue"), bank.state.stock("red")


def test_a_trade_line_read_with_other_amounts_on_another_process_is_refused_naming_the_entry(leads):
    made, (first, second) = leads
    trade = send(first, "feuille 0A\n3 " + TRADE)
    assert said(trade) == [("booked", None)]
    seq, before = trade["lines"][0]["seq"], game(made)
    again = send(second, "feuille 0A\n3 " + MISREAD)
    assert said(again) == [("refused", "paper_line_booked")]
    assert again["lines"][0]["error"]["params"] == {"n": 3, "sheet": "0A", "seq": seq, "type": "trade"}
    assert said(send(second, "Feuille 0a\n3 " + TRADE)) == [("duplicate", None)]  # the same trade: already booked
    # Rouges' line stood for it; read with other amounts there, it is refused naming the same entry.
    assert send(second, "feuille 0C\n2 " + TRADE)["lines"][0]["same_as"] == {"sheet": "0A", "line": 3}
    copy = send(first, "feuille 0C\n2 " + MISREAD)
    assert said(copy) == [("refused", "paper_line_booked")] and copy["lines"][0]["error"]["params"]["seq"] == seq
    assert game(made) == before
    # The first reading was the wrong one: undone, the line books as read now, once, from either process.
    assert first.command(type="reverse", seq=seq, reason="2 lu pour 3").status_code == 200
    assert said(send(second, "feuille 0A\n3 " + MISREAD)) == [("booked", None)]
    for client in (first, second):
        assert said(send(client, "feuille 0A\n3 " + MISREAD)) == [("duplicate", None)]
        assert said(send(client, "feuille 0A\n3 " + TRADE)) == [("duplicate", None)]  # the undone reading: not again
    assert game(made)[0] == before[0] + 2  # the undo, the trade as read now


def test_a_harvest_line_typed_as_a_trade_and_a_trade_line_typed_as_a_harvest_are_refused(leads):
    made, (first, second) = leads
    booked = send(first, "feuille 0A\n1 Bleus récolte eau 1\n3 " + TRADE)
    assert said(booked) == [("booked", None), ("booked", None)]
    harvest, trade = (line["seq"] for line in booked["lines"])
    assert send(first, "feuille 0C\n2 " + TRADE)["lines"][0]["same_as"] == {"sheet": "0A", "line": 3}
    before = game(made)
    # The second process never saw these lines booked (as after a restart): it reads them from the journal.
    retyped = send(second, f"feuille 0A\n1 {TRADE}\n3 Bleus récolte eau 1\nfeuille 0C\n2 Rouges récolte dioxygène 1\n")
    assert said(retyped) == [("refused", "paper_line_booked")] * 3
    assert [(line["error"]["params"]["seq"], line["error"]["params"]["type"]) for line in retyped["lines"]] == [
        (harvest, "harvest"), (trade, "trade"), (trade, "trade")]
    assert game(made) == before


def test_one_line_typed_as_two_moves_on_both_processes_at_once_books_one_entry(leads):
    made, clients = leads
    before = game(made)[0]
    answers = at_once([(clients[0], f"feuille 0A\n3 {TRADE}\n4 {TRADE}\n"),
                       (clients[1], f"feuille 0A\n3 {MISREAD}\n4 Bleus récolte eau 1\n")])
    for n in (0, 1):  # line 3 (two trades), line 4 (a trade and a harvest)
        outcomes = sorted((a["lines"][n]["status"], (a["lines"][n].get("error") or {}).get("code")) for a in answers)
        assert outcomes == [("booked", None), ("refused", "paper_line_booked")], answers
    assert game(made)[0] == before + 2


def typed_meanwhile(monkeypatch, bank, place: tuple, client, text: str) -> list:
    """`text` sent from `client` (the other process) right after `bank` has read the line `place`, before it
    books or claims: the two readings interleaved at their closest. The answer, once sent."""
    read, answers = paper_line._taken, []

    def reading(on, stood, at, move, marked):
        found = read(on, stood, at, move, marked)
        if on is bank and at == place and not answers:
            answers.append(send(client, text))
        return found

    monkeypatch.setattr(paper_line, "_taken", reading)
    return answers


def test_a_line_claimed_as_the_other_teams_trade_while_booked_as_a_harvest_is_one_of_them(leads, monkeypatch):
    """Rouges' line 2 stands for Bleus' trade (it books nothing) on one process, while the other books it as a
    harvest: the claim is let go and refused naming the harvest; before, both stood, and Rouges' real line
    for that trade (line 4) booked it a second time."""
    made, (first, second) = leads
    trade = send(first, "feuille 0A\n3 " + TRADE)["lines"][0]["seq"]
    harvest = typed_meanwhile(monkeypatch, made[0].extensions["terrabank"].bank, ("0C", 2), second,
                              "feuille 0C\n2 Rouges récolte dioxygène 1")
    copy = send(first, "feuille 0C\n2 " + TRADE)
    assert said(harvest[0]) == [("booked", None)]
    assert said(copy) == [("refused", "paper_line_booked")]
    assert copy["lines"][0]["error"]["params"]["seq"] == harvest[0]["lines"][0]["seq"]
    line4 = send(second, "feuille 0C\n4 " + TRADE)["lines"][0]
    assert (line4["status"], line4["seq"], line4["same_as"]) == ("duplicate", trade, {"sheet": "0A", "line": 3})


def test_a_line_booked_as_a_harvest_while_claimed_as_the_other_teams_trade_is_one_of_them(leads, monkeypatch):
    made, (first, second) = leads
    trade = send(first, "feuille 0A\n3 " + TRADE)["lines"][0]["seq"]
    before = game(made)
    copy = typed_meanwhile(monkeypatch, made[1].extensions["terrabank"].bank, ("0C", 2), first,
                           "feuille 0C\n2 " + TRADE)
    harvest = send(second, "feuille 0C\n2 Rouges récolte dioxygène 1")
    assert copy[0]["lines"][0]["same_as"] == {"sheet": "0A", "line": 3}
    assert said(harvest) == [("refused", "paper_line_booked")] and harvest["lines"][0]["error"]["params"]["seq"] == trade
    assert game(made) == before
