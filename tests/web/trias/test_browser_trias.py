"""Trias at the table in real Chromium: a whole game against the computer, phones that see only
their own card, the mirror tablet refusing an illegal drift (T10), a server restart mid-turn.

Needs Playwright's Python package and Debian's Chromium (skipped without them). Waits are on
what the page shows (its journal number, its phase), never on fixed times.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import sys
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, page_opener, serve_in_thread  # noqa: E402

import trias  # noqa: E402
from trias.hexes import distance, neighbours  # noqa: E402

pytestmark = needs("playwright", "chromium")

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
PHONE = {"width": 360, "height": 740}
TABLET = {"width": 1280, "height": 800}
WAIT = 60_000  # ms; a loaded CI machine may be slow, nothing here waits this long when all is well


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app with its computer player (moves 0.05 s apart) on 127.0.0.1."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("trias")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(ROOT / "config.toml"),
                      "TRIAS_COMPUTER": True, "TRIAS_PACE": 0.05})
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def pages(chromium):
    """Opens pages in their own contexts; the test fails on any uncaught script error."""
    with page_opener(chromium) as open_page:
        yield lambda viewport=PHONE, **options: open_page(viewport=viewport, **options)


def seq_of(page) -> int:
    return int(page.evaluate("() => +document.body.dataset.seq || 0"))


def wait_seq(page, at_least: int) -> None:
    page.wait_for_function(f"() => (+document.body.dataset.seq || 0) >= {at_least}", timeout=WAIT)


def no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), page.url


def test_t9_t18_a_human_plays_the_easy_computer_through_the_list_of_moves_to_the_final_score(server, pages):
    app, url = server
    start = pages(PHONE)
    start.goto(url + "/trias/")
    no_sideways_scroll(start)
    start.fill("#seats li:nth-child(1) [name=name]", "Ana")
    start.fill("#seed", "11")
    start.click("#create")
    start.wait_for_url("**/trias/g/*", timeout=WAIT)
    game = app.extensions["trias_games"].get(start.url.rsplit("/", 1)[1])
    assert [s["kind"] for s in game.seats] == ["human", "computer"] and game.seats[1]["level"] == "easy"
    no_sideways_scroll(start)
    phone = pages(PHONE)
    phone.goto(f"{url}/trias/s/{game.seats[0]['token']}")
    phone.click("#moves-toggle")  # the list of moves: the fallback for screen readers and keyboards
    for _ in range(400):
        phone.wait_for_function("() => document.body.dataset.phase === 'over' || document.body.dataset.myturn === '1'", timeout=WAIT)
        if phone.evaluate("() => document.body.dataset.phase") == "over":
            break
        before = seq_of(phone)
        buttons = phone.locator("#moves button")
        preferred = [b for b in ("end_turn", "draw") if phone.locator(f"#moves button[data-type={b}]").count()]
        (phone.locator(f"#moves button[data-type={preferred[0]}]") if preferred else buttons.first).click()
        wait_seq(phone, before + 1)
    assert game.state.phase == "over"
    sync_api.expect(phone.locator("#end-panel")).to_be_visible(timeout=WAIT)
    winners = [game.seats[s]["name"] for s in game.state.result["winners"]]
    sync_api.expect(phone.locator(".trias-winner")).to_contain_text(winners[0])
    sync_api.expect(start.locator("#end-panel .trias-final")).to_be_visible(timeout=WAIT)
    rows = start.locator("#end-panel .trias-final tbody tr")
    assert rows.count() == len(game.state.result["table"]) + 2  # a line per land mass (T18), the interim scorings, the totals
    total = rows.last.inner_text()
    assert all(str(points) in total for points in game.state.score)
    no_sideways_scroll(phone)
    no_sideways_scroll(start)


def _frames(page) -> list:
    """Every Socket.IO message the page receives (WebSocket frames and long-polling answers)."""
    got = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: got.append(str(frame))))

    def on_response(response):
        if "/socket.io/" in response.url and response.request.method == "GET":
            try:
                got.append(response.text())
            except Exception:  # a poll cut short by the upgrade: nothing in it
                pass
    page.on("response", on_response)
    return got


def _hands_seen(frames: list) -> list:
    """Every `hands` list and every dealt or drawn card event in the frames."""
    text = "\n".join(frames)
    hands = [json.loads("[" + m + "]") for m in re.findall(r'"hands":\s*\[([^\]]*)\]', text)]
    events = [json.loads(m) for m in re.findall(r'\{[^{}]*"type":\s*"(?:card_dealt|hand_drawn)"[^{}]*\}', text)]
    cards = [(e["player"], e["card"]) for e in events]
    return hands, cards


def test_t7_four_seats_two_phones_each_see_only_their_own_card(server, pages):
    app, url = server
    games = app.extensions["trias_games"]
    game = games.create(seats=[{"name": "Ana", "kind": "human"}, {"name": "Bob", "kind": "human"},
                               {"name": "Cyd", "kind": "computer", "level": "easy"},
                               {"name": "Dan", "kind": "computer", "level": "random"}], seed=5)
    phones, frames = [], []
    for seat in (0, 1):
        page = pages(PHONE)
        frames.append(_frames(page))
        page.goto(f"{url}/trias/s/{game.seats[seat]['token']}")
        page.click("#moves-toggle")  # the list of moves, behind its toggle
        phones.append(page)
    for page in phones:
        wait_seq(page, game.last_seq)
    moves = 0
    while game.state.turn < 3 and moves < 60:  # both phones play their placements and first turns
        current = game.state.current
        if current in (0, 1):
            page = phones[current]
            page.wait_for_function("() => document.body.dataset.myturn === '1'", timeout=WAIT)
            before = seq_of(page)
            end = page.locator("#moves button[data-type=end_turn]")
            (end if end.count() else page.locator("#moves button").first).click()
            wait_seq(page, before + 1)
            moves += 1
        else:
            phones[0].wait_for_timeout(100)  # the computer seats play on the server, 0.05 s apart
    for seat, page in enumerate(phones):
        wait_seq(page, game.last_seq)
        card = game.state.hands[seat]
        names = {"mountain": "Montagne", "steppe": "Steppe", "woods": "Forêt", "meteorite": "Impact de météorite"}
        if card:
            sync_api.expect(page.locator("#hand")).to_have_text(names[card])
        hands, cards = _hands_seen(frames[seat])
        assert hands, "the phone's socket received its pictures"
        assert any(listed[seat] not in ("hidden", None) for listed in hands)  # its own card did come
        for listed in hands:
            assert all(h in ("hidden", None) for i, h in enumerate(listed) if i != seat)
        assert all(c == "hidden" for player, c in cards if player != seat)  # deals and draws of others
        no_sideways_scroll(page)


def tap(page, place) -> None:
    """A finger on a place of the board: whatever is drawn on top there (a cube, a highlight, the hex)."""
    page.locator(f'#board [data-place="{place[0]},{place[1]}"]').last.click()


def _bad_drift(state) -> tuple:
    """(card, tile, place): a legal tile moved to a drawn empty place no farther from the pole (T10)."""
    for kind in ("mountain", "steppe", "woods"):
        for tile, _ in trias.legal.drift_pairs(state, state.current, kind):
            for place in sorted({n for t in state.tiles for n in neighbours(t)} - set(state.tiles)):
                if distance(place) > distance(tile):
                    continue
                try:
                    trias.check(state, {"type": "play", "card": kind, "tile": list(tile), "to": list(place)})
                except trias.TriasError as exc:
                    if exc.code == "not_farther":
                        return kind, tile, place
    raise AssertionError("no such drift on this board")


def test_t10_the_mirror_tablet_refuses_a_drift_that_is_not_farther_from_the_pole(server, pages):
    app, url = server
    game = app.extensions["trias_games"].create(seats=[{"name": n, "kind": "human"} for n in ("Ana", "Bob", "Cyd")],
                                                seed=8, mode="mirror")
    keys = itertools.count()
    while game.state.phase == "place":
        game.execute(trias.legal_actions(game.state)[0], f"place-{next(keys)}", "table")
    card, tile, place = _bad_drift(game.state)
    tablet = pages(TABLET)
    tablet.goto(f"{url}/trias/g/{game.id}?t={game.table_secret}")  # the mirror tablet holds the table's link
    wait_seq(tablet, game.last_seq)
    before = game.last_seq
    tablet.click(f"#mirror button[data-kind=play][data-card={card}]")
    tap(tablet, tile)
    tap(tablet, place)
    error = tablet.locator("#error")
    sync_api.expect(error).to_be_visible(timeout=WAIT)
    sync_api.expect(error).to_contain_text("(T10)")
    sync_api.expect(error).to_contain_text("pas plus loin du pôle")  # the French page says the rule in French
    assert game.last_seq == before  # nothing recorded
    to = next(d for d in trias.legal.drift_pairs(game.state, game.state.current, card) if d[0] == tile)[1]
    tap(tablet, to)  # the same tile, still chosen, to a legal place: asked in the bar, recorded once confirmed
    confirm = tablet.locator("#actionbar [data-act=confirm]")
    sync_api.expect(confirm).to_be_visible(timeout=WAIT)
    assert game.last_seq == before
    confirm.click()
    wait_seq(tablet, before + 1)
    assert game.state.tiles.get(to) is not None and game.state.phase == "actions"
    sync_api.expect(error).to_be_hidden()


def test_t16_an_interim_scoring_is_announced_with_who_got_what(server, pages):
    app, url = server
    player = app.extensions["trias_computer"]
    # Three easy computer seats, seed 2: the first interim scoring that gives points is at
    # entry 24 (C1 +2), the next one 11 moves later (the bots' choices follow the seed).
    game = app.extensions["trias_games"].create(
        seats=[{"name": f"C{i}", "kind": "computer", "level": "easy"} for i in range(3)], seed=2)
    board = pages(TABLET)
    board.goto(f"{url}/trias/g/{game.id}")
    wait_seq(board, 1)
    player.pace = 0.3  # slow enough that the next scoring does not replace this one before it is read
    try:
        player.poke(game.id)
        announce = board.locator("#announce")
        sync_api.expect(announce).to_contain_text("C1 +2", timeout=WAIT)
        sync_api.expect(announce).to_contain_text("(T16)")
    finally:
        player.pace = 0.05


def test_a_restart_mid_turn_keeps_the_game_and_links_and_an_offline_phone_catches_up(tmp_path, pages):
    from harness import Api, Server
    from tcp_proxy import Proxy

    with Server(tmp_path).prepare().start() as server:
        api = Api(server.url)
        api.csrf = api.request("GET", "/api/csrf")[1]["csrf"]
        status, made = api.request("POST", "/trias/api/games", {"seats": [{"name": "Ana", "kind": "human"},
                                                                         {"name": "Bob", "kind": "human"}], "seed": 4})
        assert status == 201, made
        links = {s["name"]: s["link"] for s in made["seats"]}
        state, _ = trias.new_game(players=2, seed=4)
        keys = itertools.count()

        def move(command) -> dict:
            nonlocal state
            seat = state.current
            status, reply = api.request("POST", links[["Ana", "Bob"][seat]].replace("/trias/s/", "/trias/api/s/") + "/commands",
                                        command, {"Idempotency-Key": f"m{next(keys)}"})
            assert status == 200, reply
            _, state = trias.handle(state, command)
            return reply

        while state.phase == "place":
            move(trias.legal_actions(state)[0])
        move({"type": "draw"})
        if state.phase == "drift":
            move(trias.legal_actions(state)[0])
        assert state.phase == "actions"  # mid-turn: the drift is done, the action points are left
        last = move(next(c for c in trias.legal_actions(state) if c["type"] in ("move", "reproduce")))["seq"]
        assert state.phase == "actions" and state.ap > 0
        seat_link = links[["Ana", "Bob"][state.current]]
        with Proxy(server.port) as wifi:
            phone = pages(PHONE)
            phone.goto(wifi.url + seat_link)
            board = pages(TABLET)
            board.goto(server.url + made["board"])
            for page in (phone, board):
                wait_seq(page, last)
            server.kill()  # the power goes in the middle of the turn
            server.start()
            for page in (phone, board):
                sync_api.expect(page.locator("#conn-badge")).to_have_class(re.compile("badge-live"), timeout=WAIT)
                wait_seq(page, last)
            status, picture = api.request("GET", seat_link.replace("/trias/s/", "/trias/api/s/"))
            assert status == 200 and picture["seq"] == last and picture["view"]["ap"] == state.ap
            wifi.cut()  # the phone walks out of the Wi-Fi
            done = move({"type": "end_turn"})["seq"]
            wait_seq(board, done)
            assert seq_of(phone) == last
            wifi.restore(drop=True)
            wait_seq(phone, done)
            sync_api.expect(phone.locator("#turn")).not_to_contain_text("À vous de jouer")
            phone.reload()  # the link itself still opens the seat
            wait_seq(phone, done)
