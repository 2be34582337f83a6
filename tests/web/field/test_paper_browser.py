"""The admin page's paper panel in Chromium: the lead types the ledger's moves,
each refused line says why in the page's language, the rest are booked; pressed again after a
reload, nothing is booked twice; the page says where the bank writes the state by itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from needs import module, needs  # noqa: E402
sync_api = module("playwright.sync_api")  # a stand-in without Playwright: pytestmark skips the tests
from browserkit import log_in_to, started_bank  # noqa: E402

pytestmark = needs("playwright", "chromium")
expect = sync_api.expect
SHOTS = Path("/tmp/paper_shots")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    return started_bank(tmp_path_factory.mktemp("paper"))


def test_the_lead_types_the_ledger_back_and_reads_each_refusal_in_french(chromium, server):
    app, url = server
    bank = app.extensions["terrabank"].bank
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in_to(page, url, "/admin")
        panel = page.locator("#paper")
        expect(panel.locator("h2")).to_have_text("Le papier prend le relais")
        # Not started by `terrabank serve`: it says it writes no file, and not where nor how often it would.
        expect(page.locator("#paper-saved")).to_have_text(
            "Cette banque n'a pas été lancée par terrabank serve : elle n'écrit aucun fichier d'elle-même.")
        page.fill("#paper-form textarea", "Bleu récolte eau 1\nBleu construit Château\nJaunes récolte énergie\n")
        before = bank.last_seq
        page.click("#paper-form button[type=submit]")
        result = page.locator("#paper-result")
        expect(result).to_contain_text("Enregistrés : 2 · déjà enregistrés : 0 · refusés : 1.")
        expect(result.locator('[data-line="2"]')).to_contain_text("Château n'est pas un bâtiment de cette partie : écrivez l'un de ceux-ci : Centrale I")
        assert bank.last_seq == before + 2
        panel.scroll_into_view_if_needed()
        SHOTS.mkdir(exist_ok=True)
        panel.screenshot(path=str(SHOTS / "admin-paper-fr.png"))
        # A reload keeps the batch (its key and text): sent again, it books nothing twice.
        page.reload()
        expect(page.locator("#paper-form textarea")).to_have_value(re.compile("Bleu construit Château"))
        page.click("#paper-form button[type=submit]")
        expect(result).to_contain_text("Enregistrés : 0 · déjà enregistrés : 2 · refusés : 1.")
        expect(result.locator('[data-line="3"]')).to_contain_text(f"déjà enregistré, entrée n° {before + 2}")  # which one
        assert bank.last_seq == before + 2
        # A rule's refusal, in French too: the pirate card was not bought.
        page.fill("#paper-form textarea", "Bleu pirate 2 bat Rouge récolteur 1")
        page.click("#paper-form button[type=submit]")
        expect(result).to_contain_text("Enregistrés : 0 · déjà enregistrés : 0 · refusés : 1.")
        expect(result.locator('[data-line="1"]')).to_contain_text("Carte inconnue (Pirate 2)")
        # Sheet 0A's line 1 typed twice with two moves (its second copy's line left under the first copy's id),
        # Jaunes' sheet id with its word misspelled, Jaunes' move under Bleus' sheet, a contribution to an event
        # announced on paper: refused, each said why.
        page.fill("#paper-form textarea", "feuille 0A\n1 Bleus récolte flore 1\n1 Bleus récolte eau 1\nfeuile 0B\n"
                                          "1 Jaunes récolte énergie 1\nfeuille 0A\n2 Jaunes récolte énergie 1\n"
                                          "3 Bleus contribue Inondation 3 eau\n1 Bleus récolte flore 1")
        page.click("#paper-form button[type=submit]")
        expect(result).to_contain_text("Enregistrés : 1 · déjà enregistrés : 0 · refusés : 6.")
        expect(result.locator('[data-line="3"]')).to_contain_text(
            "Une ligne de sa deuxième copie se tape sous son identifiant suivi de /2 (feuille 143A-K7/2).")
        expect(result.locator('[data-line="4"]')).to_contain_text("Écrivez l'identifiant de la feuille tel qu'imprimé")
        expect(result.locator('[data-line="5"]')).to_contain_text("l'identifiant de feuille au-dessus (ligne 4 du texte)")
        expect(result.locator('[data-line="7"]')).to_contain_text(
            "La ligne 2 de la feuille 0A est sur le registre « Bleus », et ce mouvement nomme « Jaunes »")
        expect(result.locator('[data-line="8"]')).to_contain_text(  # an event announced on paper: opened first
            "Aucun événement n’est encore ouvert dans la banque (Inondation). Un événement annoncé sur papier : ouvrez-le")
        expect(result.locator('[data-line="9"]')).to_contain_text(  # line 1 again, the same move: a second copy's?
            "La ligne 1 de la feuille 0A est déjà tapée plus haut (ligne 2 du texte) avec ce même mouvement, enregistré une fois.")
        assert bank.last_seq == before + 3
        # That line alone again, in a batch of its own (a second laptop, or a second copy's line under the first
        # copy's id): already booked, and the page says the id to type if it is another copy's.
        page.fill("#paper-form textarea", "feuille 0A\n1 Bleus récolte flore 1")
        page.click("#paper-form button[type=submit]")
        expect(result).to_contain_text("Enregistrés : 0 · déjà enregistrés : 1 · refusés : 0.")
        expect(result.locator('[data-line="2"]')).to_contain_text(
            f"déjà enregistré, entrée n° {before + 3}. Déjà tapée : rien n’est enregistré deux fois. Si cette ligne est "
            "sur une autre copie de la feuille (numérotée à nouveau depuis 1), tapez-la sous feuille 0A/2.")
        panel.screenshot(path=str(SHOTS / "admin-paper-copy-fr.png"))
        assert bank.last_seq == before + 3
    finally:
        context.close()
    assert not errors, errors
