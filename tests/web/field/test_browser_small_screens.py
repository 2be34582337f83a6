"""A team's phone at the end and the admin page's restart note.

On a 360 px phone the end results lay on a see-through overlay over the team's page, ran past the
bottom and wrapped "pts" alone onto a line under long names; the admin page said "après 2 min d'arrêt
au plus" for a bank down 2 min 54 s. Here, for 2 short-named French teams and 6 long, emoji-named
English ones: the results open the phone's page, opaque, in its flow, every row's rank, name and points
inside the screen's width and on the row; the restart's duration as measured.

Needs Playwright and Debian's Chromium (skipped without them).
"""

from __future__ import annotations

import re
import time

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, log_in_to, serve_in_thread  # noqa: E402,F401
from teams_kit import LONG_NAMES, game_with_names  # noqa: E402

pytestmark = needs("playwright", "chromium")
GAMES = {"2-fr": (("Bleus", "Jaunes"), "fr"), "6-long-en": (LONG_NAMES, "en")}


@pytest.fixture(scope="module", params=list(GAMES))
def ended(request, tmp_path_factory):
    """A game played and ended: every team with points, the last team of the config last."""
    names, lang = GAMES[request.param]
    app, services, teams, run = game_with_names(tmp_path_factory.mktemp("small"), names, lang)
    run(type="start_clock")
    for n, team in enumerate(teams):
        run(type="award", team=team, points=100 - 10 * n, reason="jeu")
    run(type="end_game")
    url, _ = serve_in_thread(app)
    return {"app": app, "url": url, "teams": teams, "lang": lang, "tokens": services.access.team_tokens()}


@pytest.fixture
def phone(chromium, ended):
    context = chromium.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True, locale=ended["lang"])
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


RESULTS = """() => {
  const w = document.querySelector('#winner'), r = w.getBoundingClientRect(), cs = getComputedStyle(w);
  const alpha = (cs.backgroundColor.match(/rgba?\\(([^)]+)\\)/)[1].split(',')[3] ?? '1').trim();
  const under = Array.from(document.querySelectorAll('#team-root *')).filter(e => {
    const q = e.getBoundingClientRect(); return q.width && q.height && q.bottom > r.top && q.top < r.bottom; }).length;
  const rows = Array.from(w.querySelectorAll('.final-ranking li')).map(li => {
    const box = li.getBoundingClientRect();
    const parts = Array.from(li.children).map(c => c.getBoundingClientRect());
    return {text: li.textContent, left: Math.min(...parts.map(p => p.left)), right: Math.max(...parts.map(p => p.right)),
            inside: parts.every(p => p.top >= box.top - 1 && p.bottom <= box.bottom + 1),
            apart: parts.every((p, i) => parts.every((o, j) => i >= j || p.right <= o.left + 1 || o.right <= p.left + 1
                                                              || p.bottom <= o.top + 1 || o.bottom <= p.top + 1)),
            children: li.children.length, nodes: Array.from(li.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim()).length};
  });
  return {position: cs.position, alpha: +alpha, under, rows, top: r.top + scrollY, width: innerWidth,
          docw: document.documentElement.scrollWidth, fontMin: Math.min(...Array.from(w.querySelectorAll('*')).filter(e => e.childNodes.length
            && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())).map(e => parseFloat(getComputedStyle(e).fontSize)))};
}"""


def test_a_team_phone_reads_the_end_results_whole_on_an_opaque_page(ended, phone):
    last = ended["teams"][-1]
    phone.goto(f"{ended['url']}/t/{ended['tokens'][last]}")
    sync_api.expect(phone.locator("#winner")).to_be_visible()
    sync_api.expect(phone.locator("#winner .final-ranking li")).to_have_count(len(ended["teams"]))
    found = phone.evaluate(RESULTS)
    assert found["alpha"] == 1, found  # nothing of the page shows through
    assert found["position"] != "fixed" and found["under"] == 0, found  # in the page's flow: over nothing
    assert found["top"] < 120, found  # the page opens on it
    assert found["docw"] <= 360 and found["width"] == 360, found  # a phone widens its layout to what overflows
    assert found["fontMin"] >= 14, found
    for row in found["rows"]:
        assert row["left"] >= 0 and row["right"] <= 360, row
        assert row["inside"] and row["apart"], row  # rank, name, points side by side, none on a line of its own
        assert row["nodes"] == 0, row  # no loose text ("pts") laid out as a cell of its own


@pytest.mark.parametrize("down, said", [(174, {"fr": "2 min 54 s", "en": "2 min 54 s"}),
                                        (120, {"fr": "2 min d", "en": "2 min down"}),
                                        (3601, {"fr": "1 h 01 min", "en": "1 h 01 min"})])
def test_the_admin_page_says_how_long_the_bank_was_down_as_measured(ended, chromium, down, said):
    bank = ended["app"].extensions["terrabank"].bank
    bank.reopened = {"at": time.time(), "down_at_most": down}
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=ended["lang"])
    try:
        page = context.new_page()
        log_in_to(page, ended["url"], "/admin")
        note = page.locator("#bank-reopened")
        sync_api.expect(note).to_be_visible()
        sync_api.expect(note).to_contain_text(said[ended["lang"]])
        text = note.text_content()
        shown = sum(int(n) * unit for part, unit in ((r"(\d+) h\b", 3600), (r"(\d+) min\b", 60), (r"(\d+) s\b", 1))
                    for n in re.findall(part, text))
        assert down <= shown < down + 60, text  # "at most" stays true, and within a minute of what was measured
    finally:
        context.close()


# ---- during play: nothing pushed past a 360 px screen's right edge by a long name ----

@pytest.fixture(scope="module")
def playing(tmp_path_factory):
    """Six long, emoji-named teams in play, a pirate of the fifth waiting after a fight."""
    app, _, teams, run = game_with_names(tmp_path_factory.mktemp("small-play"), LONG_NAMES, "fr")
    run(type="start_clock")
    run(type="fight", attacker_team=teams[4], attacker_card="pirate-1", defender_team=teams[1],
        defender_card="harvester-1", winner="defender", tokens={})
    url, _ = serve_in_thread(app)
    return {"url": url, "teams": teams}


def _wider(page) -> list:
    """What reaches past the 360 px screen's right edge, clipped by a panel or not (a name pushing its neighbour
    out). Not innerWidth: a phone's browser widens its layout to what overflows (595 px here, zoomed out)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('main *')).filter(e => {
        const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.right > 361; })
        .map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 30)).slice(0, 6)""")


def test_the_fight_page_with_both_long_named_fighters_chosen_stays_within_360_px(playing, chromium):
    context = chromium.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        log_in_to(page, playing["url"], "/fight")
        teams = playing["teams"]
        page.click(f'#attacker [data-team="{teams[3]}"]')
        page.click('#attacker [data-card="pirate-1"]')
        page.click(f'#defender [data-team="{teams[1]}"]')
        page.click('#defender [data-card="harvester-1"]')
        sync_api.expect(page.locator("#rounds .n")).to_have_count(2)
        assert _wider(page) == []
    finally:
        context.close()


# ---- the console's result banner on a 360 px phone: over no button, wherever the page is scrolled ----

COVERED = """() => {
  const b = document.querySelector('#banner');
  if (!b || b.classList.contains('hidden')) return null;
  const r = b.getBoundingClientRect();
  // What of a button the eye can reach: its box cut by every scrolling box it lies in, and by the screen.
  const seen = e => { let q = e.getBoundingClientRect(), top = q.top, bottom = q.bottom, left = q.left, right = q.right;
    for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) { const c = p.getBoundingClientRect();
        top = Math.max(top, c.top); bottom = Math.min(bottom, c.bottom); left = Math.max(left, c.left); right = Math.min(right, c.right); } }
    return {top: Math.max(top, 0), bottom: Math.min(bottom, innerHeight), left: Math.max(left, 0), right: Math.min(right, innerWidth)}; };
  return Array.from(document.querySelectorAll('main button, main input, main select, main textarea')).filter(e => {
    if (b.contains(e) || !e.offsetParent) return false;
    const q = seen(e);
    return q.bottom - q.top > 1 && q.right - q.left > 1 && q.bottom > r.top + 1 && q.top < r.bottom - 1 && q.right > r.left + 1 && q.left < r.right - 1;
  }).map(e => (e.textContent || e.value || e.name || e.tagName).trim().slice(0, 30));
}"""


@pytest.mark.parametrize("where", ["top", "bottom", "end"])
def test_the_console_banner_on_a_360_px_phone_covers_no_button(playing, chromium, where):
    context = chromium.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        log_in_to(page, playing["url"], "/console")
        page.locator(f'#team-picker [data-team="{playing["teams"][2]}"]').first.click()
        page.click('#tabs [data-tab="harvest"]')
        card = page.locator('[data-panel="harvest"] [data-card="harvester-2"]')
        if card.count():
            card.first.click()
        button = page.locator('[data-panel="harvest"] [data-resource="flora"]')
        # The resource button at the top of the screen, at its bottom, or the page scrolled to its end after the tap.
        button.evaluate("(e, where) => e.scrollIntoView({block: where === 'top' ? 'start' : 'end'})", where)
        page.wait_for_timeout(300)
        button.tap()
        sync_api.expect(page.locator("#banner")).to_have_class(re.compile("banner-ok"))
        page.wait_for_timeout(400)
        if where == "end":
            page.locator("#journal li").last.evaluate("e => e.scrollIntoView({block: 'end'})")
            page.wait_for_timeout(400)
        assert page.evaluate(COVERED) == []
    finally:
        context.close()
