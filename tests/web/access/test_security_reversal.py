"""Undo rights: reversing an entry needs the right to send that entry in the first place.

A banker may not award points (403), so a banker must not be able to take the lead's
penalty or refill back with `reverse` either. Every command type, booked by the lead,
is reversed by every caller: refused cells are 401/403 and change nothing.
"""

from __future__ import annotations

import pytest

from bank.web.access.permissions import PERMISSIONS, may
from security_kit import CALLERS, KINDS, prepare, refusal, services, snapshot, valid_command

# Commands that end or freeze the game, or are refused after prepare(): nothing to reverse.
NOT_BOOKED_AFTER_PREPARE = {"buy_animal", "buy_second_pirate", "start_clock", "resume"}
REVERSIBLE = [k for k in KINDS if k not in NOT_BOOKED_AFTER_PREPARE | {"reverse"}]


def _client(web, tokens, who):
    client = web(who if who != "team" else None)
    if who == "team":
        assert client.client.get(f"/api/team/{tokens['blue']}").status_code == 200
    return client


def _book_as_lead(web, app, kind) -> int:
    lead = web("lead")
    reply = lead.command(**valid_command(kind, services(app).config))
    assert reply.status_code == 200, reply.get_json()
    return reply.get_json()["seq"]


@pytest.mark.parametrize("who", CALLERS)
@pytest.mark.parametrize("kind", REVERSIBLE)
def test_reversal_needs_the_right_to_send_the_original(web, tokens, app, who, kind):
    """The permission table, for `reverse`: one cell per (original command type, caller)."""
    prepare(app)
    seq = _book_as_lead(web, app, kind)
    client = _client(web, tokens, who)
    before = snapshot(app)
    reply = client.command(type="reverse", seq=seq, reason="booked by mistake")
    if who in PERMISSIONS["reverse"] and may(who, kind):
        assert reply.status_code in (200, 409), (reply.status_code, reply.get_json())
        if reply.status_code == 409:  # the rules refuse to undo this kind of entry: nothing changed
            assert snapshot(app) == before
    else:
        assert reply.status_code == (401 if who in (None, "team") else 403), reply.get_json()
        refusal(reply)
        assert snapshot(app) == before


def test_banker_cannot_undo_the_leads_penalty_or_refill(web, app):
    """The attack: a banker (403 on award) reversed a penalty and a refill with 200."""
    prepare(app)
    lead, banker = web("lead"), web("banker")
    assert lead.command(type="award", team="red", points=3, reason="fair play").status_code == 200
    penalty = lead.command(type="award", team="red", points=-2, reason="cheating").get_json()["seq"]
    refill = lead.command(type="refill", resource="water", amount=5).get_json()["seq"]
    for seq in (penalty, refill):
        before = snapshot(app)
        reply = banker.command(type="reverse", seq=seq, reason="oops")
        assert reply.status_code == 403 and "undo" in refusal(reply)["message"]
        assert snapshot(app) == before
    assert lead.command(type="reverse", seq=penalty, reason="penalty given in error").status_code == 200


def test_banker_still_undoes_a_harvest_booked_by_mistake(web, app):
    prepare(app)
    banker = web("banker")
    seq = banker.command(type="harvest", team="blue", card="harvester-1", resource="water").get_json()["seq"]
    assert banker.command(type="reverse", seq=seq, reason="wrong team").status_code == 200


def test_reversing_an_unknown_entry_is_still_the_rules_sentence(web, app):
    prepare(app)
    reply = web("banker").command(type="reverse", seq=9999, reason="typo")
    assert reply.status_code == 400 and refusal(reply)["code"] == "unknown_entry"


def test_a_banker_racing_the_leads_next_award_never_undoes_it(bank):
    """The right is decided under the bank's lock: a reverse aimed at the seq the lead's next
    award will take is refused once that award exists, never checked against an empty seq."""
    import threading

    from bank.errors import BankError, NotAllowed

    bank.execute({"id": "go", "type": "start_clock"})
    banker_may = lambda kind: may("banker", "reverse") and may("banker", kind)  # noqa: E731
    stop, undone, refused = threading.Event(), [], []

    def lead():
        for n in range(150):
            bank.execute({"id": f"award-{n}", "type": "award", "team": "blue", "points": 1, "reason": "fair play"})
        stop.set()

    def banker():
        n = 0
        while not stop.is_set():
            n += 1
            try:
                bank.execute({"id": f"undo-{n}", "type": "reverse", "seq": bank.last_seq + 1, "reason": "race"},
                             may_undo=banker_may)
                undone.append(n)
            except NotAllowed:
                refused.append(n)
            except BankError:
                pass  # no such entry yet: the rules' own refusal

    threads = [threading.Thread(target=lead), threading.Thread(target=banker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert undone == []
    assert bank.state.reputation["blue"] == 150
