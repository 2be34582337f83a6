"""Security review: the bank attacked as a facilitator or a player with bad intent would, and in parallel.

Part 1 holds the defects the review (session 22) confirmed, fixed since: each test failed on
the code it was written against and says, in its docstring, the attack, what happened then and
what a user should see. Part 2 holds attacks the bank resisted already that no other test covered.
"""

from __future__ import annotations

import threading
import time

import pytest

from bank.web.push import live
from live_kit import live_client
from conftest import WebClient
from clock_kit import Clocks
from security_kit import refusal, services, snapshot

DAY = 86400.0
PIRATES = {"type": "fight", "attacker_team": "blue", "attacker_card": "pirate-1", "defender_team": "red",
           "defender_card": "pirate-1", "tokens": {}}
HARVEST = {"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"}


def at_once(*calls, timeout: float = 30.0) -> list:
    """Run the calls in threads released together (two facilitators pressing at the same moment);
    their results in order. An exception in a call is raised here, not lost in its thread."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout)
            results[i] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def answer(reply) -> tuple:
    """(status, JSON) of a test-client reply, read in the thread that made it."""
    return reply.status_code, reply.get_json()


def received(sock) -> list:
    """What the server sent this socket since the last call, also after the server closed it."""
    return sock.received()  # tests/live_kit.py: a round's parts unfolded


# =====================================================================================================
# Part 1: confirmed defects, fixed (these tests failed before the fixes)
# =====================================================================================================

def test_r34_a_clock_set_forward_by_over_a_month_logs_no_facilitator_out(tmp_path, config, monkeypatch):
    """Attack/fault: the Pi has no battery clock and boots with the date it was last switched off,
    here 40 days ago (it sat in a drawer since the last game). The facilitators log in and start
    the game; then the lead sets the right date (or the travel router's NTP does), +40 days.

    Before the fix: the bank holds the game as R34 says, but every facilitator is logged out at once: the
    session cookie carries the machine's time at log-in (bank/web/access/cookie_session.py,
    CookieSigner.dumps/loads with time.time) and Flask refuses it as older than its 31-day
    lifetime, so the lead's next request is 401 and Resume needs a new log-in on every device.

    Expected: "No session, game or cooldown ends because of a wrong clock" (README): the lead,
    still logged in, reads what was seen and presses Resume.
    """
    from bank.web import create_app
    from bank.web.access import cookie_session

    clocks = Clocks()
    monkeypatch.setattr(time, "time", clocks.wall)  # the whole process sees the machine's clock
    # The signer read time.time when the module was imported (its default argument): it reads it too.
    monkeypatch.setattr(cookie_session.CookieSigner.__init__, "__defaults__", (clocks.wall,))
    app = create_app({"DB": tmp_path / "drawer.db", "CONFIG": config, "TESTING": True,
                      "PASSWORD_HASH": "pbkdf2:sha256:1000", "CLOCKS": (clocks.wall, clocks.mono)})
    s = services(app)
    try:
        s.access.add_user("lea", "correct horse", "lead")
        lead = WebClient(app.test_client())
        assert lead.login("lea").status_code == 200
        assert lead.command(type="start_clock").status_code == 200
        clocks.run(60)
        clocks.jump(40 * DAY)  # the date is put right
        assert s.bank.watch_clock() is not None and s.bank.state.clock["status"] == "paused"  # held (R34)
        assert lead.client.get("/api/state").status_code == 200, "the lead was logged out by the clock"
        assert lead.command(type="resume").status_code == 200
    finally:
        s.bank.close()
        s.access.close()


@pytest.mark.parametrize("second", ["demotes", "deletes"])
def test_two_leads_changing_each_other_at_once_never_leave_the_game_without_a_lead(web, app, monkeypatch, second):
    """Attack/race: the game has two leads, "lead" and "ana". At the same moment "lead" makes ana a
    banker on the admin page, and ana makes "lead" a banker (or deletes the "lead" account).

    Before the fix: both requests get 200 and the game has no lead left: nobody can resume the clock,
    award points or end the game until someone runs `terrabank user` on the machine. The
    "only lead" check of POST /api/accounts (bank/web/field/account_routes.py, account_save) reads the
    accounts first and writes later, so two requests both see two leads; only
    Access.remove_user makes its check and its write one statement.

    Expected: one of the two changes goes through, the other is refused with 409 last_lead,
    and one lead is left (docs/API.md: 409 last_lead).
    """
    access = services(app).access
    access.add_user("ana", "correct horse", "lead")
    lead, ana = web("lead"), web()
    assert ana.login("ana").status_code == 200
    users, barrier = access.users, threading.Barrier(2, timeout=5)

    def both_read_first():  # the two requests read the accounts before either writes
        rows = users()
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        return rows
    monkeypatch.setattr(access, "users", both_read_first)
    to_banker = {"role": "banker", "password": "a new password", "again": "a new password"}

    def post(client, path, body):
        return lambda: answer(client.client.post(path, json=body, headers={"X-CSRF-Token": client.csrf}))
    if second == "demotes":
        other = post(ana, "/api/accounts", {"username": "lead", **to_banker})
    else:
        other = post(ana, "/api/accounts/delete", {"username": "lead"})
        # The demotion hashes a password before it writes (scrypt: a tenth of a second or more on a Pi);
        # the delete is one statement, so it lands first: that order, made certain here.
        deleted, remove, put = threading.Event(), access.remove_user, access._put_user

        def remove_then_tell(username):
            try:
                return remove(username)
            finally:
                deleted.set()

        def put_after_the_delete(*args):
            deleted.wait(5)
            return put(*args)
        monkeypatch.setattr(access, "remove_user", remove_then_tell)
        monkeypatch.setattr(access, "_put_user", put_after_the_delete)
    results = at_once(post(lead, "/api/accounts", {"username": "ana", **to_banker}), other)
    leads = [row["username"] for row in users() if row["role"] == "lead"]
    assert leads, f"no lead left: {results}"
    assert sorted(status for status, _ in results) == [200, 409]


def test_r19_r31_undoing_a_mistaken_fight_ends_its_waits_and_lets_the_right_result_be_recorded(web, app):
    """Attack/fault: at the fight area the referee taps the wrong winner (blue's pirate instead of
    red's); the banker undoes the entry (R31: a mistaken booking is undone by a reversing entry),
    and the referee records the right result.

    Before the fix: the reversal moves tokens back but keeps the cooldowns of the undone fight
    (bank/game/rules/reversal.py lists "cooldown" among the events with "nothing to undo"): the fight
    screen and both phones still show the two pirates waiting 30 s and 60 s, and the right result
    is refused with 409 card_cooling_down for up to a minute (recorded after that minute, both
    pirates wait a minute longer than R19 says). Same for a fight booked on the wrong card: a
    player who never fought is shown waiting and refused.

    Expected: undoing a fight also ends the waits it started (each cooldown whose end is still the
    one this fight set goes back to "free now"), so the right result is recorded at once.
    """
    lead, referee, banker = web("lead"), web("referee"), web("banker")
    assert lead.command(type="start_clock").status_code == 200
    wrong = referee.command(**PIRATES, winner="attacker")
    assert wrong.status_code == 200
    assert banker.command(type="reverse", seq=wrong.get_json()["seq"], reason="wrong winner tapped").status_code == 200
    waits = web().client.get("/api/public").get_json()["cooldowns"]
    assert waits["blue"] == {} and waits["red"] == {}, f"the undone fight still holds players back: {waits}"
    right = referee.command(**PIRATES, winner="defender")
    assert right.status_code == 200, right.get_json()


def test_r14_undoing_a_harvest_of_the_wrong_resource_lets_the_right_one_be_booked():
    """Attack/fault (with R14's minimum interval switched on in config.toml): the banker books
    blue's harvester as flora instead of water, undoes it at once and books water.

    Before the fix: the undone harvest still counts as the card's last harvest (bank/game/rules/reversal.py keeps
    "harvested"), so the correction is refused with harvest_too_soon for the whole interval
    (118 s here) and the phone shows "harvested 2 s ago" for a harvest that was undone.

    Expected: undoing a harvest gives the card back the last harvest it had before it, so the
    right booking goes through at once.
    """
    from play import Game, config_with

    g = Game(config_with(("min_interval_seconds = 0", "min_interval_seconds = 120")))
    g.do(type="harvest", team="blue", card="harvester-1", resource="flora")
    g.do(type="reverse", seq=g.rows[-1]["seq"], reason="it was water, not flora")
    g.wait(2)
    g.do(type="harvest", team="blue", card="harvester-1", resource="water")  # raises harvest_too_soon today
    assert g.stock("blue") == {"water": 6}


def test_log_ins_and_log_outs_beside_commands_and_phones_never_answer_busy(web, app, tokens):
    """Load: two devices logging in and out in a loop while two consoles book harvests and a phone
    polls its team's page, for four seconds (longer on a loaded machine, until 8 log-ins and log-outs).

    Before the fix: the accounts' connection (shared by every thread, and by the sessions) let a
    write start inside another thread's read whose snapshot was out of date; SQLite refused it,
    and a log-out answered 503 database_busy, or a log-in waited the 5 s busy timeout (2 to 10
    log-ins in four seconds).

    Expected: every request answered, none busy, and no log-in or log-out waiting anywhere near the
    busy timeout. (Counted in time, not in a number per four seconds: beside busy loops a loaded
    machine made 14-18 of them, each quick, and the count alone failed 4 runs in 20.)
    """
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    stop, problems, done, slowest = threading.Event(), [], [], [0.0]
    consoles, phone = [web("lead") for _ in range(2)], app.test_client()

    def timed(request):
        started = time.monotonic()
        reply = request()
        slowest[0] = max(slowest[0], time.monotonic() - started)
        return reply

    def log_in_and_out():
        device = web()
        for name, reply in (("log-in", timed(lambda: device.login("banker"))),
                            ("log-out", timed(lambda: device.client.post(
                                "/api/logout", headers={"X-CSRF-Token": device.csrf})))):
            if reply.status_code != 200:
                problems.append((name, reply.status_code, reply.get_json()))
        done.append(1)

    def harvest():
        for console in consoles:
            reply = console.command(**HARVEST)
            if reply.status_code != 200:
                problems.append(("harvest", reply.status_code, reply.get_json()))

    def poll():
        reply = phone.get(f"/api/team/{tokens['blue']}")
        if reply.status_code != 200:
            problems.append(("phone", reply.status_code))

    def loop(step):
        try:
            while not stop.is_set():
                step()
        except BaseException as exc:  # noqa: BLE001 - reported below
            problems.append(repr(exc))

    threads = [threading.Thread(target=loop, args=(step,)) for step in (log_in_and_out, log_in_and_out, harvest, poll, poll)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(4)
    # At least 8 log-ins and log-outs beside the commands, however long a loaded machine takes to make
    # them: beside busy loops at load 24-47, four seconds made 5 to 7, none busy, none slow.
    while len(done) < 8 and time.monotonic() - started < 40:
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(15)
    took = time.monotonic() - started
    assert not problems, problems[:3]
    # The busy timeout is 5 s: a log-in that waited for it took at least that (2 to 10 of them in four seconds).
    assert slowest[0] < 2.5, f"a log-in or log-out took {slowest[0]:.1f} s ({len(done)} in {took:.0f} s)"
    assert len(done) >= 8, f"only {len(done)} log-ins and log-outs in {took:.0f} s"


# =====================================================================================================
# Part 2: attacks the bank already resisted (not covered by another test)
# =====================================================================================================

def test_one_idempotency_key_sent_with_six_different_commands_at_once_books_one(web, app):
    """Six consoles send the same Idempotency-Key with six different harvests at the same moment:
    exactly one is booked, the five others get 409 id_conflict, and the journal replays."""
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    devices = [web("banker") for _ in range(6)]
    contents = [{"type": "harvest", "team": team, "card": card, "resource": "water"}
                for team in ("blue", "red", "green") for card in ("harvester-1", "harvester-2")]
    results = at_once(*[lambda d=d, c=c: answer(d.command(key="one-key", **c)) for d, c in zip(devices, contents)])
    booked = [body for status, body in results if status == 200]
    assert len(booked) == 1 and booked[0]["duplicate"] is False
    assert sorted(body["error"]["code"] for status, body in results if status != 200) == ["id_conflict"] * 5
    rows = [row for row in services(app).bank.journal_rows(0) if row["command_id"] == "one-key"]
    assert len(rows) == 1 and services(app).bank.verify() == []


def test_a_double_tap_sent_six_times_at_once_books_once(web, app):
    """The same command with the same key, six times at once (a double tap and the page's retries):
    one booking, every reply names the same entry, five say duplicate."""
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    banker = web("banker")
    before = services(app).bank.state.stock("blue")["water"]
    devices = [banker] + [web("banker") for _ in range(5)]  # the same account on six tablets: the same actor
    results = at_once(*[lambda d=d: answer(d.command(key="tap", **HARVEST)) for d in devices])
    assert {status for status, _ in results} == {200}
    assert len({body["seq"] for _, body in results}) == 1
    assert sorted(body["duplicate"] for _, body in results) == [False] + [True] * 5
    assert services(app).bank.state.stock("blue")["water"] == before + 1


def test_two_facilitators_undoing_the_same_entry_at_once_undo_it_once(web, app):
    """The lead and the banker both press "undo" on the same harvest at the same moment (two keys):
    one reversal, the other 409 already_reversed; the tokens go back once."""
    lead, banker = web("lead"), web("banker")
    assert lead.command(type="start_clock").status_code == 200
    before = services(app).bank.state.stock("blue")
    seq = banker.command(**HARVEST).get_json()["seq"]
    results = at_once(*[lambda c=c: answer(c.command(type="reverse", seq=seq, reason="wrong team")) for c in (lead, banker)])
    assert sorted(status for status, _ in results) == [200, 409]
    assert [body["error"]["code"] for status, body in results if status == 409] == ["already_reversed"]
    assert services(app).bank.state.stock("blue") == before and services(app).bank.verify() == []


def test_r19_two_referees_recording_the_same_fight_at_once_book_it_once(web, app):
    """Two tablets at the fight area record the same fight at the same moment (each its own key):
    the first books it, the second is refused because the pirates now wait (R19)."""
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    tablets = [web("referee"), web("referee")]
    results = at_once(*[lambda t=t: answer(t.command(**PIRATES, winner="attacker")) for t in tablets])
    assert sorted(status for status, _ in results) == [200, 409]
    assert [body["error"]["code"] for status, body in results if status == 409] == ["card_cooling_down"]
    assert sum(row["type"] == "fight" for row in services(app).bank.journal_rows(0)) == 1


@pytest.mark.parametrize("disguised", ["as text", "as a decimal", "in a list", "in an object"])
def test_a_banker_cannot_undo_the_leads_award_by_disguising_the_entry_number(web, app, disguised):
    """The undo right is checked only for a plain whole entry number (service._check_undo leaves
    anything else to the rules): a banker sending the award's number as "5", 5.0, [5] or {"seq": 5}
    must be refused by the rules, never reach the award."""
    lead, banker = web("lead"), web("banker")
    assert lead.command(type="start_clock").status_code == 200
    seq = lead.command(type="award", team="red", points=3, reason="fair play").get_json()["seq"]
    value = {"as text": str(seq), "as a decimal": float(seq), "in a list": [seq], "in an object": {"seq": seq}}[disguised]
    before = snapshot(app)
    reply = banker.command(type="reverse", seq=value, reason="oops")
    assert reply.status_code == 400 and refusal(reply)["code"] == "not_a_whole_number"
    assert snapshot(app) == before and services(app).bank.state.reputation["red"] == 3


def test_a_phone_cannot_ask_for_another_teams_view_by_naming_its_link_in_sync(app, web, tokens):
    """Red's phone sends `sync` naming blue's link: it gets red's own view (the team it joined with),
    never blue's stock, and no journal."""
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    red = live_client(app, auth={"team": tokens["red"]})
    try:
        red.get_received()
        red.emit("sync", {"team": tokens["blue"], "after": 0})
        got = red.get_received()
        views = [m["args"][0]["view"]["team"] for m in got if m["name"] == "team"]
        assert views == ["red"] and "journal" not in {m["name"] for m in got}
    finally:
        red.disconnect()


def test_a_phone_whose_link_was_replaced_elsewhere_gets_no_team_view_and_is_cut_at_the_sweep(app, web, tokens, tmp_path):
    """Blue's link is replaced by another process of the game, so this process cut no
    socket: the old phone's `sync` gets the public picture only, and the ticker's sweep cuts it
    with link_replaced; blue's next harvest does not reach it."""
    from bank.store.accounts.access import Access

    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    phone = live_client(app, auth={"team": tokens["blue"]})
    phone.get_received()
    elsewhere = Access(tmp_path / "web.db", hash_method="pbkdf2:sha256:1000")
    try:
        elsewhere.rotate("blue")
    finally:
        elsewhere.close()
    phone.emit("sync", {"after": 0})
    assert "team" not in {m["name"] for m in phone.get_received()}
    assert live.sweep(app) == 1
    assert [m["args"][0] for m in received(phone) if m["name"] == "link_replaced"] == [{"reason": "rotated"}]
    assert not phone.is_connected()
    assert lead.command(**HARVEST).status_code == 200
    assert received(phone) == []


def test_a_facilitators_own_good_log_in_does_not_reset_their_guesses_at_the_leads_password(web):
    """An insider (the referee) guesses the lead's password from their tablet and logs into their own
    account between guesses, hoping the success resets the count: the per-username count of "lead" on
    that device is not touched, so the fifth guess locks "lead" there, the right password included."""
    from bank.web.access import auth

    insider = web()

    def log_in(username, password):
        return insider.client.post("/api/login", json={"username": username, "password": password},
                                   headers={"X-CSRF-Token": insider.csrf}, environ_base={"REMOTE_ADDR": "10.0.0.77"})
    for attempt in range(auth.MAX_FAILURES):
        assert log_in("lead", f"guess {attempt}").status_code == 401
        reply = log_in("referee", "correct horse")
        assert reply.status_code == 200
        insider.csrf = reply.get_json()["csrf"]
    reply = log_in("lead", "correct horse")
    assert reply.status_code == 429 and refusal(reply)["code"] == "locked_out"
