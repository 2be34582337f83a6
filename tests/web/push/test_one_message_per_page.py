"""One message per page per round (fewer frames and TCP segments on the Wi-Fi).

A page whose live.js says `rounds: 1` gets each round as ONE `round` message holding every part it
shows: a team phone the public picture and its own team's, a console the public picture and the
journal rows, the big screen and the fight page the public picture only (bank/web/push/rounds.py).
The broadcaster's guarantees hold part by part: a patch only to a page holding its base, the whole
picture to a page holding another version, every journal row once and in order. A page loaded
before the upgrade (no `rounds` in its auth) still gets the separate messages.
"""

from __future__ import annotations

from delta_page import Page

from bank.web.push.extensions import socketio_of


def rounds_of(client) -> list[dict]:
    """The `round` messages a test client received; fails on any other update message."""
    received = client.get_received()
    names = [m["name"] for m in received]
    assert set(names) <= {"round"}, f"separate messages to a page that reads rounds: {names}"
    return [m["args"][0] for m in received]


def console_of(app, web):
    """A banker's console as console.js opens it (it shows the journal), its connect reply read."""
    console = socketio_of(app).test_client(app, flask_test_client=web("banker").client,
                                           auth={"rounds": 1, "journal": True, "after": 0})
    rounds_of(console)
    return console


def feed(page: Page, messages: list[dict]) -> Page:
    """What live.js does with each `round`: its parts in order, each as its own message was."""
    for message in messages:
        for part in ("public", "team"):
            if part in message:
                page.receive(part, message[part])
    return page


def test_r_each_page_gets_one_message_per_round_holding_exactly_the_parts_it_shows(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    io = socketio_of(app)
    blue = io.test_client(app, auth={"team": tokens["blue"], "rounds": 1})
    red = io.test_client(app, auth={"team": tokens["red"], "rounds": 1})
    tv = io.test_client(app, auth={"display": True, "rounds": 1})
    console = io.test_client(app, flask_test_client=web("banker").client, auth={"rounds": 1, "journal": True, "after": 0})
    fight = io.test_client(app, flask_test_client=web("referee").client, auth={"rounds": 1})  # no journal shown
    connected = {name: rounds_of(c) for name, c in
                 {"blue": blue, "red": red, "tv": tv, "console": console, "fight": fight}.items()}
    # The connect reply is one message too: the whole pictures (and the console's journal).
    assert [sorted(m) for m in connected["blue"]] == [["public", "team"]]
    assert [sorted(m) for m in connected["console"]] == [["journal", "public"]]
    assert [sorted(m) for m in connected["tv"]] == [["public"]] == [sorted(m) for m in connected["fight"]]
    pages = {name: feed(Page(), msgs) for name, msgs in connected.items()}

    reply = lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    seq = reply.get_json()["seq"]
    got = {"blue": rounds_of(blue), "red": rounds_of(red), "tv": rounds_of(tv), "console": rounds_of(console),
           "fight": rounds_of(fight)}
    assert {name: len(msgs) for name, msgs in got.items()} == dict.fromkeys(got, 1), "one message per page"
    assert sorted(got["blue"][0]) == ["public", "team"]
    assert set(got["red"][0]) <= {"public", "team"}
    assert sorted(got["console"][0]) == ["journal", "public"]
    assert [row["seq"] for row in got["console"][0]["journal"]["rows"]] == [seq]
    assert sorted(got["tv"][0]) == ["public"] == sorted(got["fight"][0])
    # Each part is the patch of the version the page holds, and makes the server's picture.
    sender = app.extensions["terrabank_broadcaster"]
    assert "patch" in got["blue"][0]["team"] and "patch" in got["tv"][0]["public"]
    for name, msgs in got.items():
        page = feed(pages[name], msgs)
        assert page.asks == 0, name
        assert page.picture("public") == sender.base_of("public").picture, name
    assert pages["blue"].picture("team") == sender.base_of("team:blue").picture
    assert pages["blue"].picture("team")["view"]["stock"]["water"] == 6
    assert pages["red"].picture("team") == sender.base_of("team:red").picture, "red gets red's part, never blue's"


def test_r_a_page_holding_another_version_gets_that_picture_whole_in_its_own_one_message(
        app, web, tokens, monkeypatch):
    bank = app.extensions["terrabank"].bank
    lead = web("lead")
    lead.command(type="start_clock")
    io = socketio_of(app)
    early = io.test_client(app, auth={"team": tokens["red"], "rounds": 1})
    lead.command(type="harvest", team="red", card="harvester-1", resource="flora")  # a round: the room's base
    pages = {"early": feed(Page(), rounds_of(early))}
    real_now = bank.now
    monkeypatch.setattr(bank, "now", lambda: real_now() + 5)  # "harvested 5 s ago": the late phone's own version
    late = io.test_client(app, auth={"team": tokens["red"], "rounds": 1})
    pages["late"] = feed(Page(), rounds_of(late))
    assert pages["late"].version("team") != pages["early"].version("team")
    lead.command(type="harvest", team="red", card="harvester-2", resource="flora")
    [to_early], [to_late] = rounds_of(early), rounds_of(late)
    assert "patch" in to_early["team"]
    assert "patch" not in to_late["team"], "the phone holding another version gets the whole picture"
    sender = app.extensions["terrabank_broadcaster"]
    for name, message in (("early", to_early), ("late", to_late)):
        page = feed(pages[name], [message])
        assert page.asks == 0 and page.picture("team") == sender.base_of("team:red").picture, name
        assert page.picture("public") == sender.base_of("public").picture, name


def test_r_journal_rows_of_a_burst_reach_the_console_once_in_order_within_its_messages(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    console = console_of(app, web)
    booked = []
    for i in range(6):
        team = ("blue", "yellow", "red")[i % 3]
        booked.append(lead.command(type="harvest", team=team, card=f"harvester-{1 + i // 3}",
                                   resource="water").get_json()["seq"])
    rows = [row["seq"] for m in rounds_of(console) for row in m.get("journal", {}).get("rows", [])]
    assert rows == booked


def test_r_a_page_of_the_old_script_still_gets_separate_messages_beside_pages_of_the_new_one(app, web, tokens):
    """A page loaded before the upgrade says nothing of rounds: it is never sent a message it cannot read."""
    lead = web("lead")
    lead.command(type="start_clock")
    io = socketio_of(app)
    old = io.test_client(app, auth={"team": tokens["blue"]})
    new = io.test_client(app, auth={"team": tokens["blue"], "rounds": 1})
    old_page = Page().feed(old.get_received())
    new_page = feed(Page(), rounds_of(new))
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    old_messages = old.get_received()
    assert [m["name"] for m in old_messages] == ["public", "team"]
    old_page.feed(old_messages)
    feed(new_page, rounds_of(new))
    for event in ("public", "team"):
        assert old_page.picture(event) == new_page.picture(event), event
    assert new_page.picture("team")["view"]["stock"]["water"] == 6


def test_r_a_sync_of_a_page_is_answered_with_one_message(app, web, tokens):
    lead = web("lead")
    lead.command(type="start_clock")
    console = console_of(app, web)
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    rounds_of(console)
    console.emit("sync", {"after": 0})
    [reply] = rounds_of(console)
    assert sorted(reply) == ["journal", "public"] and "patch" not in reply["public"]
    console.emit("sync", {"after": 0, "pictures": False})  # a gap in the journal: rows only
    [rows_only] = rounds_of(console)
    assert sorted(rows_only) == ["journal"] and rows_only["journal"]["rows"]


def test_r_a_page_that_is_not_a_facilitator_gets_no_journal_rows_however_it_asks(app, web, tokens):
    """`journal: true` only picks the console's room for a logged-in page: a big screen, a team phone or an
    anonymous page asking for it still gets the public picture (and a phone its own team's) only."""
    lead = web("lead")
    lead.command(type="start_clock")
    io = socketio_of(app)
    asking = {"tv": io.test_client(app, auth={"display": True, "rounds": 1, "journal": True, "after": 0}),
              "phone": io.test_client(app, auth={"team": tokens["blue"], "rounds": 1, "journal": True, "after": 0}),
              "anonymous": io.test_client(app, auth={"rounds": 1, "journal": True, "after": 0})}
    for client in asking.values():
        rounds_of(client)
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    for name, client in asking.items():
        client.emit("sync", {"after": 0})
        messages = rounds_of(client)
        assert messages and all("journal" not in m for m in messages), name


def test_r_a_page_closed_by_an_emit_in_the_middle_of_a_round_is_skipped_and_the_others_get_theirs(
        app, web, tokens, monkeypatch):
    """python-engineio may close a page whose pings stopped inside an emit, on the broadcaster's thread; the
    page's on_disconnect forgets it there (a KeyError then failed every round of a failover)."""
    lead = web("lead")
    lead.command(type="start_clock")
    io = socketio_of(app)
    phones = [io.test_client(app, auth={"team": tokens["blue"], "rounds": 1}) for _ in range(3)]
    for phone in phones:
        rounds_of(phone)
    sender = app.extensions["terrabank_broadcaster"]
    doomed = list(sender._holds)[1]  # the middle phone
    emit, failures = sender.socketio.emit, []
    monkeypatch.setattr(app.logger, "exception", lambda *a, **k: failures.append(a))

    def closing_emit(*args, **kwargs):
        sender.forget(doomed)  # as on_disconnect does, under the same (reentrant) lock, mid-round
        return emit(*args, **kwargs)

    monkeypatch.setattr(sender.socketio, "emit", closing_emit)
    lead.command(type="harvest", team="blue", card="harvester-1", resource="water")
    monkeypatch.setattr(sender.socketio, "emit", emit)
    lead.command(type="harvest", team="blue", card="harvester-2", resource="water")
    assert failures == []
    assert doomed not in sender._holds
    for phone in (phones[0], phones[2]):
        messages = rounds_of(phone)
        assert len(messages) == 2 and all("team" in m for m in messages)
    assert len(rounds_of(phones[1])) == 1, "a page the bank forgot gets no patch of a picture it may not hold"
