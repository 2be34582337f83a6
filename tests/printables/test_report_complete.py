"""The end-of-game report leaves nothing out: stock corrections with their reasons, a
refill, a common animal bought, a pause, a session break, the bank down and restarted, the moves typed
in from the paper ledgers afterwards, each told in the story where it happened; and the chart of
points over time per team, the same curve the big screen replays (bank/game/replay.py)."""

from __future__ import annotations

import pytest
from printkit import all_text, pages_text

from bank.game.replay import points_over_time
from bank.services.bank import Bank
from printables.report import render_report
from printables.report_data import summarise

T0 = 1_800_000_000.0


class Clocks:
    """The machine's system and monotonic clocks, moved by the test (a bank that is off sees both jump)."""

    def __init__(self):
        self.t = T0

    def at(self, minute: float) -> None:
        self.t = T0 + minute * 60

    def wall(self) -> float:
        return self.t

    def mono(self) -> float:
        return self.t


@pytest.fixture
def game_day(config, bank_path):
    """A game with everything a parent may ask about; returns the bank after the lead ended it."""
    clocks = Clocks()
    bank = Bank.create(bank_path, config, wall=clocks.wall, mono=clocks.mono)
    ids = iter(range(1, 1000))

    def do(minute: float, prefix: str = "c", **command):
        clocks.at(minute)
        return bank.execute({"id": f"{prefix}{next(ids)}", **command})

    do(0, type="start_clock")
    do(1, type="inventory", team="blue", counted={"water": 30}, reason="tokens found under the table")  # it had 5
    do(1, type="inventory", team="green", counted={"fauna": 30, "flora": 30, "energy": 30, "water": 30, "dioxygen": 30})
    do(2, type="refill", resource="water", amount=50)
    do(3, type="raise_tracks", team="green", steps={"phytosphere": 4, "hydrosphere": 4, "atmosphere": 4})
    do(5, type="buy_animal", team="green", animal="sheep")
    do(10, type="pause")
    do(15, type="resume")
    do(20, type="end_session")
    do(22, type="resume")
    do(30, type="award", team="red", points=2, reason="helped the referee")
    bank.close()
    clocks.at(55)  # the bank machine was off for 25 minutes: the teams played on paper meanwhile
    bank = Bank.open(bank_path, config, wall=clocks.wall, mono=clocks.mono)
    assert bank.hold_if_suspect() is not None
    do(56, type="resume", actor="lead")
    do(57, prefix="paper:a", type="harvest", team="blue", card="harvester-1", resource="water", actor="lead")
    do(57, prefix="paper:b", type="build", team="green", building="power_plant_1", actor="lead")
    do(60, type="end_game")
    yield bank
    bank.close()


def _text(pdf: bytes) -> str:
    return " ".join(all_text(pdf).split())


def test_every_correction_pause_break_outage_and_re_entry_is_told_where_it_happened(game_day):
    text = _text(render_report(game_day, "en"))
    story = ["0 min · the game starts",
             "1 min · Blue: stock corrected after a count (+25 Water), reason: 'tokens found under the table'",
             "1 min · Green: stock corrected after a count (",
             "2 min · tokens put back in the bank's bowls: 50 Water",
             "5 min · Green: bought the animal Sheep",
             "10 min · play paused",
             "10 min · play resumes",
             "15 min · end of session 1",
             "15 min · start of session 2",
             "23 min · the bank was down (about 25 min): on restarting it paused the game, that time does not count",
             "23 min · play resumes",
             "24 min · 2 moves re-entered from the paper ledgers by lead",
             "24 min · Green: built Power plant I",
             "27 min · end of the game"]
    places = [text.find(line) for line in story]
    missing = [line for line, at in zip(story, places) if at < 0]
    assert not missing, f"not in the report: {missing}"
    assert places == sorted(places), "the report tells them out of the order they happened in"


def test_the_french_report_tells_them_too(game_day):
    text = _text(render_report(game_day, "fr"))
    for line in ("stock corrigé après comptage (+25 Eau), raison : « tokens found under the table »",
                 "Verts : achat de l'animal Mouton", "jeu en pause", "début de la session 2",
                 "la banque était arrêtée (environ 25 min)", "2 écritures ressaisies depuis les registres papier par lead"):
        assert line in text, line


def test_the_chart_of_points_over_time_is_the_replays_curve(game_day):
    pdf = render_report(game_day, "en")
    first = " ".join(pages_text(pdf)[0])
    assert "Reputation over time" in first
    assert all(team in first for team in ("Green", "Blue", "Red", "Yellow"))  # the legend names every line
    curve = points_over_time(game_day.config, game_day.journal_rows(0))
    summary = summarise(game_day.config, game_day.journal_rows(0))
    for team, points in curve["teams"].items():
        drawn = summary.reputation[team]
        assert [p for _, p in drawn][-1] == points[-1][1] and drawn[-1][0] == curve["seconds"] / 60
        assert {round(m * 60) for m, _ in drawn} >= {s for s, _ in points}

