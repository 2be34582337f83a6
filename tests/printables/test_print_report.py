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
    assert "34 min: 10 tokens = 1 point became 5 tokens = 1 point" in text


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
    assert end_sentence(config, ended, "fr") == "Fin de la partie\u00a0: temps écoulé, après 180 min"


def test_long_lists_are_cut_with_a_count(started, run):
    run({"type": "inventory", "team": "blue", "counted": {"water": 20}})
    for _ in range(10):
        run({"type": "trade", "kind": "free", "merchant_team": "blue", "visited_team": "red", "give": {"water": 1}, "take": {}})
    text = all_text(render_report(started, "en"))
    assert text.count("with Red (free): gave 1 Water, got -") == 8
    assert "… and 2 more" in text


def test_r31_r33_the_report_says_why_the_winner_won(played):
    text = " ".join(all_text(render_report(played, "en")).split())
    assert "What made the game" in text
    assert "62 min · Red: 4 points from the facilitators, reason: 'fair play'" in text  # an award with its reason
    assert "38 min · Blue: 10 Water exchanged for 2 points" in text  # R32
    assert "44 min · event 'Drought' closed: 1. Blue (3 points)" in text  # R33 results
    assert "30 min · every track at the level needed: animals on sale" in text  # R26
    assert "fair play" in text and "wrong team" not in text.split("What made the game")[1].split("Blue")[0]


def test_french_report_agrees_its_plurals(played):
    text = all_text(render_report(played))
    assert "1 jetons" not in text and "(s)" not in text
    assert "10 jetons = 1 point devient 5 jetons = 1 point" in text


def test_r26_tracks_chart_runs_to_the_track_end_with_the_unlock_level_marked(played):
    text = all_text(render_report(played, "en"))
    assert "animals on sale (level 4)" in text and "end of the tracks (10)" in text


def test_chart_lines_are_told_apart_without_colour():
    from printables.report_chart import DASHES, MARKERS, line_colour, spread
    from printables.drawing import white_contrast

    assert len(set(MARKERS[:4])) == 4 and len(set(DASHES[:4])) == 4
    yellow = line_colour("#f2c230")
    assert white_contrast(yellow.hexval().replace("0x", "#")) >= 3  # no yellow at 1.7:1 on white
    a, b = spread([("A", "#000000", [(0, 0), (5, 0)]), ("B", "#000000", [(0, 0), (5, 0)])], 10)
    assert a[0][1] != b[0][1]  # two teams at 0 do not hide each other


def test_r31_points_by_source_add_up_to_each_teams_reputation(summary):
    for row in summary.standings:
        assert sum(summary.teams[row["team"]].sources.values()) == row["reputation"]
    assert summary.teams["green"].sources == {"building": 5, "track": 6, "animal": 3}
    assert summary.teams["red"].sources.get("award") == 4


def test_r34_options_and_sessions_are_told(bank, run):
    run({"type": "start_clock"}, now=1000.0)
    run({"type": "set_option", "option": "everyone_fights", "value": True}, now=1000.0 + 600)
    run({"type": "end_session"}, now=1000.0 + 1200)
    run({"type": "resume"}, now=1000.0 + 1300)
    text = " ".join(all_text(render_report(bank, "en")).split())
    assert "10 min · option 'everyone fights' switched on" in text
    assert "20 min · end of session 1" in text and "20 min · start of session 2" in text  # a new session, not a pause ending
