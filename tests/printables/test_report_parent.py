"""The end-of-game report a parent can read, over generated games (hypothesis).

Before, on a game day of 6 teams with long names: every correction's reason was cut to one line
ending in "…" ("raison : « un jeton trouvé sous la table de la banque par…"); the chart's legend
ran off the page after 3½ of 6 teams (the English winner was not in it); a long name in the
points table shrank to about 6 pt; and "12 écritures ressaisies" counted 2 duplicates undone
afterwards that the report never mentioned (when the first move of the batch was undone, the
whole batch's line vanished). Each generated game here (2 to 6 teams with long, accented, emoji
names, French or English, corrections with long reasons, a paper batch with duplicates undone)
is rendered and its pages measured: every team in the legend, every reason whole, no text under
8 pt, nothing outside the page, the undone moves said.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from print_names_kit import GAME_DAY_NAMES, config_with_teams
from printkit import all_text, drawn_strings, missing_glyphs, page_count, page_sizes_mm, play_sample
from report_game_kit import LONG_REASONS, Plan, plans, play

from bank.services.bank import Bank
from printables.report import render_report

MINUTES = {"fr": "minutes de jeu", "en": "minutes played"}
TRACKS_TITLE = {"fr": "Progression des pistes", "en": "Track progress"}


def squeezed(value: str) -> str:
    return "".join(value.split())


def report_of(plan: Plan) -> bytes:
    config = config_with_teams(plan.names)
    with tempfile.TemporaryDirectory(prefix="report-parent-") as folder:
        bank = Bank.create(Path(folder) / "game.db", config)
        try:
            play(bank, config, plan)
            return render_report(bank, plan.lang)
        finally:
            bank.close()


def legend_text(data: bytes, lang: str) -> str:
    """The 9 pt words under the points chart's axis and above the next chart's title: its legend."""
    for page in range(page_count(data)):
        strings = drawn_strings(data, page)
        axis = [box[1] for text, box, *_ in strings if text == MINUTES[lang]]
        if not axis:
            continue
        below = axis[0]
        end = max([box[1] for text, box, *_ in strings if text == TRACKS_TITLE[lang] and box[1] < below] or [0])
        return "".join(text for text, box, _, size, _ in strings if end < box[1] < below and abs(size - 9) < 0.01)
    raise AssertionError("no chart of points over time")


def check_report(plan: Plan, data: bytes) -> None:
    names = [fr if plan.lang == "fr" else en for fr, en in plan.names]
    text = squeezed(all_text(data))
    legend = squeezed(legend_text(data, plan.lang))
    for name in names:
        assert squeezed(name) in legend, ("not in the legend", name, legend)
    for reason in {*plan.reasons, plan.inventory_reason}:
        assert squeezed(reason) in text, ("reason cut", reason)
    assert "…" not in text  # nothing cut anywhere: no list here is longer than the report's limit
    if plan.lang == "fr":
        said = f"{plan.paper_moves}écriture{'s' if plan.paper_moves > 1 else ''}ressaisie"
        undone = f"dont{plan.paper_undone}annulée"
    else:
        said = f"{plan.paper_moves}move{'s' if plan.paper_moves > 1 else ''}re-entered"
        undone = f"{plan.paper_undone}ofthemundone"
    assert said in text
    assert (undone in text) == (plan.paper_undone > 0), undone
    if plan.paper_undone:
        assert squeezed(plan.undo_reason) in text
    assert missing_glyphs(data) == []
    for page, (width, height) in enumerate(page_sizes_mm(data)):
        for text_drawn, (x0, y0, x1, y1), upright, size, font in drawn_strings(data, page):
            assert size >= 8 - 1e-6, ("under 8 pt", page + 1, text_drawn, round(size, 2))
            assert 0 <= x0 and x1 <= width and 0 <= y0 and y1 <= height, ("off the page", page + 1, text_drawn)


def test_the_game_day_report_in_both_languages_tells_everything_legibly():
    for lang, tie in (("fr", False), ("en", True)):  # six long names sharing the win: all named, legibly
        plan = Plan(GAME_DAY_NAMES, LONG_REASONS, LONG_REASONS[0], paper_moves=12, paper_undone=2, lang=lang, tie=tie)
        check_report(plan, report_of(plan))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_any_generated_game_report_is_whole_and_legible(plan):
    check_report(plan, report_of(plan))


def test_an_undone_entry_is_told_with_what_it_was_whose_it_was_and_why(bank):
    play_sample(bank)  # a trade booked twice and an award to the wrong team, both undone
    fr = " ".join(all_text(render_report(bank, "fr")).split())
    en = " ".join(all_text(render_report(bank, "en")).split())
    assert "11 min · écriture de la minute 10 annulée (échange, Rouges, Verts), raison : « booked twice »" in fr
    assert "61 min · entry of minute 60 undone (facilitators' points, Yellow), reason: 'wrong team'" in en
