"""The admin page keeps the witness reports it was shown (static/js/witness_reports.js).

The bank keeps the phones' reports in the game's own database, beside the accounts; a forger who holds
the game file holds them too. Before, a forger who cut the journal's tail and then deleted the reports
left the admin page an empty list once the bank came back: the phone's report was gone from every
screen but the phone's. Now the admin page keeps what it was shown on its device and still shows a
report the bank no longer lists, saying so, until a facilitator forgets it there.
"""

from __future__ import annotations

import sqlite3

from needs import needs  # noqa: E402
from browserkit import SERVERS, serve_in_thread  # noqa: E402
from test_phones_witness import _app, _cut_last_row, _Witnessed, expect  # noqa: E402

pytestmark = needs("playwright", "chromium")


def _delete_the_reports(db) -> int:
    raw = sqlite3.connect(db)
    deleted = raw.execute("DELETE FROM witness_reports").rowcount
    raw.commit()
    raw.close()
    return deleted


def test_reports_the_forger_deleted_from_the_database_stay_on_the_admin_page_saying_so(chromium, tmp_path):
    pages = _Witnessed(chromium, tmp_path)
    try:
        pages.restart_after(_cut_last_row)  # the last entry cut: the phone reports it, the admin page lists it
        phones = pages.admin.locator("#chain-witness li").filter(has_text="équipe blue")
        expect(phones).to_have_count(1, timeout=60_000)
        seen = phones.inner_text()

        # The forger stops the bank, deletes the reports too, and starts it again on the same address.
        SERVERS.pop().stop()
        second = pages.second.extensions["terrabank"]
        second.bank.close()
        second.access.close()
        assert _delete_the_reports(pages.db) >= 1
        pages.second = third = _app(pages.db)
        assert third.extensions["terrabank"].access.witness_reports().all() == []  # the bank lists none now
        _, port = serve_in_thread(third)
        pages.proxy.target = ("127.0.0.1", port)
        pages.proxy.restore(drop=True)

        # The admin page, open all along, reconnects and asks the bank's list again: none.
        gone = pages.admin.locator("#chain-witness li[data-gone='yes']")
        expect(gone).to_have_count(1, timeout=60_000)
        text = gone.inner_text()
        assert seen.split(" (")[0] in text  # the same report: who saw what, and the bank's head then
        assert "La banque ne liste plus ce signalement" in text, text
        expect(pages.admin.locator("#chain-witness")).to_be_visible()

        # A facilitator who read it forgets it on this page: the list is empty again.
        pages.admin.get_by_role("button", name="Oublier les signalements que la banque ne liste plus").click()
        expect(pages.admin.locator("#chain-witness li")).to_have_count(0)
        expect(pages.admin.locator("#chain-witness")).to_be_hidden()
        assert pages.admin.evaluate("() => JSON.parse(localStorage.getItem('tb.witness-reports:/'))") == []
        assert not pages.errors, pages.errors
    finally:
        pages.close()
