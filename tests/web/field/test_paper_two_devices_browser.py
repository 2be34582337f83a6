"""The same paper ledger typed on two laptops, then again after the bank is killed -9, in Chromium:
each numbered line books once (bank/game/paper_sheet.py).

The batch key lived in one browser's storage: a second laptop or a private window made a new batch
and booked the ledger again (a harvest and a track step twice). Here a real `terrabank serve`
(bench/harness.py) runs a game whose teams carry long, accented, emoji names; laptop A types two
ledgers under their sheet ids; laptop B, a context of its own (its own storage, as a private
window), types the same sheets its own way; the server is killed with SIGKILL and started again on
the same game file; B sends again with one new line, A sends again. The balances are exact and
every paper line is in the journal once.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from needs import module, needs
from browserkit import log_in_to

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
from harness import PASSWORD, USER, Api, Server  # noqa: E402

sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
pytestmark = needs("playwright", "chromium")
expect = sync_api.expect

NAMES = {"blue": "Mégalosaure-Anticonstitutionné", "yellow": "Les Verts 🌱 qui Poussent Vite",
         "red": "Zoé, Ève, Noël, Anaïs — Équipe", "green": "Œufs de Pâques"}
LAPTOP_A = """\
feuille 0A
1 14:02 Mégalosaure-Anticonstitutionné récolte eau 1
2 14:03 Megalosaure recolte eau 2
3 14:05 Mégalosaure-Anticons piste hydrosphère 1
feuille 0B
1 14:04 Verts récolte énergie 1
"""
LAPTOP_B = """\
Feuille 0a
1. megalosaure-anticonstitutionne recolte EAU 1
2. Mégalosaure-Anticonstitutionné récolte eau 2
3. MEGALOSAURE piste hydrosphere
sheet 0B
1 Les Verts 🌱 qui Poussent Vite harvest energy
"""
LATER = "feuille 0A\n4 14:09 Mégalosaure récolte eau 1\n"


def game_config(folder: Path) -> str:
    text = (ROOT / "config.toml").read_text(encoding="utf-8")
    for team, label in NAMES.items():
        text = re.sub(rf'(id = "{team}"\nlabel = )\{{[^}}]*\}}', lambda m: m.group(1) + f'{{ fr = "{label}", en = "{label}" }}', text)
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def log_in(page, url: str) -> None:
    log_in_to(page, url, "/admin", USER, PASSWORD)


def send(page, text: str, summary: str) -> None:
    page.fill("#paper-form textarea", text)
    page.click("#paper-form button[type=submit]")
    expect(page.locator("#paper-result .banner")).to_have_text(summary, timeout=20_000)


def test_two_laptops_and_a_kill_book_each_ledger_line_once(tmp_path, chromium):
    server = Server(tmp_path, config=game_config(tmp_path)).prepare().start()
    laptops = []
    try:
        lead = Api(server.url).login()
        assert lead.command("start", type="start_clock")[0] == 200
        status, before = lead.request("GET", "/api/state")
        start = {t: before["teams"][t]["stock"] for t in ("blue", "yellow")}
        errors: list[str] = []
        for _ in range(2):  # laptop A, and laptop B with its own storage (a private window)
            context = chromium.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            log_in(page, server.url)
            laptops.append((context, page))
        a, b = laptops[0][1], laptops[1][1]
        expect(a.locator("#paper-form textarea")).to_have_attribute("placeholder", re.compile("^feuille 0A-[A-Z0-9]{2}\n1 Mégalosaure"))
        send(a, LAPTOP_A, "Enregistrés : 4 · déjà enregistrés : 0 · refusés : 0.")
        expect(a.locator('#paper-result [data-line="4"] b')).to_have_text("Ligne 4 (feuille 0A, n° 3)")
        send(b, LAPTOP_B, "Enregistrés : 0 · déjà enregistrés : 4 · refusés : 0.")

        server.kill()  # SIGKILL, then the same game file served again on the same port
        server.start()
        b.reload()
        send(b, LAPTOP_B + LATER, "Enregistrés : 1 · déjà enregistrés : 4 · refusés : 0.")
        a.reload()
        expect(a.locator("#paper-form textarea")).to_have_value(LAPTOP_A)  # kept in A's storage
        a.click("#paper-form button[type=submit]")
        expect(a.locator("#paper-result .banner")).to_have_text("Enregistrés : 0 · déjà enregistrés : 4 · refusés : 0.",
                                                                timeout=20_000)

        lead = Api(server.url).login()
        status, after = lead.request("GET", "/api/state")
        assert status == 200
        blue, yellow = after["teams"]["blue"], after["teams"]["yellow"]
        # Three harvests of one water, one hydrosphere step of 6 water (+1 reputation), one energy.
        assert blue["stock"]["water"] == start["blue"]["water"] + 3 - 6
        assert after["board"]["tracks"]["hydrosphere"]["level"] == 1 and blue["reputation"] == 1
        assert yellow["stock"]["energy"] == start["yellow"]["energy"] + 1
        status, journal = lead.request("GET", "/api/journal?limit=500")
        paper = [row for row in journal["rows"] if row["command_id"].startswith("paper:")]
        assert sorted(row["type"] for row in paper) == ["harvest"] * 4 + ["raise_tracks"]
        assert len({row["command_id"] for row in paper}) == 5
        assert not errors, errors
    finally:
        for context, _ in laptops:
            context.close()
        server.stop()
