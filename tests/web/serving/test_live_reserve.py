"""Threads kept in reserve for commands, whatever the number of live pages.

Each live page holds one of the worker's pool threads (bank/web/serving/server.py LiveSlots). A real
`terrabank serve`-like server with 12 threads (4 in reserve, so 8 live pages) is filled with
live pages; then one more live page is refused with a 503 and a sentence, while a
facilitator's command is still answered and the open pages still get their updates.
"""

from __future__ import annotations

import re
import select
import socket
import struct
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402
from sio_kit import ENGINE_IO, Phone  # noqa: E402
from test_serving import Production, harvest, wait_until  # noqa: E402

from bank.errors import BankError  # noqa: E402
from bank.web.serving import server as serving  # noqa: E402

THREADS = 12
SLOTS = THREADS - serving.Limits(threads=THREADS).reserve()  # 8: the reserve is 4 ("at least a few")
DISPLAY = {"display": True}  # the big screen's live page: no log-in needed


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Every page here is a big screen without its key: the anonymous share is the whole (test_admission.py).
    with Production(tmp_path_factory.mktemp("reserve") / "bank", threads=THREADS,
                    anonymous_live=SLOTS).prepare().start() as running:
        yield running


class Pages:
    """Live pages held open, their pings answered from a thread (Engine.IO drops a silent page in 20 s)."""

    def __init__(self, port: int):
        self.port, self.pages, self.lock, self.stopped = port, [], threading.Lock(), False
        self.pump = threading.Thread(target=self._answer_pings, daemon=True)
        self.pump.start()

    def open(self, n: int = 1, timeout: float = 10.0) -> list:
        new = [Phone(self.port, DISPLAY, timeout=timeout) for _ in range(n)]
        with self.lock:
            self.pages += new
        return new

    def close(self, page) -> None:
        with self.lock:
            self.pages.remove(page)
        page.close()

    def _answer_pings(self):
        while not self.stopped:
            with self.lock:
                pages = [p for p in self.pages if not p.closed]
                ready = select.select([p.sock for p in pages], [], [], 0.1)[0] if pages else []
                for page in pages:
                    if page.sock in ready:
                        page.read(0.1)
            time.sleep(0.02)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stopped = True
        self.pump.join(5)
        for page in self.pages:
            page.close()


def upgrade_request(port: int) -> bytes:
    return (f"GET {ENGINE_IO} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def head_and_body(sock: socket.socket, timeout: float = 10.0) -> tuple[int, str]:
    """A reply's status and body (by its Content-Length; a 101 has none: its head only)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return status, body.decode("utf-8", "replace")


def try_live(port: int, polling: bool = False) -> tuple[int, str]:
    """One new live page's first request: a WebSocket upgrade, or the long-polling handshake."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        if polling:
            sock.sendall(f"GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         "Connection: close\r\n\r\n".encode())
        else:
            sock.sendall(upgrade_request(port))
        return head_and_body(sock)
    finally:
        sock.close()


def vanish(sock: socket.socket) -> None:
    """Gone as a phone leaving the Wi-Fi's reach: a reset, no WebSocket close."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def assert_refused(status: int, body: str) -> None:
    assert status == 503, (status, body)
    assert "fermez la page de la banque sur un autre téléphone" in body
    assert "close the bank's page on another phone or screen, or tell the lead facilitator" in body


def test_beyond_the_live_slots_a_new_page_is_refused_and_a_command_is_still_answered(server):
    with Pages(server.port) as pages:
        pages.open(SLOTS)
        assert_refused(*try_live(server.port))                # a WebSocket
        assert_refused(*try_live(server.port, polling=True))  # a browser's first request (long polling)
        lead = Api(server.url, timeout=10).login()  # pages and the API get threads from the reserve
        try:
            assert lead.command("reserve-0", type="start_clock")[0] == 200
            status, reply = lead.command("reserve-1", **harvest(0))
        finally:
            lead.close()
        assert status == 200, reply
        # The pages already open keep working: each hears of the harvest.
        first = pages.pages[0]
        assert first.wait_for(lambda name, data: name == "public", 10), first.events


def test_a_closed_live_page_frees_its_slot(server):
    with Pages(server.port) as pages:
        # Pages of the previous test may take a moment to be noticed closed: wait for all slots.
        assert wait_until(lambda: try_live_page(pages), 20)
        while len(pages.pages) < SLOTS:
            pages.open()
        assert_refused(*try_live(server.port))
        pages.close(pages.pages[0])
        assert wait_until(lambda: try_live_page(pages), 20), "the closed page's slot stayed taken"
        assert_refused(*try_live(server.port))  # and only that one slot came free


def try_live_page(pages: Pages) -> bool:
    """Open one more live page if the server lets it in."""
    try:
        pages.open(timeout=3)
    except Exception:  # noqa: BLE001 - refused: wsproto, the socket or the wait says so, each its own way
        return False
    return len(pages.pages[-1].texts) > 0 and pages.pages[-1].texts[0].startswith("0{")


def test_clients_gone_mid_handshake_free_their_slots(server):
    with Pages(server.port) as pages:
        assert wait_until(lambda: try_live_page(pages), 20)
        while len(pages.pages) < SLOTS - 1:
            pages.open()
        # The last slot: a client that sent its upgrade, got its 101, and vanished without a word.
        half = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        half.sendall(upgrade_request(server.port))
        assert head_and_body(half)[0] == 101
        assert_refused(*try_live(server.port))  # it did hold the last slot
        vanish(half)
        # Twenty more that vanish right after sending their upgrade, before any reply.
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(upgrade_request(server.port))
            vanish(sock)
        assert wait_until(lambda: try_live_page(pages), 20), "a vanished client's slot stayed taken"
        assert_refused(*try_live(server.port))  # exactly one slot came back: none leaked, none counted twice


def handshake(port: int) -> str:
    """A long-polling page's handshake (no secret needed): its Engine.IO session id."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(f"GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        sock.settimeout(10)
        reply = b""
        while chunk := sock.recv(4096):  # to the close (the reply may be chunked)
            reply += chunk
    finally:
        sock.close()
    assert reply.startswith(b"HTTP/1.1 200"), reply[:300]
    return re.search(rb'"sid":"([^"]+)"', reply).group(1).decode()


def polls(port: int, sids: list) -> list:
    """One long poll for each of `sids` (a sid may come again), sent at once and left waiting."""
    socks = []
    for sid in sids:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.9", 0))
        sock.sendall(f"GET /socket.io/?EIO=4&transport=polling&sid={sid} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        socks.append(sock)
    return socks


def status_now(sock: socket.socket) -> int:
    """The reply's status if one came within a moment, else 0 (a poll still waiting)."""
    sock.settimeout(0.5)
    try:
        data = sock.recv(64)
    except OSError:
        return 0
    return int(data.split()[1]) if data.startswith(b"HTTP/") else 0


def test_long_polls_hold_no_more_than_the_live_slots_whatever_sessions_they_name(server):
    """A long poll is never refused once its page is in, or a page on long polling would die. Before, that held for
    any poll: one handshake (no secret) and 30 polls naming its session each held a thread for the ping's
    10 s, and so did the first polls of 30 sessions opened at once (a handshake holds nothing, so none was refused):
    all 12 threads, and a phone's read waited for them. Now a session polls once at a time (another poll at once
    is answered 400, as Engine.IO's own server does), and a session's first poll is its page's admission."""
    assert wait_until(lambda: try_live(server.port, polling=True)[0] == 200, 20)  # the previous tests' pages gone
    sid = handshake(server.port)
    crowd = polls(server.port, [sid] * 30)
    crowd += polls(server.port, [handshake(server.port) for _ in range(30)])
    try:
        time.sleep(0.5)  # every poll is in: before, 12 of them in the threads and the rest queued
        lead = Api(server.url, timeout=15)
        started = time.monotonic()
        status, _ = lead.request("GET", "/api/public")
        seconds = time.monotonic() - started
        lead.close()
        answered = sorted(status_now(sock) for sock in crowd[:30])
        firsts = sorted(status_now(sock) for sock in crowd[30:])
        print(f"\n30 polls of one session, 30 sessions' first polls: a read in {seconds:.3f} s; "
              f"the session's polls answered {answered}, the first polls {firsts}")
        assert status == 200 and seconds < 2.0, (status, seconds)  # before: 10 s (the ping), or more
        assert answered == [0] + [400] * 29, answered  # one waits (0: no reply yet), 29 refused at once
        assert firsts.count(503) >= 30 - SLOTS, firsts  # beyond the live slots: refused as new pages
    finally:
        for sock in crowd:
            sock.close()


# --- the count itself, and the setting ------------------------------------------------------------

def environ(query: str, upgrade: bool = True) -> dict:
    return {"PATH_INFO": "/g/camp/socket.io/", "REQUEST_METHOD": "GET", "QUERY_STRING": query,
            **({"HTTP_UPGRADE": "websocket"} if upgrade else {})}


def test_a_live_request_that_fails_in_the_app_gives_its_slot_back_and_a_long_polling_page_in_is_never_refused():
    def broken(environ, start_response):
        raise ConnectionResetError("the client went away")

    slots = serving.LiveSlots(broken, 1)
    with pytest.raises(ConnectionResetError):
        slots(environ("EIO=4&transport=websocket"), None)
    assert slots.held == 0
    replies = []
    waiting = threading.Event()

    def held(environ, start_response):
        waiting.wait(10)  # a WebSocket's life
        return [b""]

    slots.app = lambda environ, start_response: [b"ok"]
    # A long-polling page's first poll is its admission (poll_sessions.py): in while there is room.
    assert slots(environ("EIO=4&transport=polling&sid=abc", upgrade=False), None) == [b"ok"]
    slots.app = held
    page = threading.Thread(target=slots, args=(environ("EIO=4&transport=websocket"), None))
    page.start()
    assert wait_until(lambda: slots.held == 1, 5)
    body = slots(environ("EIO=4&transport=polling", upgrade=False), lambda status, headers: replies.append(status))
    assert replies == ["503 Service Unavailable"] and b"lead facilitator" in body[0]
    slots.app = lambda environ, start_response: [b"ok"]
    # That page's next long poll gets through even when full: a page on long polling lives by it.
    assert slots(environ("EIO=4&transport=polling&sid=abc", upgrade=False), None) == [b"ok"]
    # A session never let in is a new page: its first poll is refused like a handshake.
    slots(environ("EIO=4&transport=polling&sid=new", upgrade=False), lambda status, headers: replies.append(status))
    assert replies == ["503 Service Unavailable"] * 2
    waiting.set()
    page.join(5)
    assert slots.held == 0


def test_the_reserve_is_a_tenth_of_the_threads_at_least_four_and_a_wrong_one_is_refused_with_a_sentence():
    assert serving.Limits().live_slots() == 450
    assert serving.Limits(threads=12).live_slots() == 8
    assert serving.Limits(threads=100, live_reserve=30).live_slots() == 70
    with pytest.raises(BankError) as err:
        serving.Limits(threads=12, live_reserve=12)
    assert "from 0 to threads - 1 (11)" in err.value.message


# --- what the person sees: the big screen refused, then let in once a page closes ------------------

def test_a_refused_page_shows_the_sentence_then_goes_live_once_another_page_closes(app, chromium):
    import browserkit

    sync_api = pytest.importorskip("playwright.sync_api")
    limits = serving.Limits(threads=6)  # 4 in reserve: 2 live pages
    _url, port = browserkit.serve_in_thread(app, limits=limits)
    try:
        with Pages(port) as pages:
            pages.open(limits.live_slots())
            context = chromium.new_context()
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/display")  # a plain request: served from the reserve
            badge = page.locator("#conn-badge")
            sync_api.expect(badge).to_contain_text("Trop de pages en direct", timeout=10000)
            assert "fermez la page de la banque sur un autre téléphone" in badge.inner_text()
            pages.close(pages.pages[0])
            # Socket.IO tries again within 5 s (reconnectionDelayMax) and finds the freed slot.
            sync_api.expect(badge).to_have_class(re.compile("badge-live"), timeout=15000)
            context.close()
    finally:
        browserkit.stop_servers()
