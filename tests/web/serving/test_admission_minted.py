"""Admission by secret on a real server (`terrabank serve`'s worker, default limits, config.toml's numbers).

Before: a stranger started Trias games (no log-in) and opened idle WebSockets on each seat link from
2 addresses until all 450 live slots were taken: every phone with a real team link got a 503. Slots were
counted per team and per screen, not per link, and replacing a link or the big screen's key only asked
the old sockets to leave: after the lead replaced blue's link beside 100 idle pages that ignored it,
blue's phones with the new link got 503 (the screens with the new key too). Now seats draw on a bounded
pool of their own (at most a few per seat and per address), each link or key holds at most its team's
share ([server] phones_per_team + spare_pages_per_link), and a replacement shuts the old link's
connections down on the server's side and frees their slots before the new link is shown.
Sources are 127.0.0.x addresses; every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from test_admission import Crowd, open_page, phone_query, served_game, settle  # noqa: E402
from test_serving import wait_until  # noqa: E402

from bank.game.config import load_config  # noqa: E402

PER_LINK = load_config(str(ROOT / "config.toml")).live_pages_per_link  # 60: what one link may hold
SEATS = [{"name": f"P{i}", "kind": "human"} for i in range(5)]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    yield from served_game(tmp_path_factory, "minted")


def http(port: int, source: str, head: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    """One request from `source` on its own connection: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as sock:
        sock.sendall(head.encode() + f"Host: x\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                     + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    top, _, reply = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, reply


def start_trias_game(port: int, source: str) -> list[str]:
    """A stranger's new Trias game from `source`, as the start page makes it (no log-in): its seat links."""
    _, headers, reply = http(port, source, "GET /api/csrf HTTP/1.1\r\n")
    cookie, csrf = headers["Set-Cookie"].split(";", 1)[0], json.loads(reply)["csrf"]
    status, _, reply = http(port, source, f"POST /trias/api/games HTTP/1.1\r\nCookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"
                            "Content-Type: application/json\r\n", json.dumps({"seats": SEATS}).encode())
    assert status == 201, reply[:300]
    return [seat["link"].rsplit("/", 1)[1] for seat in json.loads(reply)["seats"]]


def mint(game, crowd, sources: list[str], per_address: int) -> int:
    """From each source: one Trias game, then idle pages on its seat links, up to `per_address` (under the
    250 connections an address may open) or until three in a row are refused on every seat. How many got in."""
    held = 0
    for source in sources:
        seats, opened = start_trias_game(game.port, source), 0
        for token in seats:
            refused = 0
            while opened < per_address and refused < 3:
                page, _ = open_page(game.port, {"seat": token}, f"&seat={token}", source=source, timeout=3)
                if page is None:
                    refused += 1
                    continue
                crowd.add(page)
                opened += 1
                if opened >= (seats.index(token) + 1) * per_address // len(seats):
                    break  # this seat's part: the rest on the next seats
        held += opened
    return held


@pytest.mark.parametrize("addresses", [2, 4])
def test_seats_minted_from_several_addresses_leave_every_phone_and_screen_its_live_page(game, addresses):
    """Before, 2 addresses: 480 idle seat pages took the 450 live slots, and 20 of 20 phones got 503."""
    settle(game, 30)
    key = game.lead.request("GET", "/api/display/link")[1]["key"]
    sources = [f"127.0.0.{40 + 10 * addresses + i}" for i in range(addresses)]
    with Crowd() as crowd:
        minted = mint(game, crowd, sources, 480 // addresses)
        phones = 0
        for i in range(20):
            page, _ = open_page(game.port, *phone_query(list(game.tokens.values())[i % 4]))
            phones += page is not None
            if page is not None:
                crowd.add(page)
        screens = [open_page(game.port, {"display": True, "key": key}, f"&key={key}")[0] for _ in range(3)]
        for page in screens:
            if page is not None:
                crowd.add(page)
        print(f"\nminted seats, {addresses} addresses: {minted} seat pages in, {phones} of 20 phones, "
              f"{sum(p is not None for p in screens)} of 3 keyed screens")
        assert phones == 20 and all(screens), (minted, phones)
        assert minted <= 75  # the strangers' pool (a sixth of the 450), at most 15 an address


def hostile(game, crowd, auth: dict, query: str, n: int) -> list:
    """`n` idle pages opened with one secret, that ignore every request to leave (they never close)."""
    pages = []
    for _ in range(n):
        page, _ = open_page(game.port, auth, query, source="127.0.0.99", timeout=3)
        if page is not None:
            pages.append(crowd.add(page))
    return pages


def test_a_stolen_link_holds_only_its_share_and_its_replacement_restores_the_team_at_once(game):
    """Before: 100 pages on blue's link refused blue's phones; after the lead replaced the link, 10 of 10
    phones with the new link still got 503 (the old pages ignored the request to leave, and held blue's slots)."""
    settle(game, 30)
    old = game.tokens["blue"]
    with Crowd() as crowd:
        stolen = hostile(game, crowd, *phone_query(old), 100)
        red, _ = open_page(game.port, *phone_query(game.tokens["red"]))
        assert red is not None  # another team is untouched
        crowd.add(red)
        status, reply = game.lead.request("POST", "/api/teams/blue/rotate")
        assert status == 200, reply
        new = reply["token"]
        phones = [open_page(game.port, *phone_query(new), timeout=3) for _ in range(10)]
        print(f"\nstolen link: {len(stolen)} pages held; after its replacement {sum(p is not None for p, _ in phones)} "
              f"of 10 phones in, slowest {max(s for _, s in phones):.2f} s")
        assert all(page is not None for page, _ in phones) and max(s for _, s in phones) < 1.0
        for page, _ in phones:
            crowd.add(page)
        # the server itself closed the old link's connections: no help from the pages
        assert wait_until(lambda: all(p.closed for p in stolen), 5), sum(not p.closed for p in stolen)
        assert open_page(game.port, *phone_query(old), timeout=3)[0] is None  # the old link is refused
        assert len(stolen) == PER_LINK  # its share, from config.toml: not the whole (before: 100)
    game.tokens["blue"] = new


def test_a_replaced_big_screen_key_frees_its_slots_beside_100_hostile_screens(game):
    """Before: 3 screens with the new key were refused 45 s later while 100 old-key sockets stayed connected."""
    settle(game, 30)
    old = game.lead.request("GET", "/api/display/link")[1]["key"]
    with Crowd() as crowd:
        stolen = hostile(game, crowd, {"display": True, "key": old}, f"&key={old}", 100)
        status, reply = game.lead.request("POST", "/api/display/rotate")
        assert status == 200, reply
        new = reply["key"]
        started = time.monotonic()
        screens = [open_page(game.port, {"display": True, "key": new}, f"&key={new}", timeout=3)[0] for _ in range(3)]
        print(f"\nreplaced key: {sum(s is not None for s in screens)} of 3 screens in {time.monotonic() - started:.2f} s")
        assert all(screens)
        for page in screens:
            crowd.add(page)
        assert wait_until(lambda: all(p.closed for p in stolen), 5), sum(not p.closed for p in stolen)
        assert len(stolen) == PER_LINK  # the key's share, from config.toml (before: 100)


def test_a_stolen_link_on_130_idle_pages_from_one_address_leaves_room_for_the_real_phones(game):
    """Before: the 130 pages took the link's 60 slots (its share) and every real phone of the team, from any
    address, got 503 until the lead replaced the link. Now a link's pages from its busiest address give way,
    one by one, to pages from other addresses (admission.py LiveSlots._give_way), without the lead."""
    settle(game, 30)
    team = sorted(game.tokens)[-1]
    token = game.tokens[team]
    with Crowd() as crowd:
        stolen = hostile(game, crowd, *phone_query(token), 130)
        assert len(stolen) == PER_LINK  # uncontested, one address may hold the whole share
        phones = [open_page(game.port, *phone_query(token), source=f"127.0.0.{101 + i}", timeout=3) for i in range(20)]
        for page, _ in phones:
            if page is not None:
                crowd.add(page)
        print(f"\nstolen link on 130 pages from one address: {sum(p is not None for p, _ in phones)} of 20 phones from "
              f"other addresses in, slowest {max(s for _, s in phones):.2f} s; "
              f"{sum(p.closed for p in stolen)} stolen pages cut for them")
        assert all(page is not None for page, _ in phones) and max(s for _, s in phones) < 1.0
        assert wait_until(lambda: sum(p.closed for p in stolen) == 20, 5)  # one cut for each phone, no more
