"""One compressor for every page that received the same messages (bank/web/push/hub_frames.py Streams).

Pages are simulated as a browser reads them: one raw inflater each, kept from message to message (context
takeover), each frame's payload inflated with the 4 bytes RFC 7692 leaves out. Rooms get rounds of a
picture that changes a little each time; some pages are left out of some rounds (a socket still sending)
or get a message of their own, as the broadcaster does. Every page must read exactly what was sent to it,
the rounds must cost a compression per room rather than per page, and the bytes must be what context
takeover gives, not what compressing each message on its own gives.
"""

from __future__ import annotations

import json
import random
import zlib

from bank.web.push import deflate
from bank.web.push.hub_frames import Streams, frame_of

TEXT = 0x1


class Page:
    def __init__(self, streams: Streams):
        self.streams, self.place = streams, None
        self.inflater = zlib.decompressobj(-deflate.WINDOW_BITS)
        self.read: list[bytes] = []
        self.bytes = 0

    def send(self, payload: bytes) -> None:
        frame, self.place = self.streams.send(self.place, TEXT, payload)
        self.bytes += len(frame)
        assert frame[0] == 0x80 | 0x40 | TEXT  # FIN, RSV1 (compressed), text
        length, body = frame[1], frame[2:]
        if length == 126:
            length, body = int.from_bytes(frame[2:4], "big"), frame[4:]
        assert length == len(body)
        self.read.append(self.inflater.decompress(body + b"\x00\x00\xff\xff"))


def picture(team: str, seq: int, rng: random.Random) -> bytes:
    """A round's message: a team's picture, most of it as it was the round before."""
    stock = {r: (seq * 7 + i * 3 + len(team)) % 40 for i, r in enumerate(("water", "flora", "fauna", "stone"))}
    cards = [{"card": f"harvester-{i}", "held": i % 3 == seq % 3, "ready_in": (seq + i) % 5} for i in range(12)]
    return ('42["round",' + json.dumps({"seq": seq, "team": team, "stock": stock, "cards": cards,
                                        "feed": [f"{team} a récolté {rng.choice(list(stock))}"]}) + "]").encode()


def test_every_page_reads_what_was_sent_to_it_and_a_round_is_compressed_once_per_room_not_per_page():
    rng = random.Random(46)
    streams = Streams()
    rooms = {team: [Page(streams) for _ in range(25)] for team in ("red", "blue", "green", "gold")}
    sent = {id(p): [] for pages in rooms.values() for p in pages}
    per_round = []
    for seq in range(1, 41):
        before = streams.compressions
        for team, pages in rooms.items():
            message = picture(team, seq, rng)
            for page in pages:
                if rng.random() < 0.03:  # left out of this round: its socket was still sending
                    continue
                if rng.random() < 0.02:  # a message of its own first (another version of a picture: the whole)
                    own = picture(team, seq, rng) + b" " * rng.randrange(1, 9)
                    page.send(own)
                    sent[id(page)].append(own)
                page.send(message)
                sent[id(page)].append(message)
        per_round.append(streams.compressions - before)
    for pages in rooms.values():
        for page in pages:
            assert page.read == sent[id(page)]  # every message, in order, exactly
    # 100 pages in 4 rooms, about 5 leaving their room's sequence each round: a round costs its rooms' streams
    # and the pages not yet back in them (a few rounds each), never one compression a page (100 a round).
    assert sum(per_round) / len(per_round) < 30, per_round
    assert max(per_round) < 50, per_round

    on_its_own = {m: len(frame_of(_packet(m), True)) for p in sent.values() for m in p}
    alone = sum(on_its_own[m] for p in sent.values() for m in p)
    shared = sum(p.bytes for pages in rooms.values() for p in pages)
    # Each message compressed on its own (server_no_context_takeover) costs far more than with the history.
    assert shared < 0.7 * alone, (shared, alone)


def test_a_page_out_of_its_rooms_sequence_holds_no_compressor_of_its_own_and_rejoins_once_its_window_is_the_rooms():
    rng = random.Random(7)
    streams = Streams()
    pages = [Page(streams) for _ in range(6)]
    for seq in range(1, 4):
        message = picture("red", seq, rng)
        for page in pages:
            page.send(message)
    odd, room = pages[0], pages[1]
    odd.send(picture("red", 3, rng) + b"  ")  # a message of its own: alone in its stream from here on
    rejoined = None
    for seq in range(4, 16):
        message = picture("red", seq, rng)
        for page in pages:
            page.send(message)
        if odd.place[0] is room.place[0]:
            rejoined = rejoined or seq
        else:
            assert odd.place[0].pages == 1 and odd.place[0].packer is None  # a message kept, not a compressor
    # Back in the room's stream once its last 4 KB are the room's (a round here is about 1 KB).
    assert rejoined is not None and rejoined - 4 <= 4096 // len(message) + 2, rejoined
    assert room.place[0].pages == len(pages)
    assert all(page.read[-12:] == pages[-1].read[-12:] for page in pages)  # and every page read the same rounds


def _packet(payload: bytes):
    """A stand-in for an Engine.IO packet whose encoding is `payload` (frame_of reads only encode())."""
    class Packet:
        def encode(self):
            return payload.decode()
    return Packet()
