"""Long team names and the lead's account form, seen in a real browser at phone size.

The config refuses a team name over 30 characters; at 30, one long word, nothing may push a
score or a button off a 360 px screen. Needs Playwright and Debian's Chromium for the page
tests (skipped without them); the server runs in a thread on 127.0.0.1.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from bank.game.config_sections import TEAM_NAME_MAX
from bank.errors import ConfigError
from browserkit import CHROMIUM, log_in_to, serve_in_thread
from play import config_with

ROOT = Path(__file__).resolve().parents[3]
LONG = "W" * TEAM_NAME_MAX  # the widest letter, no space to wrap at
NAMES = (('fr = "Bleus"', 'fr = "Les Castors du Grand Lac"'), ('fr = "Jaunes"', f'fr = "{LONG}"'))


def test_a_team_name_over_the_limit_is_refused_naming_the_key():
    config_with(*NAMES)  # at the limit: accepted
    with pytest.raises(ConfigError) as err:
        config_with(('fr = "Jaunes"', f'fr = "{LONG}W"'))
    assert "teams[1].label.fr" in str(err.value) and "the second [[teams]] table" in str(err.value) and f"at most {TEAM_NAME_MAX}" in str(err.value)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on 127.0.0.1 with two long team names, yellow at 999 points and blue at 12."""
    from needs import require

    require("playwright", "chromium")
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    folder = tmp_path_factory.mktemp("layout")
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": config_with(*NAMES), "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    services = app.extensions["terrabank"]
    services.access.add_user("lea", "password1", "lead")
    for n, (team, points) in enumerate((("yellow", 999), ("blue", 12))):
        services.bank.execute({"id": f"p{n}", "actor": "lea", "type": "award", "team": team, "points": points, "reason": "set-up"})
    url, _ = serve_in_thread(app)
    return app, url


@pytest.fixture
def phone(chromium, server):
    """A 360 px wide page logged in as the lead; fails the test on any script error."""
    context = chromium.new_context(viewport={"width": 360, "height": 740})
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in_to(page, server[1], "/console")
    yield page
    context.close()
    assert not errors, errors


def _expect(locator):
    """Playwright's waiting assertions (imported here: the config test above runs without Playwright)."""
    return pytest.importorskip("playwright.sync_api").expect(locator)


def _overflowing(page) -> list:
    """Elements that reach past the right edge of the screen (a name pushing its neighbours off)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('main *, header *')).filter(e => {
        const r = e.getBoundingClientRect(); return r.width > 0 && r.right > innerWidth + 1;
      }).map(e => e.tagName + '.' + e.className)""")


def test_the_phone_header_shows_the_whole_score_beside_a_long_name(server, phone):
    app, url = server
    phone.goto(url + "/t/" + app.extensions["terrabank"].access.team_tokens()["yellow"])
    score = phone.locator("#team-rep")
    _expect(score).to_have_text("999")
    box = score.bounding_box()
    assert box["x"] + box["width"] <= 360 and score.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert _overflowing(phone) == []


@pytest.mark.parametrize("path", ["/console", "/fight"])
def test_long_names_keep_the_team_buttons_on_a_phone_screen(server, phone, path):
    phone.goto(server[1] + path)
    phone.locator(".team-btn").first.wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    assert _overflowing(phone) == []


def test_the_lead_creates_an_account_with_a_generated_password(server, phone):
    phone.goto(server[1] + "/admin")
    form = phone.locator("#account-form")
    form.locator("[name=username]").fill("dora")
    form.locator("[name=role]").select_option("referee")
    phone.click("#account-generate")
    shown = phone.locator("#account-password code")
    shown.wait_for()
    password = shown.inner_text()
    assert len(password) >= 8
    _expect(phone.locator('[data-account="dora"]')).to_have_count(1)  # the list is drawn again after the reply
    assert server[0].extensions["terrabank"].access.check("dora", password) == "referee"
    assert _overflowing(phone) == []


def test_two_different_passwords_are_refused_before_sending(server, phone):
    phone.goto(server[1] + "/admin")
    form = phone.locator("#account-form")
    form.locator("[name=username]").fill("zoe")
    form.locator("[name=password]").fill("first password")
    form.locator("[name=again]").fill("second password")
    form.locator("button[type=submit]").click()
    _expect(phone.locator("#banner")).to_have_text(re.compile("diffèrent"))
    assert "zoe" not in [row["username"] for row in server[0].extensions["terrabank"].access.users()]


def test_the_offline_badge_fits_a_phone_header(server, phone):
    app, url = server
    phone.goto(url + "/t/" + app.extensions["terrabank"].access.team_tokens()["blue"])
    phone.locator("#team-rep").wait_for()
    phone.evaluate("""() => { const b = document.getElementById('conn-badge'); b.className = 'badge badge-offline';
        b.textContent = TB.t('offline_ago', {age: '12 min'}); }""")  # what live.js shows after a long cut
    assert _overflowing(phone) == []


def test_the_undo_reason_has_room_to_type(server, phone):
    phone.goto(server[1] + "/console")
    undo = phone.locator(".journal .btn-undo").first
    undo.scroll_into_view_if_needed()
    undo.click()
    field = phone.locator(".undo-form input").first
    assert field.bounding_box()["width"] >= 200
    assert _overflowing(phone) == []


def test_a_new_event_starts_again_from_the_default_rewards(server, phone):
    phone.goto(server[1] + "/admin")
    form = phone.locator("#event-form")
    _expect(phone.locator("#title-count")).to_have_text("0 / 80")  # the form is set up once the config is loaded
    form.locator("[name=title]").fill("Drought")
    _expect(phone.locator("#title-count")).to_have_text("7 / 80")
    form.locator("#event-rewards input").first.fill("9")
    form.locator("button[type=submit]").click()
    _expect(phone.locator("#title-count")).to_have_text("0 / 80")
    assert [i.input_value() for i in form.locator("#event-rewards input").all()] == ["5", "3", "1"]
    opened = [e for e in server[0].extensions["terrabank"].bank.state.to_dict()["events"].values() if e["title"] == "Drought"]
    assert opened and opened[0]["rewards"][0] == {"points": 9}
