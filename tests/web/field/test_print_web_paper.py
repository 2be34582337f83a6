"""The admin page's print links follow `[print] paper`: a Letter game prints on Letter.

`terrabank print` and the paper routes already did; `/api/print/<kind>.pdf` always drew A4,
so a facilitator in North America printed A4 pages at 100% and lost their cut marks.
"""

from __future__ import annotations

import dataclasses

import pytest
from printkit import page_sizes_mm

from bank.game.config import load_config
from conftest import CONFIG_PATH

LETTER, A4, A3 = (216, 279), (210, 297), (297, 420)  # millimetres, rounded as printkit does


@pytest.fixture
def config():
    return dataclasses.replace(load_config(CONFIG_PATH), print_paper="letter")


def _size(data: bytes) -> tuple:
    width, height = page_sizes_mm(data)[0]
    return tuple(sorted((width, height)))


@pytest.mark.parametrize("kind", ["cards", "boards", "bank-sheets", "rate-sign", "event-sheet", "sheets-a4",
                                  "bonus-dice"])
def test_a_letter_game_prints_each_document_on_letter_from_the_admin_page(web, kind):
    reply = web("lead").client.get(f"/api/print/{kind}.pdf")
    assert reply.status_code == 200, reply.get_json()
    assert _size(reply.data) == LETTER
    assert "letter" in reply.headers["Content-Disposition"]


def test_the_a3_boards_stay_a3_and_a4_can_still_be_asked_for(web):
    lead = web("lead")
    assert _size(lead.client.get("/api/print/sheets-a3.pdf").data) == A3
    assert _size(lead.client.get("/api/print/cards.pdf?paper=a4").data) == A4


def test_an_unknown_paper_is_refused_with_the_choices(web):
    reply = web("lead").client.get("/api/print/cards.pdf?paper=legal")
    assert reply.status_code == 400 and "a4 or letter" in reply.get_json()["error"]["message"]
