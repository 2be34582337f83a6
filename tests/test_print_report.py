"""The end-of-game report: figures from the journal, then the PDF."""

from __future__ import annotations

import pytest
from printkit import all_text, follows, page_sizes_mm, pages_text, play_sample

from printables.report import end_sentence, render_report, winner_line
from printables.report_data import summarise


@pytest.fixture
def played(bank):
    """The conftest bank after a short scripted game that the lead facilitator ends at 70 min."""
    play_sample(bank)
    return bank


@pytest.fixture
def summary(played):
    return summarise(played.config, played.journal_rows(0))


def test_r35_standings_and_the_end_come_from_the_game(summary, played):
    assert [r["team"] for r in summary.standings] == ["green", "red", "blue", "yellow"]
    assert {r["team"]: r["reputation"] for r in summary.standings} == played.state.reputation
    assert summary.ended == {"reason": "stopped", "winners": ["green"], "elapsed": 4200.0}
    assert summary.minutes == 70


def test_r31_reputation_curve_steps_at_game_minutes(summary):
    assert summary.reputation["green"] == [(0, 0), (5, 0), (5, 5), (20, 5), (20, 11), (50, 11), (50, 14), (70, 14)]
    # A reversed award shows as a rise and a fall: the curve is the true history.
    assert summary.reputation["yellow"] == [(0, 0), (60, 0), (60, 4), (61, 4), (61, 0), (70, 0)]


def test_r24_track_progress_curves(summary):
    assert summary.tracks["hydrosphere"] == [(0, 0), (25, 0), (25, 4), (70, 4)]


def test_r16_trades_are_told_from_both_sides_and_reversed_ones_left_out(summary):
    assert summary.teams["blue"].trades == [{"minute": 9, "other": "yellow", "kind": "free", "gave": {"water": 2}, "got": {"energy": 2}}]
    assert summary.teams["yellow"].trades[0]["gave"] == {"energy": 2}
    assert summary.teams["red"].trades == [] and summary.teams["green"].trades == []


def test_r18_fights_with_who_won(summary):
    assert [(f["card"], f["other"], f["won"]) for f in summary.teams["red"].fights] == \
        [("pirate-1", "blue", True), ("builder-1", "blue", True)]
    assert [f["won"] for f in summary.teams["blue"].fights] == [False, False]


def test_r33_contributions_and_r32_rate_changes(summary):
    assert summary.teams["blue"].contributions == {"Drought": 6}
    assert summary.rates == [{"minute": 34, "was": {"tokens": 10, "points": 1}, "now": {"tokens": 5, "points": 1}, "actor": None}]


def test_buildings_and_animals_owned_at_the_end(summary):
    assert summary.teams["green"].buildings == ["greenhouse"] and summary.teams["green"].animals == ["sheep"]
    assert summary.teams["red"].buildings == ["power_plant_1"]


def test_report_is_byte_for_byte_reproducible(played):
    assert render_report(played, "en") == render_report(played, "en")


def test_report_pdf_tells_the_game(played):
    pdf = render_report(played, "en")
    assert set(page_sizes_mm(pdf)) == {(210, 297)}
    first = pages_text(pdf)[0]
    assert "End of the game: stopped by the facilitators, after 70 min" in first
    assert "Winner: Green" in first
    assert follows(first, "1", "Green", "14", "1", "1")
    assert "Reputation over time" in first and "Track progress" in first
    text = all_text(pdf)
    assert "12 min · Pirate 1 against Blue (Harvester 1): won" in text
    assert "9 min · with Yellow (free): gave 2 Water, got 2 Energy" in text
    assert "Drought: 6 tokens" in text
    assert "34 min: 10 tokens = 1 point(s) became 5 tokens = 1 point(s)" in text


def test_report_in_french_by_default(played):
    text = all_text(render_report(played))
    assert "Vainqueur : Verts" in text and "Bilan de la partie" in text


def test_report_of_a_game_not_over(bank, config):
    assert end_sentence(config, None, "en") == "The game is not over."
    assert winner_line(config, None, "en") == ""
    assert "The game is not over." in all_text(render_report(bank, "en"))


def test_r35_a_tie_names_every_winner(config):
    ended = {"reason": "time", "winners": ["blue", "red"], "elapsed": 10800.0}
    assert winner_line(config, ended, "en") == "Tie: Blue, Red"
    assert end_sentence(config, ended, "fr") == "Fin de la partie : temps écoulé, après 180 min"


def test_long_lists_are_cut_with_a_count(started, run):
    run({"type": "inventory", "team": "blue", "counted": {"water": 20}})
    for _ in range(10):
        run({"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red", "give": {"water": 1}, "take": {}})
    text = all_text(render_report(started, "en"))
    assert text.count("with Red (free): gave 1 Water, got -") == 8
    assert "… and 2 more" in text
