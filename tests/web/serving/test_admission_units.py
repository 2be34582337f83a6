"""The parts of admission by authority without a server: who a request is (identity.py), live
slots by secret (admission.py), the big screen's key and its link, and the limits (limits.py).

The attacks themselves, on a real server: tests/web/serving/test_admission.py.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bank.web.serving import server
from test_serving import wait_until


def test_the_big_screen_link_is_the_leads_and_a_replaced_one_is_cut_and_refused(app, web):
    from live_kit import live_client

    assert web().client.get("/api/display/link").status_code == 401
    assert web("banker").client.get("/api/display/link").status_code == 403
    lead = web("lead")
    link = lead.client.get("/api/display/link").get_json()
    key = link["key"]
    assert link["path"] == f"/display?key={key}" and len(key) >= 16
    screen = live_client(app, auth={"display": True, "key": key})
    assert screen.is_connected()
    assert not live_client(app, auth={"display": True, "key": "not-the-key"}).is_connected()
    anonymous = live_client(app, auth={"display": True})  # without a key: still served (anonymous pool)
    assert anonymous.is_connected()
    assert lead.client.post("/api/display/rotate").status_code == 403  # no CSRF token
    new = lead.client.post("/api/display/rotate", headers={"X-CSRF-Token": lead.csrf}).get_json()["key"]
    assert new != key and lead.client.get("/api/display/link").get_json()["key"] == new
    assert not screen.is_connected() and anonymous.is_connected()  # the old link's screen was cut (link_replaced)
    assert not live_client(app, auth={"display": True, "key": key}).is_connected()
    assert live_client(app, auth={"display": True, "key": new}).is_connected()


def test_a_request_is_named_by_its_secret_never_by_what_it_claims(app, web, tokens):
    from werkzeug.test import EnvironBuilder

    from bank.web.serving.identity import Identify, display_name, team_name

    who = Identify(app)
    key = app.extensions["terrabank"].access.display_key()
    lead = web("lead")

    def named(path, query="", cookie=""):
        headers = {"Cookie": cookie} if cookie else {}
        return who(EnvironBuilder(path=path, query_string=query, headers=headers).get_environ())

    # Named per link: the team and a fingerprint of the link, never the link itself.
    blue = named("/socket.io/", f"EIO=4&transport=websocket&team={tokens['blue']}")
    assert blue == team_name("", "blue", tokens["blue"]) and blue.startswith("/team/blue#") and tokens["blue"] not in blue
    assert named(f"/t/{tokens['red']}") == named(f"/api/team/{tokens['red']}") == team_name("", "red", tokens["red"])
    assert named("/socket.io/", f"EIO=4&key={key}") == display_name("", key)
    session = lead.client.get_cookie("session")
    assert named("/api/commands", cookie=f"session={session.value}").startswith("/session/")
    for anonymous in [("/socket.io/", "EIO=4&team=made-up"), ("/t/made-up", ""), ("/socket.io/", "key=guess"),
                      ("/api/login", ""), ("/display", "display=true")]:
        assert named(*anonymous) is None, anonymous
    assert named("/api/commands", cookie="session=forged.value.sig") is None


def test_each_secret_has_its_own_live_slots_and_the_anonymous_share_is_small():
    from bank.web.serving.admission import LiveSlots

    release = threading.Event()

    def held(environ, start_response):
        release.wait(10)  # a WebSocket's life
        return [b""]

    replies = []
    slots = LiveSlots(held, 5, anonymous=1, per_secret=2, identify=lambda environ: environ.get("who"))

    def live(who=None) -> threading.Thread:
        environ = {"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "HTTP_UPGRADE": "websocket", "who": who}
        thread = threading.Thread(target=slots, args=(environ, lambda status, headers: replies.append(status)))
        thread.start()
        return thread

    pages = [live(), live("blue"), live("blue"), live("red")]
    assert wait_until(lambda: slots.held == 4, 5)
    for refused in (live(), live("blue")):  # the anonymous share is full; so is blue's
        refused.join(5)
    assert replies == ["503 Service Unavailable"] * 2 and slots.held == 4
    pages.append(live("red"))  # red still has its own
    assert wait_until(lambda: slots.held == 5, 5)
    release.set()
    for page in pages:
        page.join(5)
    assert slots.held == 0 and slots.held_anonymous == 0 and slots.by_secret == {}


def test_in_a_browser_the_admin_page_gives_the_screen_its_link_and_screen_and_phone_hold_their_own_slots(app, tokens,
                                                                                                      chromium):
    """The pages themselves: the big-screen link read from the admin page, and the phone's page, are admitted by
    their secret (the socket's query, static/js/live.js), never from the anonymous share."""
    import re

    import browserkit

    sync_api = pytest.importorskip("playwright.sync_api")
    url, _port = browserkit.serve_in_thread(app)
    context = chromium.new_context()
    try:
        admin = context.new_page()
        admin.goto(url + "/login")
        admin.fill("#username", "lead")
        admin.fill("#password", "correct horse")
        admin.click("#login-submit")
        admin.wait_for_url(re.compile(r".*/console$"))
        admin.goto(url + "/admin")
        link = admin.locator("#display-link a")
        sync_api.expect(link).to_contain_text("/display?key=", timeout=10000)
        screen = context.new_page()
        # The link names the address the phones use (the network's); this server listens on loopback only.
        screen.goto(url + "/display?" + link.get_attribute("href").split("/display?", 1)[1])
        phone = context.new_page()
        phone.goto(f"{url}/t/{tokens['blue']}")
        for page in (screen, phone):
            sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=15000)
        slots = app.extensions["terrabank_live_slots"]
        assert wait_until(lambda: {n.partition("#")[0] for n in slots.by_secret} >= {"/display", "/team/blue"}, 10), \
            slots.by_secret
        assert slots.held_anonymous == 0  # the admin page's own socket rides on the lead's session
    finally:
        context.close()
        browserkit.stop_servers()


def test_a_hosted_game_names_its_own_links_and_not_another_games(tmp_path):
    """serve --games: /g/<name>/... is read against that game's links and key, never the host's."""
    from werkzeug.test import EnvironBuilder

    from bank.web import create_app
    from bank.web.serving.identity import Identify, display_name, team_name

    config = str(Path(__file__).resolve().parents[3] / "config.toml")
    host = create_app({"DB": tmp_path / "host.db", "CONFIG": config, "TESTING": True,
                       "PASSWORD_HASH": "pbkdf2:sha256:1000", "GAMES_DIR": str(tmp_path / "games")})
    games = host.extensions["terrabank_hosted"]
    try:
        games.create("camp")
        camp = games.app("camp").extensions["terrabank"].access
        who = Identify(host)

        def named(path, query=""):
            return who(EnvironBuilder(path=path, query_string=query).get_environ())

        token, host_token = camp.team_tokens()["blue"], host.extensions["terrabank"].access.team_tokens()["blue"]
        assert named(f"/g/camp/t/{token}") == named("/g/camp/socket.io/", f"team={token}") == team_name("camp", "blue", token)
        assert named("/g/camp/socket.io/", f"key={camp.display_key()}") == display_name("camp", camp.display_key())
        assert named(f"/t/{host_token}") == team_name("", "blue", host_token)
        assert named(f"/g/camp/t/{host_token}") is None and named(f"/t/{token}") is None
        assert named(f"/g/nowhere/t/{token}") is None
    finally:
        for app in [host, *games._apps.values()]:
            app.extensions["terrabank"].bank.close()


def test_another_games_lead_cannot_fill_the_hosts_leads_lane_for_bodies(tmp_path):
    """serve --games: each game has a "lead" account. A trusted device's body draws on its account's lane
    (body_pools.py), `trusted_bodies` at once. Before, the lane was named by the account alone, so the lead of
    a hosted game (anyone the host's lead gave a game to), logging in on their own game with their own device
    cookie, held "lead"'s lane, and the host's lead's tablet got 503 "busy". Now a lane is the game's and the
    account's."""
    from werkzeug.test import EnvironBuilder

    from bank.web import create_app
    from bank.web.serving.admission import LiveSlots
    from bank.web.serving.identity import Identify

    config = str(Path(__file__).resolve().parents[3] / "config.toml")
    host = create_app({"DB": tmp_path / "host.db", "CONFIG": config, "TESTING": True,
                       "PASSWORD_HASH": "pbkdf2:sha256:1000", "GAMES_DIR": str(tmp_path / "games")})
    games = host.extensions["terrabank_hosted"]
    try:
        host.extensions["terrabank"].access.add_user("lead", "the host's password", "lead")
        made = games.create("camp")

        def device_cookie(app, password, root="") -> str:
            client, base = app.test_client(), f"http://localhost{root}"  # a hosted game's cookies are under its path
            csrf = client.get("/api/csrf", base_url=base).get_json()["csrf"]
            reply = client.post("/api/login", json={"username": "lead", "password": password},
                                headers={"X-CSRF-Token": csrf}, base_url=base)
            assert reply.status_code == 200, reply.get_json()
            return next(c.split(";")[0] for c in reply.headers.getlist("Set-Cookie") if "-device=" in c)

        camps, hosts = device_cookie(games.app("camp"), made.lead_password, "/g/camp"), device_cookie(host, "the host's password")
        release, started = threading.Event(), threading.Semaphore(0)

        def inner(environ, start_response):  # a log-in's work: the camp lead's are held until released
            if environ["PATH_INFO"].startswith("/g/camp/"):
                started.release()
                release.wait(10)
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok"]

        slots = LiveSlots(inner, 100, identify=Identify(host), anonymous_bodies=25, trusted_bodies=2)

        def log_in(path, cookie) -> list:
            environ = EnvironBuilder(path=path, method="POST", data=b"{}", headers={"Cookie": cookie}).get_environ()
            statuses = []
            slots(environ, lambda status, headers, exc_info=None: statuses.append(status))
            return statuses

        camp_lead = [threading.Thread(target=log_in, args=("/g/camp/api/login", camps)) for _ in range(2)]
        for thread in camp_lead:
            thread.start()
        try:
            assert started.acquire(timeout=10) and started.acquire(timeout=10)  # the camp lead holds 2 log-ins
            assert log_in("/api/login", hosts) == ["200 OK"]  # before: 503 busy (the lane "lead" was full)
            assert log_in("/g/camp/api/login", camps)[0].startswith("503")  # the camp lead's own lane is full
        finally:
            release.set()
            for thread in camp_lead:
                thread.join(10)
    finally:
        for app in [host, *games._apps.values()]:
            app.extensions["terrabank"].bank.close()


def test_fd_limit_is_raised_or_the_caps_shrink_with_a_warning(monkeypatch):
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 1024))
    monkeypatch.setattr(resource, "setrlimit", lambda *_: None)
    limits, warning = server.fit_limits(server.Limits())
    assert limits.max_connections == 768 and limits.per_address <= 192
    assert "LimitNOFILE" in warning
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 65536))
    limits, warning = server.fit_limits(server.Limits())
    assert limits == server.Limits() and warning is None


def test_a_trias_seat_is_named_by_its_link_and_a_made_up_one_reads_nothing(app, monkeypatch):
    """A seat's phone holds slots of its own, like a team's; a guessed link stays anonymous and
    is answered from the games' index, without reading the store (guessing makes the server do nothing)."""
    from werkzeug.test import EnvironBuilder

    from bank.web.serving.identity import Identify

    games = app.extensions["trias_games"]
    game = games.create([{"name": "Ana", "kind": "human"}, {"name": "Ben", "kind": "human"}], seed=5)
    token = game.seats[0]["token"]
    who = Identify(app)

    def named(path, query=""):
        return who(EnvironBuilder(path=path, query_string=query).get_environ())

    seat = named("/socket.io/", f"EIO=4&transport=websocket&seat={token}")
    assert seat is not None and seat.startswith("/hook/trias-seat/") and token not in seat
    assert named(f"/trias/s/{token}") == named(f"/trias/api/s/{token}/commands") == seat
    assert named("/socket.io/", f"EIO=4&seat={game.seats[1]['token']}") != seat  # each seat its own slots
    monkeypatch.setattr(games, "_all", lambda: pytest.fail("a guessed link read the store"))
    for guess in [("/socket.io/", "EIO=4&seat=" + "x" * 22), ("/trias/s/" + "y" * 22, ""), ("/trias/g/abc", "")]:
        assert named(*guess) is None, guess


def test_handshakes_are_counted_by_pool_so_strangers_cannot_pile_up_sessions():
    """Before: a new page's handshake was answered whenever the live slots were not full, and each makes an
    Engine.IO session that lives about 20 s with nothing more from its client: 800 handshakes a second from 4
    addresses with no secret held some 20,000 sessions, the worker from 198 to 383 MB. Now at most
    OPENS_PER_SLOT times a pool's share in OPEN_SECONDS; the lead's secrets keep their own."""
    from bank.web.serving import opens
    from bank.web.serving.admission import LiveSlots

    answered = []

    def engine_io(environ, start_response):
        answered.append(environ.get("who"))
        start_response("200 OK", [])
        return [b"0{}"]

    slots = LiveSlots(engine_io, 50, anonymous=2, per_secret=3, strangers=2, per_stranger_secret=1,
                      identify=lambda environ: environ.get("who"))
    now = [1000.0]
    slots.handshakes.clock = lambda: now[0]

    def open_(who=None) -> str:
        replies = []
        environ = {"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "QUERY_STRING": "EIO=4&transport=polling",
                   "who": who}
        slots(environ, lambda status, headers: replies.append(status))
        return replies[0]

    share = opens.OPENS_PER_SLOT * 2
    assert [open_() for _ in range(share)] == ["200 OK"] * share
    assert [open_() for _ in range(100)] == ["503 Service Unavailable"] * 100  # before: 100 more sessions
    seats = [open_(f"g/hook/seat-{n}") for n in range(3 * share)]  # minted seats: their pool's share, all together
    assert seats.count("200 OK") == share
    blue = [open_("g/team/blue#1") for _ in range(opens.OPENS_PER_SLOT * 3 + 1)]  # a team link: its own share
    assert blue.count("200 OK") == opens.OPENS_PER_SLOT * 3 and blue[-1].startswith("503")
    assert open_("g/team/red#2") == "200 OK"  # another link is not held back by blue's
    now[0] += opens.OPEN_SECONDS + 1
    assert open_() == "200 OK" and open_("g/team/blue#1") == "200 OK"  # a while later, again
    assert len(answered) == 2 * share + 3 * opens.OPENS_PER_SLOT + 3


def test_a_websocket_opened_without_a_handshake_is_a_handshake_of_a_strangers_pool():
    """Before: a WebSocket opened without a session (`transport=websocket`, no sid) started a page that no
    handshake counted: 8 strangers' sockets closing and opening again started 82 pages a second (35 s, 2,872
    pages, each sent the whole pictures). Our pages' client never opens one (it upgrades its long poll, with its
    sid): such opens without a secret of the lead's are now counted as the pool's handshakes are, apart from them
    and with a share of at least DIRECT_LEAST (the pool's long-polling pages keep their handshakes); upgrades
    never are."""
    from bank.web.serving import opens
    from bank.web.serving.admission import LiveSlots

    def engine_io(environ, start_response):
        start_response("200 OK", [])
        return [b""]

    slots = LiveSlots(engine_io, 500, anonymous=2, per_secret=3, identify=lambda environ: environ.get("who"))

    def socket_(query: str, who=None) -> str:
        replies = []
        environ = {"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "HTTP_UPGRADE": "websocket",
                   "QUERY_STRING": f"EIO=4&transport=websocket{query}", "who": who}
        slots(environ, lambda status, headers: replies.append(status))
        return replies[0]

    share = opens.OPENS_PER_SLOT * opens.DIRECT_LEAST  # the anonymous share is 2: counted as DIRECT_LEAST
    opened = [socket_("") for _ in range(share + 50)]
    assert opened.count("200 OK") == share and opened[-1].startswith("503")  # before: every one answered
    assert [socket_(f"&sid=page{n}") for n in range(20)] == ["200 OK"] * 20  # upgrades of open pages: never counted
    assert [socket_("", "g/team/blue#1") for _ in range(20)] == ["200 OK"] * 20  # the lead's secrets: their slots
    handshake = []
    slots({"PATH_INFO": "/socket.io/", "REQUEST_METHOD": "GET", "QUERY_STRING": "EIO=4&transport=polling"},
          lambda status, headers: handshake.append(status))
    assert handshake == ["200 OK"]  # a long-polling page without a secret still gets in
