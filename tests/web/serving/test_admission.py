"""Admission by authority, not by address: the attacks of the game's Wi-Fi, on a real server.

One laptop adds addresses with one command. Before: idle sockets from 4 addresses filled the
1,000 connections (every phone and the lead got a 503); idle big screens without a secret from 2
addresses took all 450 live slots (210 of 210 phones refused); slow log-in bodies from 2 addresses
held all 500 threads (phone requests 15 s at the median). Now a connection holds no thread until its
headers are in and an idle one makes room for a newcomer (bank/web/serving/worker.py), and live
pages and bodies are counted by the secret they carry (admission.py, identity.py): clients without
one share a small pool. Each attack below runs against `terrabank serve`'s worker with the default
limits, from 127.0.0.x source addresses; phones hold their team link, the lead a session.
Every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import selectors
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import Request

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from live_kit import live_auth  # noqa: E402
from sio_kit import ENGINE_IO, Phone  # noqa: E402
from slow_clients import Attack, login_head, raise_own_fd_limit  # noqa: E402,F401 (login_head: test_slow_senders')
from test_serving import Production, harvest, wait_until  # noqa: E402

PHONES = 200


class Page(Phone):
    """A live page (sio_kit.Phone) from a chosen source address, with the query the pages' socket sends."""

    def __init__(self, port: int, auth: dict, query: str = "", source: str = "127.0.0.1", timeout: float = 5.0):
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
        self.texts, self._partial, self.accepted, self.closed = [], "", False, False
        self.prefix, self.events, self.rounds, self.separate, self.legacy = "", [], [], [], False
        try:
            self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target=ENGINE_IO + query)))
            if not self.wait(lambda: any(t.startswith("0") for t in self.texts), timeout):
                raise ConnectionError("refused")
            self.send_text("40" + json.dumps(live_auth(auth, False)))  # as live.js (rounds: 1); (a 503 instead of the 101: wait() ends at once, see read)
            if not self.wait(lambda: any(t.startswith("40") for t in self.texts), timeout):
                raise ConnectionError("no connect")
        except BaseException:
            self.close()
            raise

    def read(self, timeout: float | None = None) -> None:
        super().read(timeout)
        if self.ws.state in (ConnectionState.REJECTING, ConnectionState.CLOSED):
            self.closed = True  # the server answered the upgrade with a refusal (a 503 and its sentence)


def open_page(port, auth, query="", source="127.0.0.1", timeout=5.0) -> tuple[Page | None, float]:
    """(the page or None if the server turned it down, seconds it took)."""
    started = time.monotonic()
    try:
        page = Page(port, auth, query, source, timeout)
    except Exception:  # noqa: BLE001 - a 503, a reset, a timeout: each its own way of saying no
        return None, time.monotonic() - started
    return page, time.monotonic() - started


class Crowd:
    """Live pages held open, their pings answered and messages read by one thread (epoll: 1,000+ sockets)."""

    def __init__(self):
        self.sel, self.pages, self.stopped = selectors.DefaultSelector(), [], threading.Event()
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def add(self, page: Page) -> Page:
        self.sel.register(page.sock, selectors.EVENT_READ, page)
        self.pages.append(page)
        return page

    def _pump(self):
        while not self.stopped.is_set():
            if not self.sel.get_map():
                time.sleep(0.05)
                continue
            for key, _ in self.sel.select(0.05):
                page = key.data
                try:
                    page.read(0.01)
                except Exception:  # noqa: BLE001 - a page the server cut
                    page.closed = True
                if page.closed:
                    self.sel.unregister(page.sock)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.pump.join(5)
        for page in self.pages:
            page.close()


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    yield from served_game(tmp_path_factory, "admission")


def served_game(tmp_path_factory, name: str):
    """A module's real server (its lead logged in, the clock started, the team links read), closed after."""
    raise_own_fd_limit(6000)
    with Production(tmp_path_factory.mktemp(name) / "bank").prepare().start() as server:
        lead = Api(server.url, timeout=10).login()
        assert lead.command("start", type="start_clock")[0] == 200
        server.lead, server.tokens = lead, lead.request("GET", "/api/teams/links")[1]
        try:
            yield server
        finally:
            lead.close()


def phone_query(token: str) -> tuple[dict, str]:
    return {"team": token}, f"&team={token}"


def settle(game, seconds: float = 20) -> None:
    """Between tests: the server has let go of the previous test's sockets (idle ones go after 10 s)."""
    def one_phone() -> bool:
        page, _ = open_page(game.port, *phone_query(next(iter(game.tokens.values()))))
        if page is not None:
            page.close()
        return page is not None

    assert wait_until(one_phone, seconds)


def fill_with_screens(game, crowd, source: str, most: int) -> int:
    """Open big screens without a key from `source` until `most` are in or three in a row are refused:
    the attacker's anonymous screens. Returns how many got in (they stay open in `crowd`)."""
    screens = refused = 0
    for _ in range(most):
        page, _ = open_page(game.port, {"display": True}, source=source, timeout=3)
        if page is None:
            refused += 1
            if refused >= 3:
                break
            continue
        crowd.add(page)
        screens += 1
    return screens


def book(lead: Api, key: str, n: int) -> tuple[int, float]:
    started = time.monotonic()
    status, reply = lead.command(key, **harvest(n))
    assert status == 200, reply
    return status, time.monotonic() - started


def http_get(port: int, path: str, timeout: float = 5.0) -> tuple[int, float]:
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            data = sock.recv(64)
    except OSError:
        data = b""
    return (int(data.split()[1]) if data.startswith(b"HTTP/") else 0), time.monotonic() - started


@pytest.mark.serial("a phone's page within 1 s beside 1,000 idle sockets: 1.31 s once beside four workers at load 10-20")
def test_idle_sockets_from_4_addresses_leave_phones_and_the_lead_served(game):
    """Before: 4 x 250 idle sockets filled the 1,000 connections; every new connection got a 503."""
    token = game.tokens["blue"]
    attacks = [Attack("127.0.0.1", game.port, half_open=250, slow=0, seconds=20, source=f"127.0.0.{2 + i}", rate=400)
               for i in range(4)]
    for attack in attacks:
        attack.start()
    try:
        assert wait_until(lambda: sum(a.open["half"] for a in attacks) >= 1000, 10)
        time.sleep(0.5)  # the server has taken them all in
        answers = [http_get(game.port, f"/t/{token}") for _ in range(5)]
        print(f"\nidle sockets, 4 addresses: phone pages {[(st, round(t, 3)) for st, t in answers]}")
        assert [status for status, _ in answers] == [200] * 5, answers
        assert max(seconds for _, seconds in answers) < 1.0, answers
        page, seconds = open_page(game.port, *phone_query(token))
        assert page is not None and seconds < 1.0, seconds
        page.close()
        game.lead.close()  # the lead comes back on a new connection too
        assert book(game.lead, "idle-1", 1)[1] < 1.0
    finally:
        for attack in attacks:
            attack.stop()


def test_idle_big_screens_without_a_key_from_2_addresses_leave_every_phone_its_live_page(game):
    """Before: anonymous big screens ({"display": true}) from 2 addresses took all 450 live slots; 210 of 210 phones refused."""
    settle(game)
    tokens = list(game.tokens.values())
    with Crowd() as crowd:
        # at most 240 an address (its cap is 250)
        screens = sum(fill_with_screens(game, crowd, source, 240) for source in ("127.0.0.2", "127.0.0.3"))
        phones = 0
        for i in range(210):
            page, _ = open_page(game.port, *phone_query(tokens[i % len(tokens)]))
            if page is not None:
                crowd.add(page)
                phones += 1
        print(f"\nanonymous screens, 2 addresses: {screens} screens in, {phones} of 210 phones connected")
        assert phones == 210, f"{210 - phones} of 210 phones refused beside {screens} anonymous screens"
        assert screens < 100  # the anonymous share (56 of 450), not the whole


def test_slow_log_in_bodies_from_2_addresses_leave_phones_and_commands_answered(game):
    """Before: 2 x 250 slow bodies on the anonymous /api/login held all 500 threads (phone requests 15 s median)."""
    settle(game)
    token = game.tokens["red"]
    # rate: reopened at most 100 a second an address, so the attacker (in this process) leaves the server its CPU.
    head = login_head(game.url)
    attacks = [Attack("127.0.0.1", game.port, half_open=0, slow=250, seconds=20, source=f"127.0.0.{2 + i}", rate=100,
                      head=head) for i in range(2)]
    for attack in attacks:
        attack.start()
    try:
        assert wait_until(lambda: sum(a.stats["opened"] for a in attacks) >= 500, 10)
        time.sleep(1.0)  # their heads are in, their bodies dripping
        phones = [http_get(game.port, f"/api/team/{token}") for _ in range(8)]
        print(f"\nslow log-in bodies, 2 addresses: phone requests {[(st, round(t, 3)) for st, t in phones]}")
        assert [status for status, _ in phones] == [200] * 8, phones
        assert statistics.median(s for _, s in phones) < 1.0 and max(s for _, s in phones) < 2.0, phones
        assert book(game.lead, "bodies-1", 2)[1] < 1.0
    finally:
        for attack in attacks:
            attack.stop()


class StallProbe:
    """A thread asking for 10 ms naps: `longest`, its worst lateness, is how long this process (the lead's
    device here) could not run: the host or the test's own threads, not the bank."""

    def __init__(self):
        self.longest, self._window, self._stop = 0.0, 0.0, threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            asked = time.monotonic()
            time.sleep(0.01)
            late = time.monotonic() - asked - 0.01
            with self._lock:
                self.longest, self._window = max(self.longest, late), max(self._window, late)

    def mark(self) -> float:
        """The worst lateness since the last mark (or the start), and a new window from now."""
        with self._lock:
            window, self._window = self._window, 0.0
        return window

    def __enter__(self) -> "StallProbe":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def full_game(game, addresses: int) -> dict:
    """Every attack at once from `addresses` source addresses; then 200 phones, 3 keyed screens, 5 commands."""
    sources = [f"127.0.0.{20 + i}" for i in range(addresses)]
    rate = max(25, 400 // addresses)  # reopened at most 400 a second in all for each kind: the test's CPU is the server's too
    attacks = [Attack("127.0.0.1", game.port, half_open=min(250, 1000 // addresses), slow=0, seconds=45,
                      source=s, rate=rate) for s in sources]
    head = login_head(game.url)
    attacks += [Attack("127.0.0.1", game.port, half_open=0, slow=min(250, 500 // addresses), seconds=45,
                       source=s, rate=rate, head=head) for s in sources]
    key = game.lead.request("GET", "/api/display/link")[1]["key"]
    tokens = list(game.tokens.values())
    figures = {"addresses": addresses}
    with Crowd() as crowd:
        # first the screens without a key (each address's cap is 250 in all)
        anonymous = sum(fill_with_screens(game, crowd, source, min(240, 480 // addresses)) for source in sources)
        for attack in attacks:  # then idle sockets and slow bodies, up to what each address has left
            attack.start()
        try:
            time.sleep(2.0)
            times = []
            for i in range(PHONES):
                page, seconds = open_page(game.port, *phone_query(tokens[i % len(tokens)]))
                times.append(seconds)
                if page is not None:
                    crowd.add(page)
            phones = [p for p in crowd.pages[anonymous:]]
            screens = [open_page(game.port, {"display": True, "key": key}, f"&key={key}") for _ in range(3)]
            for page, seconds in screens:
                times.append(seconds)
                if page is not None:
                    crowd.add(page)
            before = {id(p): len(p.events) for p in phones}
            booked, held_up, reconnected = [], [], 0
            with StallProbe() as stalls:  # a slow command: was this process (the lead's device) held up, or the bank?
                for n in range(5):  # and did the lead's kept-alive connection have to be made again?
                    kept, _ = game.lead.conn, stalls.mark()
                    booked.append(book(game.lead, f"full-{addresses}-{n}", n)[1])
                    held_up.append(stalls.mark())  # this process held up during this command
                    reconnected += game.lead.conn is not kept
            heard = wait_until(lambda: all(any(n == "public" for n, _ in p.events[before[id(p)]:]) for p in phones), 10)
            figures.update({
                "anonymous screens": anonymous, "phones connected": len(phones),
                "keyed screens connected": sum(p is not None for p, _ in screens),
                "connect p50 s": round(statistics.median(times), 3), "connect max s": round(max(times), 3),
                "command p50 s": round(statistics.median(booked), 3), "command max s": round(max(booked), 3),
                "commands s": [round(b, 3) for b in booked], "lead reconnected": reconnected,
                "this process stalled at most s": round(stalls.longest, 3),
                "this process held up during each s": [round(h, 3) for h in held_up],
                # What the bank took: a command's time less the time this process itself could not run meanwhile
                # (a serial pass at 19:27 saw 3.24 s for one command, 3.22 s of it this process's own stall).
                "bank's command max s": round(max(b - h for b, h in zip(booked, held_up)), 3),
                "every phone heard": bool(heard),
                "attacker opened": sum(a.stats["opened"] for a in attacks),
                "attacker refused or closed": sum(a.stats["refused 503 (server full)"] + a.stats["refused 429 (per address)"]
                                                  + a.stats["closed by the server"] for a in attacks),
            })
        finally:
            for attack in attacks:
                attack.stop()
    print(f"\nadmission {figures}")
    return figures


# Serial: the attackers run in this test's process and share the server's two cores; beside the suite's
# other workers one command took 1.6 s (0.02 s alone), which is the machine, not the bank.
@pytest.mark.serial("times commands while its own attackers load both cores")
@pytest.mark.parametrize("addresses", [1, 2, 4, 8])
def test_a_full_game_connects_and_books_within_a_second_under_every_attack_at_once(game, addresses):
    settle(game)
    figures = full_game(game, addresses)
    assert figures["phones connected"] == PHONES and figures["keyed screens connected"] == 3, figures
    assert figures["anonymous screens"] <= 60, figures
    assert figures["connect p50 s"] < 1.0 and figures["bank's command max s"] < 1.0, figures
    assert figures["every phone heard"], figures
