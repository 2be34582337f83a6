"""The big screen with six long, accented, emoji team names.

A game day showed, during play, an event's givers one every 5 s ("3/6") in the teams' order, so nobody
saw who was winning it; chips and replay bars cut the names by the pixel, so teams were told apart by
colour alone; the curve's labels cut an emoji in half ("�" in the page); at the end the board ran
300-450 px past the bottom under the winner's overlay; after a skip the podium still said "minute 16".

Here: the givers in rank order, the leaders on every page of the turns; a short name per team (the
config's `short`, else a cut after a word or a grapheme, never inside one: checked on generated names
with Intl.Segmenter), distinct for every team; the overlay covering a page that no longer runs past
the screen; the podium's minute that of the game's end.

Needs Playwright and Debian's Chromium (skipped without them). The module's tests share one game and run
in file order: the last ones end it.
"""

from __future__ import annotations

import itertools
import logging
import time

import pytest
from hypothesis import given, settings, strategies as st

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import CHROMIUM, page_opener, serve_in_thread  # noqa: E402,F401
from teams_kit import LONG_NAMES, config_file  # noqa: E402

pytestmark = needs("playwright", "chromium")
SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
GIVEN = [1, 2, 5, 1, 5, 3]  # two leaders tied at 5 (the 3rd and 5th teams), then 3, 2, and two at 1
SHORTS = [None, None, None, None, "Rex & Cie", None]  # one team with its own short name in the config
_ids = itertools.count(1)
LONE_SURROGATE = r"/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/"


@pytest.fixture(scope="module", params=["fr", "en"])
def server(request, tmp_path_factory):
    """Six long-named teams 20 minutes into a game: an event all six gave to, players waiting after fights."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("tv-names")
    app = create_app({"DB": str(folder / "game.db"), "PASSWORD_HASH": "pbkdf2:sha256:1000",
                      "CONFIG": config_file(folder, LONG_NAMES, shorts=SHORTS, lang=request.param)})
    bank = app.extensions["terrabank"].bank
    start = time.time() - 20 * 60

    def run(at=None, **command):
        return bank.execute({"id": f"tv-{next(_ids)}", "actor": "lea", **command}, now=at)
    run(at=start, type="start_clock")
    teams = list(app.extensions["terrabank"].config.teams)
    for n, team in enumerate(teams):
        run(at=start + 60 + n, type="inventory", team=team, counted={"water": 10})
        run(at=start + 120 + 60 * n, type="award", team=team, points=n + 1, reason="jeu")
    run(at=start + 600, type="open_event", title="Sécheresse 🌵", accepts=["water"], rewards=[{"points": 5}, {"points": 2}],
        target=60, deadline_minutes=30)
    event = list(bank.state.events)[0]
    for team, n in zip(teams, GIVEN):
        run(at=start + 700, type="contribute", event=event, team=team, tokens={"water": n})
    for a, d in ((1, 0), (3, 2), (5, 4)):
        run(at=start + 1100, type="fight", attacker_team=teams[a], attacker_card="pirate-1", defender_team=teams[d],
            defender_card="harvester-1", winner="defender", tokens={})
    url, _ = serve_in_thread(app)
    return {"app": app, "url": url, "run": run, "teams": teams, "start": start,
            "key": app.extensions["terrabank"].access.display_key(), "lang": request.param}


@pytest.fixture
def screen(chromium, server):
    """The big screen at a size, live; fails the test on any script error."""
    with page_opener(chromium) as open_page:
        def open_at(width, height, query="", wait="#events .giver"):
            page = open_page(viewport={"width": width, "height": height}, locale=server["lang"])
            page.goto(f"{server['url']}/display?key={server['key']}{query}")
            page.wait_for_selector(wait, state="attached")
            page.wait_for_timeout(600)  # the fit settled
            return page
        yield open_at


def _givers(page) -> list:
    return page.evaluate("""() => Array.from(document.querySelectorAll('#events .giver')).map(g => ({
        rank: +g.dataset.rank, shown: g.style.display !== 'none' && g.offsetParent !== null,
        name: g.querySelector('.team-chip').title, given: +g.textContent.trim().split(/\\s+/).pop()}))""")


def _labels(server) -> dict:
    config = server["app"].extensions["terrabank"].config
    return {t: config.teams[t].label[server["lang"]] for t in server["teams"]}


@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_the_givers_come_in_rank_order_and_the_leaders_always_show(server, screen, size):
    page = screen(*size)
    labels = _labels(server)
    givers = _givers(page)
    expected = sorted(zip(GIVEN, range(6)), key=lambda x: -x[0])
    assert [g["name"] for g in givers] == [labels[server["teams"][i]] for _, i in expected]
    assert [g["given"] for g in givers] == [n for n, _ in expected]
    assert [g["rank"] for g in givers] == [1, 1, 3, 4, 5, 5]  # as the bank ranks them at the close
    assert all(g["shown"] for g in givers if g["rank"] == 1), givers


def test_in_turns_every_page_shows_the_leaders_and_every_giver_comes(server, screen):
    """Givers made too wide for their panel (a type 4 times as big) are shown in turns: below the leaders."""
    page = screen(1280, 720)
    page.add_style_tag(content="body.display .givers .giver { font-size: 7rem; }")
    page.evaluate("() => W.fitScreen(true)")
    page.wait_for_function("() => document.querySelector('#events .givers').dataset.turn", timeout=10_000)
    seen, real_now = set(), page.evaluate("() => Date.now()")
    for turn in range(6):  # each page of the turns: the clock set 5 s on, the next second's redraw shows it
        # The givers as drawn before it are marked: the redraw (a new list, display.js draws them each second) has none.
        page.evaluate(f"() => {{ const t = {real_now} + {turn} * 5000; Date.now = () => t; "
                      "document.querySelectorAll('#events .givers').forEach(l => { l.dataset.before = '1'; }); }")
        page.wait_for_function("() => { const l = document.querySelector('#events .givers');"
                               " return !!l && !l.dataset.before && !!l.dataset.turn; }",
                               polling=100, timeout=10_000)  # not each frame: those polls cost more CPU than the wait
        givers = _givers(page)
        assert [g["rank"] for g in givers if g["shown"]][:2] == [1, 1], givers
        seen |= {g["name"] for g in givers if g["shown"]}
    assert seen == set(_labels(server).values())


def test_short_names_are_distinct_whole_graphemes_and_the_config_s_own(server, screen):
    page = screen(1280, 720)
    labels, teams = _labels(server), server["teams"]
    shorts = page.evaluate("ids => ids.map(id => W.teamShort(id))", teams)
    assert len(set(shorts)) == 6, shorts
    assert shorts[4] == "Rex & Cie"  # the config's `short`
    texts = page.evaluate("""() => Array.from(document.querySelectorAll('body *')).flatMap(e =>
        [e.childNodes.length ? Array.from(e.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join('') : '',
         e.getAttribute('title') || '']).filter(Boolean)""")
    assert page.evaluate(f"texts => texts.filter(t => {LONE_SURROGATE}.test(t))", texts) == []
    chart = page.evaluate("() => Array.from(document.querySelectorAll('.line-label, .team-chip')).map(e => e.textContent)")
    for text in chart:
        assert "\ufffd" not in text
    for team, short in zip(teams, shorts):
        assert short == labels[team] or short == "Rex & Cie" or (short.endswith("…") and len(short) <= 3 * 12), short


PIECES = list("aéZŒ -—,&'") + ["🌱", "🦖", "☀️", "👩‍👩‍👧", "🇫🇷", "👍🏽", "e\u0301", "Les ", "Mégalosaure"]
NAMES = st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map("".join).map(str.strip).filter(bool),
                 min_size=2, max_size=6, unique=True)


@pytest.fixture(scope="module")
def probe(chromium, server):
    """One big screen kept open for the generated names (a page per example would take a second each)."""
    context = chromium.new_context()
    page = context.new_page()
    page.goto(f"{server['url']}/display?key={server['key']}")
    page.wait_for_function("() => window.W && W.config")
    yield page
    context.close()


@settings(max_examples=80, deadline=None)
@given(names=NAMES)
def test_generated_names_are_cut_on_graphemes_and_stay_apart(probe, names):
    out = probe.evaluate("""names => {
      const seg = new Intl.Segmenter(undefined, {granularity: 'grapheme'}), keep = W.config;
      const g = s => Array.from(seg.segment(s), x => x.segment);
      W.config = Object.assign({}, keep, {teams: Object.fromEntries(names.map((n, i) => ['t' + i, {label: n, colour: '#123456'}]))});
      const shorts = names.map((n, i) => W.teamShort('t' + i));
      W.config = keep;
      return names.map((n, i) => {
        const s = shorts[i], cut = s === n.trim() ? null : s.replace(/\\u2026$/, '');
        const whole = cut === null || (s.endsWith('\\u2026') && g(n.trim()).join('').startsWith(cut)
          && g(n.trim()).slice(0, g(cut).length).join('') === cut);
        return {name: n, short: s, whole: whole, cut: g(W.cutName(n)).length};
      });
    }""", names)
    for row in out:
        assert row["whole"], row  # a grapheme of the name is never split
        assert row["cut"] <= 12, row  # the cut of a name alone: 11 graphemes and "…" at most
    assert len({r["short"] for r in out}) == len({r["name"].strip() for r in out}), out  # teams stay apart


def test_a_replay_opened_with_an_old_link_says_why_in_the_game_language(server, chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 720}, locale=server["lang"])
    try:
        page = context.new_page()
        page.goto(f"{server['url']}/display?key=an-old-key&replay=1")
        caption = page.locator("#replay-captions li").first
        sync_api.expect(caption).to_contain_text({"fr": "grand écran ouvert avec son propre lien",
                                                  "en": "big screen opened with its own link"}[server["lang"]])
        assert "the replay plays" not in caption.text_content()  # not the bank's English message
    finally:
        context.close()


# ---- the end (these tests end the game: last in the module) ----

@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_at_the_end_the_overlay_covers_a_board_that_stays_on_the_screen(server, screen, size):
    if not server["app"].extensions["terrabank"].bank.state.ended:
        server["run"](at=server["start"] + 25 * 60, type="end_game")
    page = screen(*size, wait="#winner:not(.hidden)")
    box = page.evaluate("""() => { const r = document.querySelector('#winner').getBoundingClientRect();
        return {top: r.top, left: r.left, right: r.right, bottom: r.bottom, w: innerWidth, h: innerHeight,
                doc: document.documentElement.scrollHeight, docw: document.documentElement.scrollWidth}; }""")
    assert (box["top"], box["left"], box["right"], box["bottom"]) == (0, 0, box["w"], box["h"]), box
    assert box["doc"] <= box["h"] and box["docw"] <= box["w"], box  # nothing runs past the bottom under it


def test_the_podium_after_a_skip_says_the_minute_the_game_ended(server, screen):
    if not server["app"].extensions["terrabank"].bank.state.ended:
        server["run"](at=server["start"] + 25 * 60, type="end_game")
    page = screen(1280, 720, "&replay=1&replay_seconds=40", wait="#replay-skip")
    page.wait_for_selector("#replay-skip")
    page.wait_for_timeout(1500)
    page.click("#replay-skip")
    sync_api.expect(page.locator("#replay-podium")).to_be_visible()
    minute = page.locator("#replay-clock").text_content()
    assert "25" in minute, minute
