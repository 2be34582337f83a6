"""Live updates when several consoles book at once: newest picture last, every journal entry once.

The pages connect as today's live.js (tests/live_kit.py: one `round` message per round, read part by part);
the journal and the late phone's whole picture are checked once more for a page of an older live.js.
"""

import threading

import pytest
from delta_page import Page

from live_kit import live_client

from bank.web.push.extensions import socketio_of

TEAMS = ("blue", "yellow", "red", "green")


def _book_together(web, per_console: int = 8) -> None:
    """Three consoles harvesting at the same moment, one team each (and the fourth by all)."""
    consoles = [web("lead") for _ in range(3)]
    start = threading.Barrier(3)

    def work(console, team):
        start.wait()
        for i in range(per_console):
            reply = console.command(type="harvest", team=team if i % 2 else "green", card="harvester-1",
                                    resource="water")
            assert reply.status_code == 200, reply.get_json()

    threads = [threading.Thread(target=work, args=(c, t)) for c, t in zip(consoles, TEAMS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)


def test_phones_end_on_the_newest_stock_when_three_consoles_book_at_once(app, web, tokens):
    web("lead").command(type="start_clock")
    phones = {team: live_client(app, auth={"team": tokens[team]}) for team in TEAMS}
    pages = {team: Page().feed(phone.get_received()) for team, phone in phones.items()}
    _book_together(web)
    bank = app.extensions["terrabank"].bank
    for team, phone in phones.items():
        updates = [m["args"][0] for m in phone.get_received() if m["name"] == "team"]
        seqs = [u["seq"] for u in updates]
        assert seqs == sorted(seqs), f"{team}'s phone got an older picture after a newer one: {seqs}"
        assert seqs[-1] == bank.last_seq
        page = pages[team].feed([{"name": "team", "args": [u]} for u in updates])
        assert page.asks == 0, "each patch applied to the version the phone held"
        assert page.picture("team")["view"]["stock"]["water"] == bank.state.balance(f"team:{team}", "water")


@pytest.mark.parametrize("legacy", [False, True], ids=["rounds", "legacy"])
def test_the_console_gets_every_journal_entry_once_when_commands_arrive_together(app, web, legacy):
    lead = web("lead")
    console = live_client(app, flask_test_client=lead.client, legacy=legacy)
    console.get_received()
    lead.command(type="start_clock")
    _book_together(web)
    rows = [row["seq"] for m in console.get_received() if m["name"] == "journal" for row in m["args"][0]["rows"]]
    last = app.extensions["terrabank"].bank.last_seq
    assert rows == list(range(rows[0], last + 1))


def _pictures(client, event: str) -> list:
    return [m["args"][0] for m in client.get_received() if m["name"] == event]


def test_a_harvest_reaches_the_team_phone_as_a_small_patch_carrying_the_new_stock(app, web, tokens):
    """Tens of bytes on the Wi-Fi, not the team's whole view again."""
    from bank.web.push.delta import size

    lead = web("lead")
    lead.command(type="start_clock")
    phone = live_client(app, auth={"team": tokens["blue"]})
    page = Page().feed(phone.get_received())
    whole = size({**page.picture("team"), "v": page.version("team")})
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    [update] = _pictures(phone, "team")
    assert update["base"] == page.version("team") and update["v"] != update["base"]
    assert ["s", ["view", "stock", "water"], 6] in update["patch"]
    # The harvest changes the stock, the harvest time and what each building still lacks: ~0.5 KB of 5 KB.
    assert size(update) * 5 < whole, f"a patch of {size(update)} bytes against a whole view of {whole}"
    assert page.receive("team", update)["view"]["stock"]["water"] == 6


@pytest.mark.parametrize("legacy", [False, True], ids=["rounds", "legacy"])
def test_a_phone_that_joined_since_the_last_round_gets_the_whole_picture_then_all_hold_one_version(
        app, web, tokens, monkeypatch, legacy):
    """One base per room, not per phone: after each round every phone of the room holds the same version."""
    bank = app.extensions["terrabank"].bank
    lead = web("lead")
    lead.command(type="start_clock")
    early = live_client(app, auth={"team": tokens["red"]}, legacy=legacy)
    lead.command(type="harvest", team="red", card="harvester-1", resource="flora")  # a round: the room's base
    pages = {"early": Page().feed(early.get_received())}
    real_now = bank.now
    monkeypatch.setattr(bank, "now", lambda: real_now() + 5)  # the late phone joins 5 s on: "harvested 5 s ago"
    late = live_client(app, auth={"team": tokens["red"]}, legacy=legacy)
    pages["late"] = Page().feed(late.get_received())
    assert pages["late"].version("team") != pages["early"].version("team")
    lead.command(type="harvest", team="red", card="harvester-2", resource="flora")
    early_msgs, late_msgs = _pictures(early, "team"), _pictures(late, "team")
    assert "patch" in early_msgs[-1]
    assert "patch" not in late_msgs[-1], "a phone holding another version than the room's gets the whole picture"
    base = app.extensions["terrabank_broadcaster"].base_of("team:red")
    for name, msgs in (("early", early_msgs), ("late", late_msgs)):
        page = pages[name].feed([{"name": "team", "args": [m]} for m in msgs])
        assert page.version("team") == base.version and page.picture("team") == base.picture, name
        assert page.picture("team")["view"]["stock"]["flora"] == bank.state.balance("team:red", "flora")


def test_a_refused_command_sends_nothing(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    phone = live_client(app, auth={"team": tokens["blue"]})
    display = live_client(app, auth={"display": True})
    phone.get_received(), display.get_received()
    reply = lead.command(type="harvest", team="blue", card="harvester-9", resource="water")
    assert reply.status_code in (400, 409)
    assert phone.get_received() == [] and display.get_received() == []


def test_the_whole_picture_goes_when_a_patch_would_not_be_smaller(app, web, tokens):
    from bank.web.push.broadcaster import PUBLIC, Base

    lead = web("lead")
    lead.command(type="start_clock")
    display = live_client(app, auth={"display": True})
    page = Page().feed(display.get_received())
    sender = app.extensions["terrabank_broadcaster"]
    with sender.lock:  # a base that shares nothing with the next picture: every key would be in the patch
        sender._bases[PUBLIC] = Base(page.version("public"), {"other": list(range(400))})
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    [update] = _pictures(display, "public")
    assert "patch" not in update and update["board"]["reserve"]
    assert page.receive("public", update) == sender.base_of(PUBLIC).picture


def _journal_seqs(client) -> list:
    """The journal rows a console was sent, in the order they came."""
    return [row["seq"] for m in client.get_received() if m["name"] == "journal" for row in m["args"][0]["rows"]]


def test_a_round_that_fails_midway_leaves_no_console_a_gap(app, web, monkeypatch):
    """A round whose emit raised midway (python-engineio's SocketIsClosedError: a page whose socket closed just as
    the round was written to it) had reached only the consoles before that page in the room; the others missed its
    rows, and the next round's came after a gap: the console asked for the missing rows and got them after newer
    ones (the failover test's late rows). Each console is now sent the rows after the last it was sent, in order."""
    from engineio.exceptions import SocketIsClosedError

    lead = web("lead")
    lead.command(type="start_clock")
    last = app.extensions["terrabank"].bank.last_seq
    # In the room in this order: the round's emit reaches `before`, then fails on `closing`, never reaching `after`.
    consoles = {name: live_client(app, auth={"after": last}, flask_test_client=web("banker").client)
                for name in ("before", "closing", "after")}
    for console in consoles.values():
        console.get_received()
    server = socketio_of(app).server
    send, failing = server._send_eio_packet, [consoles["closing"].client.eio_sid]

    def send_or_fail(eio_sid, pkt):
        if eio_sid in failing:
            failing.clear()  # once: the next round finds the page gone (it was forgotten, or is skipped)
            raise SocketIsClosedError()
        return send(eio_sid, pkt)

    monkeypatch.setattr(server, "_send_eio_packet", send_or_fail)
    for team in ("blue", "red", "yellow"):  # the first round fails midway; the next ones go out
        assert lead.command(type="harvest", team=team, card="harvester-1", resource="water").status_code == 200
    booked = list(range(last + 1, app.extensions["terrabank"].bank.last_seq + 1))
    for name in ("before", "after"):
        seqs = _journal_seqs(consoles[name])
        first_seen = [seq for i, seq in enumerate(seqs) if seq not in seqs[:i]]
        assert first_seen == booked, f"{name}: rows sent {seqs}, a gap or a row after a newer one"


def test_a_console_far_behind_gets_the_rest_from_the_rounds_in_order(app, web, monkeypatch):
    """A console more than JOURNAL_PAGE rows behind (here 2; 500 served) got that many on connecting, then the
    round's rows, newer: a gap, which it asked about, and the rest came after newer rows. So did a console moving
    from a killed process when its move took long enough for 500 more rows to be booked (the failover test's late
    rows, on a slow host). The rounds now bring it the rows after its last first, a page at a time, in order."""
    from bank.web.push import broadcaster, live

    monkeypatch.setattr(live, "JOURNAL_PAGE", 2)
    monkeypatch.setattr(broadcaster, "JOURNAL_PAGE", 2, raising=False)
    lead = web("lead")
    lead.command(type="start_clock")
    for team in ("blue", "red", "yellow"):
        lead.command(type="harvest", team=team, card="harvester-1", resource="water")
    console = live_client(app, auth={"after": 0}, flask_test_client=web("banker").client)
    for team in ("blue", "red", "yellow", "green"):
        lead.command(type="harvest", team=team, card="harvester-2", resource="water")
    seqs = _journal_seqs(console)
    assert seqs == list(range(1, len(seqs) + 1)), f"rows sent {seqs}: a gap, or a row after a newer one"
