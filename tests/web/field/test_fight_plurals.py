"""No "(s)" plural on the fight page or the console (polish): "1 dé bonus" / "2 dés bonus", "1 cran" /
"2 crans", in French and English, the singular chosen by the page's own rule for one (TB.one: 0 and 1
in French, 1 in English), as "1 manche" / "2 manches" were (tests/web/field/test_polish_pages.py).

Before: the pages' strings said "%(n)s dé(s) bonus" (every page's shared strings, so also the fight
page), "il ne reste de la place que pour %(room)s cran(s)" (a refusal the fight page can show) and
"%(n)s cran(s), coût :" (the console's Terraform tab).
The browser part needs Playwright and Debian's Chromium, and is skipped without them.
"""

from __future__ import annotations

import re

import pytest

from browserkit import log_in_to, started_bank
from needs import module, needs
from test_pages import login, strings

sync_api = module("playwright.sync_api")
PHONE = {"width": 360, "height": 740}
PLURAL_IN_BRACKETS = re.compile(r"\w\(s\)")  # "dé(s)", "cran(s)"; not the "%(s)s" of a placeholder


def page_strings(app, path: str, lang: str) -> dict:
    client = app.test_client()
    login(client)
    if lang != "fr":
        token = client.get("/api/csrf").get_json()["csrf"]
        assert client.post(f"/api/lang/{lang}", headers={"X-CSRF-Token": token}).status_code == 200
    return strings(client.get(path).get_data(as_text=True))


@pytest.mark.parametrize("path", ["/fight", "/console"])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_no_page_string_says_s_in_brackets(app, path, lang):
    said = page_strings(app, path, lang)
    # A string with a plural entry (ngettext) comes as [singular, plural]: neither may say "(s)".
    forms = {key: value if isinstance(value, list) else [value] for key, value in said.items()}
    assert not {key: value for key, value in forms.items() if any(PLURAL_IN_BRACKETS.search(v) for v in value)}


@pytest.mark.parametrize("lang, words", [
    ("fr", {"bonus_die": "%(n)s dé bonus", "bonus_dice": "%(n)s dés bonus",
            "steps_one": "%(n)s cran, coût :", "steps_n": "%(n)s crans, coût :"}),
    ("en", {"bonus_die": "%(n)s bonus die", "bonus_dice": "%(n)s bonus dice",
            "steps_one": "%(n)s step, cost:", "steps_n": "%(n)s steps, cost:"}),
])
def test_singular_and_plural_strings_r15(app, lang, words):
    said = {**page_strings(app, "/fight", lang), **page_strings(app, "/console", lang)}
    assert {key: said.get(key) for key in words} == words
    assert said["error.track_full_one"].endswith(("%(room)s cran.", "%(room)s more step only."))
    assert said["error.track_full"].endswith(("%(room)s crans.", "%(room)s more steps only."))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    return started_bank(tmp_path_factory.mktemp("fight_plurals"))


@pytest.fixture
def phone(chromium, server):
    """A 360 px phone logged in as the lead; the page's script errors fail the test."""
    context = chromium.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


@needs("playwright", "chromium")
def test_fight_page_at_360px_says_1_cran_and_1_de_bonus_r15(server, phone):
    _, url = server
    log_in_to(phone, url, "/fight")
    phone.wait_for_function("!!(window.W && W.errorText && W.icon)")
    refusal = "c => W.errorText({code: 'track_full', params: {track: 'hydrosphere', level: 7, room: c}})"
    assert phone.evaluate(refusal, 1).endswith("il ne reste de la place que pour 1 cran.")
    assert phone.evaluate(refusal, 0).endswith("que pour 0 cran.")  # French says 0 in the singular
    assert phone.evaluate(refusal, 2).endswith("que pour 2 crans.")
    die = "n => W.icon({dice: n}).querySelector('.ico-die').title"
    assert [phone.evaluate(die, n) for n in (1, 2)] == ["1 dé bonus", "2 dés bonus"]


@needs("playwright", "chromium")
def test_console_terraform_tab_at_360px_says_1_cran_then_2_crans(server, phone):
    _, url = server
    log_in_to(phone, url, "/console")
    phone.click('#team-picker [data-team="green"]')
    phone.click('#tabs [data-tab="tracks"]')
    plus = phone.locator('[data-track="phytosphere"] button[aria-label="+"]')
    summary = phone.locator('[data-panel="tracks"] .sum-line')
    plus.click()
    sync_api.expect(summary).to_contain_text(re.compile(r"^1 cran, coût :"))
    plus.click()
    sync_api.expect(summary).to_contain_text(re.compile(r"^2 crans, coût :"))
    summary.scroll_into_view_if_needed()
    phone.screenshot(path="/tmp/fight_plurals_console_360.png")  # looked at: the line whole at 360 px
