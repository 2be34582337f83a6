"""The live pictures as patches keyed by version, through the real Broadcaster.

Pages are Socket.IO test clients of the real app; between the server and each page's
picture (tests/delta_page.Page, the Python twin of static/js/live.js) a random network
loses, repeats and swaps messages, and phones reconnect. Whatever happens, a page shows
exactly the picture the server made for the version it holds; once the network behaves,
every page of a room holds the room's one version and picture.
"""

from __future__ import annotations

import random

import pytest
from delta_page import Page

from bank.web.push import delta
from bank.web.push import broadcaster as broadcaster_module
from bank.web.push.broadcaster import PUBLIC, team_room
from live_kit import live_client
from bank.web.push.live import broadcaster

TEAMS = ("blue", "yellow", "red", "green")
RESOURCES = ("water", "flora", "dioxygen", "fauna", "energy")


@pytest.fixture
def quick_rounds(monkeypatch):
    """No 0.1 s pause between rounds: the test books a hundred commands one by one."""
    monkeypatch.setattr(broadcaster_module, "MIN_GAP", 0.0)


class Recorder(dict):
    """The Broadcaster's bases, remembering every picture ever made under each version."""

    def __init__(self, made: dict):
        super().__init__()
        self.made = made

    def __setitem__(self, audience, base):
        self.made[base.version] = base.picture
        super().__setitem__(audience, base)


class Phone:
    """A page on a lossy network: its socket, its pictures, and what is still in flight to it."""

    def __init__(self, app, auth: dict, made: dict):
        self.app, self.auth, self.made = app, auth, made
        self.page, self.inbox = Page(), []
        self.connect()

    def connect(self) -> None:
        self.client = live_client(self.app, self.auth)  # as today's live.js: one round message, read by part
        assert self.client.is_connected()

    def collect(self) -> None:
        for m in self.client.get_received():
            if m["name"] in ("public", "team"):
                msg = m["args"][0]
                if "patch" not in msg:  # a whole picture is the server's picture for its version
                    self.made.setdefault(msg["v"], {k: v for k, v in msg.items() if k != "v"})
                self.inbox.append((m["name"], msg))

    def deliver(self, rng: random.Random | None) -> None:
        """Hand the page what arrived; with rng the network loses, repeats and swaps messages."""
        self.collect()
        inbox, self.inbox = self.inbox, []
        if rng:
            inbox = [m for m in inbox if rng.random() > 0.2]                      # lost
            inbox += [rng.choice(inbox)] if inbox and rng.random() < 0.3 else []  # repeated late
            if len(inbox) > 1 and rng.random() < 0.3:                            # overtaken
                i = rng.randrange(len(inbox) - 1)
                inbox[i], inbox[i + 1] = inbox[i + 1], inbox[i]
        for event, msg in inbox:
            asks = self.page.asks
            self.page.receive(event, msg)
            if self.page.asks > asks:
                self.client.emit("sync", {"after": 0})

    def reconnect(self) -> None:
        """The Wi-Fi dropped the phone; the page keeps its pictures and connects again."""
        self.client.disconnect()
        self.inbox = []
        self.connect()

    def check_shows_the_servers_picture(self) -> None:
        for event in self.page.held:
            version = self.page.version(event)
            assert delta.same(self.page.picture(event), self.made[version]), f"{event} {version} differs"


def _command(rng: random.Random) -> dict:
    team = rng.choice(TEAMS)
    if rng.random() < 0.15:  # refused: no such card; it must send nothing
        return {"type": "harvest", "team": team, "card": "harvester-9", "resource": "water"}
    return {"type": "harvest", "team": team, "card": rng.choice(["harvester-1", "harvester-2"]),
            "resource": rng.choice(RESOURCES)}


@pytest.mark.parametrize("seed", range(6))
def test_pages_show_the_servers_picture_for_their_version_whatever_the_network_does(app, web, tokens, quick_rounds,
                                                                                     monkeypatch, seed):
    rng = random.Random(seed)
    lead = web("lead")
    lead.command(type="start_clock")
    # Game time moves on between steps: pictures then differ by their clock and "harvested N s
    # ago" too, so a page that joined or synced since the last round holds a version of its own.
    bank, passed = app.extensions["terrabank"].bank, [0.0]
    real_now = bank.now
    monkeypatch.setattr(bank, "now", lambda: real_now() + passed[0])
    sender = broadcaster(app)
    made: dict = {}
    with sender.lock:
        sender._bases = Recorder(made)
    phones = [Phone(app, {"team": tokens[TEAMS[i % 4]]}, made) for i in range(6)]
    phones.append(Phone(app, {"display": True}, made))
    for step in range(25):
        lead.command(**_command(rng))
        for phone in phones:
            passed[0] += rng.choice([0, 0, 1, 3])
            if rng.random() < 0.1:
                phone.reconnect()
            phone.deliver(rng)
            phone.check_shows_the_servers_picture()
    # The network behaves again. One round: a page that lost something notices and asks for the
    # whole pictures. From then on no page needs to ask: a page holding a version of its own gets
    # the whole picture from the server unasked, the others a patch of the version they hold.
    for settle in range(3):
        if settle == 1:  # two pages join 2 s after the last round: each holds a version of its own
            passed[0] += 2
            for phone in (phones[0], phones[-1]):
                phone.reconnect()
                phone.deliver(None)
        passed[0] += 2
        asks = [phone.page.asks for phone in phones]
        lead.command(**_command(random.Random(0)) | {"card": "harvester-1"})
        for phone in phones:
            phone.page.clock += 6  # a `sync` whose answer was lost is asked again after 5 s
            phone.deliver(None)
            phone.deliver(None)  # the answers to its `sync`, if it asked
        if settle:
            assert [phone.page.asks for phone in phones] == asks, "a page had to ask on a network that behaves"
    bases = {a: sender.base_of(a) for a in [PUBLIC, *map(team_room, TEAMS)]}
    for phone in phones:
        phone.check_shows_the_servers_picture()
        assert phone.page.version("public") == bases[PUBLIC].version
        assert phone.page.picture("public") == bases[PUBLIC].picture
        if "team" in phone.auth:
            team = app.extensions["terrabank"].access.team_for(phone.auth["team"])
            assert phone.page.version("team") == bases[team_room(team)].version
            assert phone.page.picture("team") == bases[team_room(team)].picture
            assert phone.page.picture("team")["view"]["team"] == team  # never another team's stock
