"""An open event with more givers than its panel holds, on the big screen (issue 35, found by
bench/web/tv_fit_cost.py's busy moment): 8 long-named teams, an event with 8 givers at 1920x1080. The
fit gave all it had (smallest type, no curve) and the last giver was still cut at the panel's bottom
edge: paging the events helps nothing when a single event is taller than the panel. Now the givers of
such an event show a page at a time ("1/2" beside them, turning every 5 s), as the other lists do.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from needs import needs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench" / "web"))
from test_tv_any_moment import SHOW, WRONG, game, open_screen  # noqa: E402,F401 (game: the fixture)
from tv_fit_cost import NAMES, busy  # noqa: E402

pytestmark = needs("playwright", "chromium")
PAST = ("() => { const p = document.querySelector('.events-panel').getBoundingClientRect(); return Array.from("
        "document.querySelectorAll('#events .giver')).filter(g => g.offsetParent).filter(g => "
        "g.getBoundingClientRect().bottom > p.bottom + 1).map(g => g.textContent); }")


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
        shown = set()
        page.evaluate("() => { window.__now = Date.now(); Date.now = () => window.__now; }")
        for _ in range(3 * 2 * 2):
            page.evaluate("() => { window.__now += 5000; W.fitScreen(); }")
            shown |= set(page.evaluate("() => Array.from(document.querySelectorAll('#events .giver'))"
                                       ".filter(g => g.offsetParent).map(g => g.textContent.trim())"))
            # Nothing runs past the events panel, whichever event shows (the checker forgives a glyph's pixels).
            past = page.evaluate(PAST)
            assert past == [], past
            if page.evaluate("() => document.querySelectorAll('#events .givers[data-turn]').length"):
                page.screenshot(path=f"/tmp/tv_givers_{width}.png")  # to look at: tests/web/field/README
        givers = {f"{NAMES[i]} {n}" for ev in picture["board"]["events"].values() for i, n in enumerate(ev["given"].values())}
        assert givers <= shown, sorted(givers - shown)
    finally:
        context.close()
