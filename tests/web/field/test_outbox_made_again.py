"""A command kept on one station, made again on another before it could be sent (docs/OUTBOX.md, R11, R14).

A console loses the Wi-Fi and keeps a harvest; the harvester has it booked at the other console meanwhile.
When the first console is back in reach its outbox sends what it kept: before, the bank booked it too (the team
got the harvest twice). Now such a command is refused `409 made_again`, naming the entry, who booked it and how
long after, and nothing is booked; "Book it again" (a new key, made now) books it when it really happened twice.
"""

from __future__ import annotations

import pytest

HARVEST = {"type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"}


def queued(client, key, seconds, device, **command):
    headers = {"X-CSRF-Token": client.csrf, "Idempotency-Key": key, "X-Queued-Seconds": str(seconds),
               "X-Device": device}
    return client.client.post("/api/commands", json=command, headers=headers)


@pytest.fixture
def game(web, app):
    """The bank with its clock in the test's hands (seconds), the lead and two bankers' consoles."""
    bank = app.extensions["terrabank"].bank
    clock = [bank.now()]
    bank.now = lambda: clock[0]
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    return bank, clock, lead, web("banker"), web("banker")


def booked(bank, key) -> int:
    return sum(1 for row in bank.journal_rows() if row["command_id"] == key)


def test_a_kept_harvest_made_again_at_the_other_console_is_asked_not_booked_twice(game):
    bank, clock, lead, console_a, console_b = game
    clock[0] += 60
    assert console_b.command(key="live-b", **HARVEST).status_code == 200  # the other console, meanwhile
    seq = bank.last_seq
    clock[0] += 30
    before = bank.last_seq
    reply = queued(console_a, "kept-a", 120, "tablet-a", **HARVEST)  # made 120 s ago, 90 s before the other
    assert reply.status_code == 409, reply.get_json()
    error = reply.get_json()["error"]
    assert error["code"] == "made_again" and error["params"]["seq"] == seq and error["params"]["actor"] == "banker"
    assert error["params"]["minutes"] == 2 and "drop this one" in error["message"]
    assert error["text"] and str(seq) in error["text"]  # the page's sentence, in the game's language
    assert bank.last_seq == before and booked(bank, "kept-a") == 0
    # It really happened twice: "Book it again" is a new try, made now, under a new key.
    assert queued(console_a, "kept-a-again", 0, "tablet-a", **HARVEST).status_code == 200
    assert booked(bank, "kept-a-again") == 1


def test_the_same_kept_harvest_from_two_devices_books_once(game):
    """Both consoles were out of reach and each kept it: the first to arrive books, the second is asked."""
    bank, clock, lead, console_a, console_b = game
    clock[0] += 300
    assert queued(console_a, "kept-a", 200, "tablet-a", **HARVEST).status_code == 200
    again = queued(console_b, "kept-b", 100, "tablet-b", **HARVEST)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "made_again"
    assert booked(bank, "kept-a") == 1 and booked(bank, "kept-b") == 0
    # The first one's retry (its reply lost) is still the same booking, never asked.
    retry = queued(console_a, "kept-a", 260, "tablet-a", **HARVEST)
    assert retry.status_code == 200 and retry.get_json()["duplicate"] is True


def test_what_is_not_the_same_move_made_again_books(game):
    bank, clock, lead, console_a, console_b = game
    clock[0] += 600
    assert console_b.command(key="earlier", **HARVEST).status_code == 200  # before the kept one was made
    assert console_b.command(key="other-card", **{**HARVEST, "card": "harvester-2"}).status_code == 200
    assert console_b.command(key="other-kind", **{**HARVEST, "resource": "flora"}).status_code == 200
    clock[0] += 100
    assert queued(console_a, "kept-1", 60, "tablet-a", **HARVEST).status_code == 200
    # Two kept on one device were both made there (the page asks about a double tap itself): both book.
    assert queued(console_a, "kept-2", 50, "tablet-a", **HARVEST).status_code == 200
    assert booked(bank, "kept-1") == 1 and booked(bank, "kept-2") == 1


def test_an_entry_undone_since_no_longer_stands_in_the_way(game):
    bank, clock, lead, console_a, console_b = game
    clock[0] += 60
    assert console_b.command(key="live-b", **HARVEST).status_code == 200
    seq = bank.last_seq
    assert lead.command(key="undo", type="reverse", seq=seq, reason="made again").status_code == 200
    clock[0] += 10
    assert queued(console_a, "kept-a", 40, "tablet-a", **HARVEST).status_code == 200


def test_an_entry_further_back_than_the_rows_kept_in_memory_is_found(game):
    """A station out of reach for a long time: the other console booked many entries since (read from the journal)."""
    bank, clock, lead, console_a, console_b = game
    clock[0] += 60
    assert console_b.command(key="live-b", **HARVEST).status_code == 200
    seq = bank.last_seq
    for n in range(150):  # more than bank/services/recent_rows.py keeps
        clock[0] += 1
        assert console_b.command(key=f"flora-{n}", **{**HARVEST, "card": "harvester-2", "resource": "flora"}).status_code == 200
    reply = queued(console_a, "kept-a", 200, "tablet-a", **HARVEST)
    assert reply.status_code == 409 and reply.get_json()["error"]["params"]["seq"] == seq
