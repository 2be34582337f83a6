"""Ledger lines typed on two processes of the game at once, after a console's outbox sent the move: each
kept booking is stood for by one line (bank/web/field/paper_kept.py, the claims in the game's SQLite file or
in PostgreSQL beside the journal), so a harvest tapped once and written twice (two trips, R14) books twice,
whichever process each line reaches and in whatever order."""

from __future__ import annotations

import uuid

from test_paper_copies_shared import at_once, leads, send  # noqa: F401 (leads: a lead on each of two processes)
from two_processes_kit import store  # noqa: F401 (store: the fixture)

HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}
LINE = "Bleus récolte eau 1"


def harvests(app) -> int:
    return sum(1 for row in app.extensions["terrabank"].bank.journal_rows() if row["command"].get("type") == "harvest"
               and row["command"].get("team") == "blue")


def test_two_lines_on_two_processes_at_once_one_stands_for_the_kept_harvest_the_other_books(leads):
    made, clients = leads
    reply = clients[0].client.post("/api/commands", json=HARVEST, headers={
        "X-CSRF-Token": clients[0].csrf, "Idempotency-Key": uuid.uuid4().hex, "X-Queued-Seconds": "60",
        "X-Device": "tablet-a"})
    assert reply.status_code == 200, reply.get_json()
    answers = at_once([(clients[0], f"feuille 0A\n1 {LINE}\n"), (clients[1], f"feuille 0A\n2 {LINE}\n")])
    lines = sorted((answer["lines"][0]["status"], "kept" in answer["lines"][0]) for answer in answers)
    assert lines == [("booked", False), ("duplicate", True)], answers
    assert harvests(made[0]) == 2
    # Both lines again, from the other process each, and both on one at once: nothing more.
    answers = at_once([(clients[1], f"feuille 0A\n1 {LINE}\n"), (clients[0], f"feuille 0A\n2 {LINE}\n"),
                       (clients[0], f"feuille 0A\n1 {LINE}\n2 {LINE}\n")])
    assert all(line["status"] == "duplicate" for answer in answers for line in answer["lines"]), answers
    assert harvests(made[0]) == harvests(made[1]) == 2
