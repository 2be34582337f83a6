"""A page's compressed message is inflated no further than the bank would take it (bank/web/push/deflate.py).

Before: wsproto inflated a compressed frame whole, whatever it gave, and the push loop's size check
(hub_page.py) came after. One anonymous socket (no secret, no Socket.IO connect) sending 200 MB of "a",
200 KB on the wire, took the serving worker from 45 to 372 MB at its peak (244 MB still held after), the
push loop inflating it while every page waited. Now inflating stops past Engine.IO's max_http_buffer_size
and the socket is closed with 1009 (message too big); a page's ordinary compressed messages still pass.
"""

from __future__ import annotations

import os
import socket
import sys
import zlib
from pathlib import Path

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from bank.web.push.deflate import MAX_MESSAGE, SmallDeflate
from bank.web.serving import thread as serving_thread

from sio_kit import ENGINE_IO, Phone

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from harness import Api  # noqa: E402


def _deflated_run(size: int, bits: int) -> bytes:
    """`size` bytes of "a" as one permessage-deflate payload (RFC 7692 7.2.1): 1 MB deflated once and ended by a
    sync flush (byte-aligned blocks pointing only into themselves), repeated: a valid stream at no cost."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -bits)
    block = packer.compress(b"a" * (1 << 20)) + packer.flush(zlib.Z_SYNC_FLUSH)
    return (block * (size >> 20))[:-4]


def _frame(payload: bytes) -> bytes:
    """A client's masked text frame, FIN and RSV1 (compressed), carrying `payload` (zero mask: the bytes as they are)."""
    length = len(payload)
    head = bytes((0xC1,)) + (bytes((0x80 | length,)) if length < 126 else bytes((0x80 | 126,)) + length.to_bytes(2, "big")
                             if length < 65536 else bytes((0x80 | 127,)) + length.to_bytes(8, "big"))
    return head + b"\0\0\0\0" + payload


def _server() -> tuple[WSConnection, WSConnection]:
    client, server = WSConnection(ConnectionType.CLIENT), WSConnection(ConnectionType.SERVER)
    server.receive_data(client.send(Request(host="bank", target="/socket.io/", extensions=[PerMessageDeflate()])))
    assert isinstance(next(server.events()), Request)
    client.receive_data(server.send(AcceptConnection(extensions=[SmallDeflate()])))
    assert isinstance(next(client.events()), AcceptConnection)
    return client, server


def test_a_compressed_message_is_inflated_no_further_than_the_limit_and_closed_as_too_big():
    client, server = _server()
    for n in range(3):  # ordinary messages, each pointing back into the one before, still pass whole
        server.receive_data(client.send(TextMessage(data=f"42[\"sync\",{{\"after\":{n}}}]" * 40)))
        got = [e for e in server.events() if isinstance(e, TextMessage)]
        assert "".join(e.data for e in got) == f"42[\"sync\",{{\"after\":{n}}}]" * 40
    server.receive_data(client.send(TextMessage(data="4" + "b" * (MAX_MESSAGE - 1))))  # just fits
    assert sum(len(e.data) for e in server.events() if isinstance(e, TextMessage)) == MAX_MESSAGE

    _, server = _server()
    bomb = _frame(_deflated_run(200 << 20, 12))  # 200 MB of "a" in about 200 KB
    inflated, closed = 0, None
    for at in range(0, len(bomb), 65536):  # as the push loop reads it: 64 KB at a time
        server.receive_data(bomb[at:at + 65536])
        for event in server.events():
            if isinstance(event, TextMessage):
                inflated += len(event.data)
            elif isinstance(event, CloseConnection):
                closed = event.code
        if closed:
            break
    assert closed == 1009  # message too big
    assert inflated <= MAX_MESSAGE + 1  # before: 66 MB from the first 64 KB read


@pytest.mark.serial("measures the peak memory of this process while the bank it serves is attacked")
def test_an_anonymous_sockets_deflate_bomb_leaves_the_server_its_memory_and_the_phones_their_rounds(app, tokens):
    status = Path("/proc/self/status")
    if not status.exists() or not os.access("/proc/self/clear_refs", os.W_OK):
        pytest.skip("needs Linux's /proc to reset and read this process's peak memory")
    server = serving_thread.serve_in_thread(app)
    phone = Phone(server.port, {"team": tokens["blue"]}, query=f"&team={tokens['blue']}", deflate=True)
    bomb = _frame(_deflated_run(200 << 20, 12))
    try:
        Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from now
        before = _peak_mb(status)
        attacker = socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=("127.0.0.3", 0))
        ws = WSConnection(ConnectionType.CLIENT)
        attacker.sendall(ws.send(Request(host="bank", target=ENGINE_IO, extensions=[PerMessageDeflate()])))
        ws.receive_data(attacker.recv(65536))
        assert any(isinstance(e, AcceptConnection) for e in ws.events())
        try:
            attacker.sendall(bomb)
        except OSError:
            pass  # closed by the bank before the whole bomb went
        attacker.settimeout(10)
        try:
            while attacker.recv(65536):
                pass
        except OSError:
            pass
        attacker.close()
        grew = _peak_mb(status) - before
        assert grew < 60, f"the process's peak grew by {grew} MB"  # before: about 330 MB

        lead = Api(f"http://127.0.0.1:{server.port}").login("lead", "correct horse")
        status_code, reply = lead.command("start", type="start_clock")
        lead.close()
        assert status_code == 200, reply
        assert phone.wait_for(lambda name, data: name == "public" and data.get("seq", 0) >= reply["seq"], 10.0)
    finally:
        phone.close()
        server.stop()


def _peak_mb(status: Path) -> int:
    return int(status.read_text().split("VmHWM:")[1].split()[0]) // 1024
