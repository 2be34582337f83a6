"""The live update's work per command: none for pictures no page holds, and the whole picture
not encoded on every round only to weigh a patch against it.

py-spy found the broadcaster's thread costing 0.10-0.31 ms of CPU per harvest, on the 2 cores the next
request needs too, in a room with no page connected at all: every round made the public picture and the
four teams' views, diffed each against its base and JSON-encoded the patch and the whole picture to
compare their sizes.
"""

from __future__ import annotations

import pytest

from bank.web.field import payloads
from bank.web.push import broadcaster as broadcaster_module
from bank.web.push import delta
from live_kit import live_client
from bank.web.push.live import broadcaster
from delta_page import Page

HARVEST = {"type": "harvest", "card": "harvester-1", "resource": "water"}


class Work:
    """Counts what a round makes: pictures per audience, diffs, and whole messages encoded to be weighed."""

    def __init__(self, monkeypatch):
        self.pictures: list[str] = []
        self.diffs = 0
        self.whole_encoded = 0
        public_of, team_of, diff, size = payloads.public_of, payloads.team_of, delta.diff, delta.size

        def counted_public(*args, **kwargs):
            self.pictures.append("public")
            return public_of(*args, **kwargs)

        def counted_team(seq, state, config, team, now, **kwargs):
            self.pictures.append(team)
            return team_of(seq, state, config, team, now, **kwargs)

        def counted_diff(*args, **kwargs):
            self.diffs += 1
            return diff(*args, **kwargs)

        def counted_size(value):
            whole = isinstance(value, dict) and "v" in value and "patch" not in value
            root = isinstance(value, list) and len(value) == 1 and value[0][:2] == [delta.SET, []]
            self.whole_encoded += whole or root
            return size(value)

        monkeypatch.setattr(payloads, "public_of", counted_public)
        monkeypatch.setattr(payloads, "team_of", counted_team)
        monkeypatch.setattr(delta, "diff", counted_diff)
        monkeypatch.setattr(delta, "size", counted_size)  # delta's own calls read the module's name too

    def clear(self) -> None:
        self.pictures, self.diffs, self.whole_encoded = [], 0, 0


def book(app, lead, team: str) -> None:
    assert lead.command(team=team, **HARVEST).status_code == 200
    sender = broadcaster(app)
    assert sender.flush(sender.ask())  # a round after this command has gone out (the route asked one too)


@pytest.fixture
def lead(web):
    client = web("lead")
    assert client.command(type="start_clock").status_code == 200
    return client


def test_a_command_in_a_room_with_no_page_makes_no_picture_and_no_patch(app, lead, monkeypatch):
    work = Work(monkeypatch)
    for team in ("blue", "red", "blue"):
        book(app, lead, team)
    assert work.pictures == [] and work.diffs == 0


def test_only_the_pictures_a_page_holds_are_made_and_it_still_gets_patches(app, lead, tokens, monkeypatch):
    phone = live_client(app, auth={"team": tokens["blue"]})
    page = Page().feed(phone.get_received())
    work = Work(monkeypatch)
    book(app, lead, "blue")
    assert set(work.pictures) == {"blue", "public"}  # not yellow's, red's or green's views
    updates = [m for m in phone.get_received() if m["name"] in ("public", "team")]
    assert updates and all("patch" in m["args"][0] for m in updates)
    page.feed(updates)
    assert page.asks == 0
    assert page.picture("team")["view"]["stock"]["water"] == app.extensions["terrabank"].bank.state.balance(
        "team:blue", "water")
    phone.disconnect()
    work.clear()
    book(app, lead, "blue")
    assert work.pictures == [], "the phone left: nobody holds a picture any more"


def test_rounds_weigh_a_small_patch_without_encoding_the_whole_picture_each_time(app, lead, tokens, monkeypatch):
    phone = live_client(app, auth={"team": tokens["blue"]})
    page = Page().feed(phone.get_received())
    for _ in range(2):  # the first rounds after the page joined measure each whole picture once
        book(app, lead, "blue")
    # Not the periodic measure (every REMEASURE rounds; on a loaded machine the clock's own rounds add some).
    monkeypatch.setattr(broadcaster_module, "REMEASURE", 10**6, raising=False)
    work = Work(monkeypatch)
    rounds = 10
    for _ in range(rounds):
        book(app, lead, "blue")
    assert set(work.pictures) == {"blue", "public"} and work.diffs >= 2 * rounds  # both, each round
    assert work.whole_encoded == 0, "a patch of a few hundred bytes is weighed against the size measured before"
    page.feed([m for m in phone.get_received() if m["name"] in ("public", "team")])
    assert page.asks == 0
