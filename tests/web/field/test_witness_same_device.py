"""Pages opened later on the same device keep the device's evidence (static/js/witness.js).

Each page keeps the newest head it saw, per address and link. Two ways the device's evidence was lost:
- a page anyone may open without a link (the big screen without its key, nobody logged in) kept its head
  where the facilitator's page kept its own, and adopted a swapped game there: on the lead's laptop, logged
  out, the big screen adopted it over the admin page's head, and the admin page opened after it said nothing;
- a page opened with a new team link (the lead replaced it) started afresh, whatever the device had seen
  under the old link: a journal rolled back meanwhile was adopted in silence.
Now the keyless page keeps its own head ("#open"), and a page with nothing kept for its own link checks the
newest head another page kept at this address.
"""

from __future__ import annotations

from needs import needs  # noqa: E402
from browserkit import log_in_to  # noqa: E402
from test_phones_witness import LIVE, _Witnessed, _cut_last_row, _swap_game, expect  # noqa: E402

pytestmark = needs("playwright", "chromium")


def _holds_game(page, game: str) -> None:
    page.wait_for_function("(game) => { for (var k in localStorage) if (k.indexOf('tb.witness:') === 0 && "
                           "JSON.parse(localStorage.getItem(k)).game === game) return true; return false; }",
                           arg=game, timeout=30_000)


def test_the_big_screen_without_its_key_on_the_leads_laptop_leaves_the_admin_page_its_evidence(chromium, tmp_path):
    pages = _Witnessed(chromium, tmp_path)
    try:
        seen_seq, seen_hash = pages.seen
        pages.admin.close()
        pages.phone.close()
        pages.context.clear_cookies()  # the lead logged out on this laptop
        pages.restart_after(_swap_game)  # the game file swapped for another game, its chain rebuilt
        bank = pages.second.extensions["terrabank"].bank
        screen = pages.context.new_page()
        screen.on("pageerror", lambda e: pages.errors.append(e))
        screen.goto(f"{pages.proxy.url}/display")  # the big screen without its key: a page anyone may open
        expect(screen.locator("#conn-badge")).to_have_class(LIVE, timeout=30_000)
        _holds_game(screen, bank.game_mark())  # it adopts the other game, as a page with no evidence of its own
        admin = pages.context.new_page()
        admin.on("pageerror", lambda e: pages.errors.append(e))
        log_in_to(admin, pages.proxy.url, "/admin")
        alarm = admin.locator("#chain-alarm")
        expect(alarm).to_be_visible(timeout=60_000)  # before: none, the big screen had overwritten its head
        text = alarm.inner_text()
        assert f"{seen_seq}" in text and seen_hash[:12] in text and "autre partie" in text, text
        assert [str(e) for e in pages.errors] == []
    finally:
        pages.close()


def test_a_page_opened_with_a_new_team_link_checks_what_the_device_saw_under_the_old_one(chromium, tmp_path):
    pages = _Witnessed(chromium, tmp_path, admin=False)
    try:
        seen_seq, seen_hash = pages.seen
        pages.phone.close()
        new_link = pages.services.access.rotate("blue")  # the lead replaced the team's link
        pages.restart_after(_cut_last_row)  # and the last entry the phone saw was cut meanwhile
        phone = pages.context.new_page()
        phone.on("pageerror", lambda e: pages.errors.append(e))
        phone.goto(f"{pages.proxy.url}/t/{new_link}")  # the new link's QR code, scanned on the same phone
        alarm = phone.locator("#chain-alarm")
        expect(alarm).to_be_visible(timeout=60_000)  # before: nothing kept for the new link, the rollback adopted
        text = alarm.inner_text()
        assert f"{seen_seq}" in text and seen_hash[:12] in text, text
        assert [str(e) for e in pages.errors] == []
    finally:
        pages.close()
