"""An open event with more givers than its panel holds, on the big screen (found by
bench/web/field/tv_fit_cost.py's busy moment): 8 long-named teams, an event with 8 givers at 1920x1080. The
fit gave all it had (smallest type, no curve) and the last giver was still cut at the panel's bottom
edge: paging the events helps nothing when a single event is taller than the panel. Now the givers of
such an event show a page at a time ("1/2" beside them, turning every 5 s), as the other lists do.

Since the big screen ranks an event's givers ("1er", "2e", ...) and keeps its leaders on every page of the
turns, a giver reads "rank, the team's short name on its chip (the whole name in its title), amount": each
giver is looked for by its whole name and amount, its chip naming that team and no other.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from needs import needs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench" / "web" / "field"))
from test_tv_any_moment import SHOW, WRONG, game, open_screen  # noqa: E402,F401 (game: the fixture)
from tv_fit_cost import NAMES, busy  # noqa: E402

pytestmark = needs("playwright", "chromium")
PAST = ("() => { const p = document.querySelector('.events-panel').getBoundingClientRect(); return Array.from("
        "document.querySelectorAll('#events .giver')).filter(g => g.offsetParent).filter(g => "
        "g.getBoundingClientRect().bottom > p.bottom + 1).map(g => g.textContent); }")

# Each events list shown: its event, its page of the turns ("1/2", or null), and its givers in view as
# [rank, the chip's text, the chip's title (the team's whole name), amount].
GIVERS = ("() => Array.from(document.querySelectorAll('#events .givers')).filter(l => l.offsetParent).map(l => ["
          "l.closest('.event').dataset.event, l.dataset.turn || null, Array.from(l.querySelectorAll('.giver'))"
          ".filter(g => g.offsetParent).map(g => { const chip = g.querySelector('.team-chip'); return [g.dataset.rank, "
          "chip.textContent.trim(), chip.title, g.lastChild.textContent.trim()]; })])")


@pytest.mark.serial("the givers shown in timed turns: beside four workers one run saw a turn too many")
@pytest.mark.parametrize("width,height", [(1920, 1080), (1280, 720)])
def test_an_event_with_eight_givers_shows_them_all_in_turns_and_cuts_none(chromium, game, width, height):
    url, template, _, _ = game
    teams, picture = busy(template)
    context, page = open_screen(chromium, url, width, height, "fr")
    try:
        labelled = {t: {**team, "label": {"fr": team["label"]}} for t, team in teams.items()}  # the kit's shape
        page.evaluate(SHOW, [labelled, None, picture, [2_000_001, 2_000_002]])
        seen = page.evaluate(WRONG, round(24 * min(width, height) / 1080, 1))
        assert seen["problems"] == [], f"(gave way: {seen['fit']}, {seen['log']}): {seen['problems']}"
        # Every giver of every event shows within the turns (the page's clock stepped 5 s at a time).
        shown, turned = set(), set()
        page.evaluate("() => { window.__now = Date.now(); Date.now = () => window.__now; }")
        for _ in range(3 * 2 * 2):
            page.evaluate("() => { window.__now += 5000; W.fitScreen(); }")
            lists = page.evaluate(GIVERS)
            for event, turn, givers in lists:
                for rank, chip, name, amount in givers:
                    # The chip names this team: its short name, a whole beginning of the name or the name itself.
                    assert chip and name.startswith(chip.removesuffix("\u2026")), (chip, name)
                    shown.add(f"{name} {amount}")
                if turn:  # a page of the turns: the event's leaders are on it, first
                    turned.add(event)
                    ranks = [rank for rank, *_ in givers]
                    assert ranks[0] == "1" and ranks == sorted(ranks, key=int), (event, turn, givers)
            # Nothing runs past the events panel, whichever event shows (the checker forgives a glyph's pixels).
            past = page.evaluate(PAST)
            assert past == [], past
            if page.evaluate("() => document.querySelectorAll('#events .givers[data-turn]').length"):
                page.screenshot(path=f"/tmp/tv_givers_{width}.png")  # to look at: tests/web/field/README
        givers = {f"{NAMES[i]} {n}" for ev in picture["board"]["events"].values() for i, n in enumerate(ev["given"].values())}
        assert givers <= shown, sorted(givers - shown)
        # At 1920x1080 the short names now let the 8 givers fit at once; at 1280x720 they still take turns.
        assert turned or width >= 1920, "no event's givers in turns: the test no longer shows an event taller than its panel"
    finally:
        context.close()
