"""The Trias score calculator page and its API, and the Trias print downloads.

The page's scoring is trias/calculator.py's; these tests check what the web layer adds:
the page itself (French by default, no CDN), the API's replies and refusals, and the PDFs
served under /trias/print/.
"""

from __future__ import annotations

import re

import pytest

from printables.trias_setup import render_setup
from printables.trias_sheets import render_aid, render_score_sheet

PLAYERS = ("Black", "White", "Cross", "Grey")
# T20: Example 3, land mass by land mass: (tiles, herds of Black, White, Cross, Grey).
EXAMPLE_3 = {"A": (3, (2, 0, 1, 0)), "B": (4, (0, 1, 1, 1)), "C": (8, (2, 0, 2, 0)), "D": (6, (0, 1, 1, 0)),
             "E": (1, (0, 1, 0, 1)), "F": (5, (1, 0, 0, 2)), "G": (4, (1, 1, 0, 0)), "H": (5, (1, 1, 0, 0))}


def example_3(**extra) -> dict:
    masses = [{"name": name, "tiles": tiles, "herds": dict(zip(PLAYERS, herds))} for name, (tiles, herds) in EXAMPLE_3.items()]
    return {"land_masses": masses, **extra}


def post_score(client, body, csrf=True):
    headers = {"X-CSRF-Token": client.csrf} if csrf else {}
    return client.client.post("/trias/api/score", json=body, headers=headers)


def test_the_score_page_is_french_by_default_and_loads_nothing_from_elsewhere(web):
    reply = web().client.get("/trias/score")
    assert reply.status_code == 200
    page = reply.get_data(as_text=True)
    assert "Calculateur de score Trias" in page and "Compter les points" in page
    assert "Troupeaux en réserve" in page and "T19" in page
    assert "default-src 'self'" in reply.headers["Content-Security-Policy"]
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sources and all(s.startswith("/") or s.startswith("data:") for s in sources), sources
    for static in ("/static/js/trias/score.js", "/static/css/trias-score.css"):
        served = web().client.get(static)
        served.close()
        assert static in page and served.status_code == 200


def test_the_score_page_speaks_english_when_asked(web):
    client = web()
    client.client.post("/api/lang/en", headers={"X-CSRF-Token": client.csrf})
    page = client.client.get("/trias/score").get_data(as_text=True)
    assert "Trias score calculator" in page and "Count the scores" in page


def test_t18_t20_example_3_totals_19_15_15_8_and_black_wins(web):
    reply = post_score(web(), example_3())
    assert reply.status_code == 200
    data = reply.get_json()
    assert data["totals"] == {"Black": 19, "White": 15, "Cross": 15, "Grey": 8}
    assert data["winners"] == ["Black"]
    assert data["points"]["F"] == {"Black": 3, "Grey": 5}  # 5/2 = 2.5, rounded up (T18)


def test_t18_the_arithmetic_is_in_the_pages_language(web):
    client = web()  # French by default, like the page
    lines = post_score(client, example_3()).get_json()["lines"]
    assert any("arrondi à 3" in line for line in lines) and any(line.startswith("Totaux") for line in lines)
    client.client.post("/api/lang/en", headers={"X-CSRF-Token": client.csrf})
    lines = post_score(client, example_3()).get_json()["lines"]
    assert any(line.startswith("F (5 tiles)") and "rounded up to 3" in line for line in lines)


def test_t18_the_main_land_mass_is_not_scored(web):
    body = example_3()
    body["land_masses"][2]["main"] = True  # C, 8 tiles: 6 points each to Black and Cross otherwise
    data = post_score(web(), body).get_json()
    assert data["totals"] == {"Black": 13, "White": 15, "Cross": 9, "Grey": 8}
    assert data["winners"] == ["White"]


def test_t19_a_tie_of_points_goes_to_the_herds_in_stock(web):
    body = {"land_masses": [{"name": "A", "tiles": 4, "herds": {"Black": 1, "White": 1}}],
            "stock": {"Black": 3, "White": 5}}
    data = post_score(web(), body).get_json()
    assert data["totals"] == {"Black": 3, "White": 3} and data["winners"] == ["White"]


def test_t16_points_already_on_the_track_are_added(web):
    data = post_score(web(), example_3(interim={"Grey": 12})).get_json()
    assert data["totals"]["Grey"] == 20 and data["winners"] == ["Grey"]


@pytest.mark.parametrize("change, words", [
    (lambda b: b["land_masses"][1].update(tiles=0), "land_masses[1].tiles must be a whole number"),
    (lambda b: b["land_masses"][0]["herds"].update(Black=-1), "land_masses[0].herds.Black"),
    (lambda b: b["land_masses"][3].update(name="A"), "already the name of another land mass"),
    (lambda b: b.update(stock={"Black": 15}), "Black has"),
])
def test_a_bad_entry_gets_a_sentence_naming_it(web, change, words):
    body = example_3()
    change(body)
    reply = post_score(web(), body)
    assert reply.status_code == 400
    error = reply.get_json()["error"]
    assert words in error["message"] and error["code"]


def test_the_score_api_needs_the_pages_csrf_token_and_a_json_object(web):
    client = web()
    assert post_score(client, example_3(), csrf=False).status_code == 403
    reply = client.client.post("/trias/api/score", data="[1, 2", headers={"X-CSRF-Token": client.csrf,
                                                                          "Content-Type": "application/json"})
    assert reply.status_code == 400 and reply.get_json()["error"]["message"]


def test_print_aid_and_score_sheet_downloads_in_either_language(web):
    client = web().client
    aid = client.get("/trias/print/aid.pdf?lang=en")
    assert aid.status_code == 200 and aid.mimetype == "application/pdf"
    assert aid.data == render_aid("en")
    assert "trias-aid-en.pdf" in aid.headers["Content-Disposition"]
    assert client.get("/trias/print/aid.pdf").data == render_aid("fr")  # the game's language by default
    assert client.get("/trias/print/score-sheet.pdf?players=3&lang=fr").data == render_score_sheet("fr", 3)


def test_print_setup_map_of_a_seed_is_the_seeds_board(web):
    reply = web().client.get("/trias/print/setup.pdf?players=4&seed=7&lang=en&paper=a3")
    assert reply.status_code == 200
    assert reply.data == render_setup(4, 7, "en", "a3")


def test_print_setup_map_of_a_stored_game_never_shows_its_seed(app, web):
    games = app.extensions.get("trias_games")
    if games is None:
        pytest.skip("Trias games are not part of this app yet")
    game = games.create([{"name": "Ana"}, {"name": "Ben"}], seed=424242)
    reply = web().client.get(f"/trias/print/setup.pdf?game={game.id}&lang=en")
    assert reply.status_code == 200
    assert reply.data == render_setup(lang="en", game=game.id, event=game.table.base[0])
    assert b"424242" not in reply.data
    sheet = web().client.get(f"/trias/print/score-sheet.pdf?game={game.id}&lang=en")
    assert sheet.data == render_score_sheet("en", 2, ["Ana", "Ben"])  # the seats' names head the columns


@pytest.mark.parametrize("query, status, words", [
    ("/trias/print/setup.pdf?players=4", 400, "give the game's seed as a whole number"),
    ("/trias/print/setup.pdf?players=7&seed=1", 400, "players must be 2, 3, 4 or 5"),
    ("/trias/print/setup.pdf?seed=1&paper=letter", 400, "paper must be a4 or a3"),
    ("/trias/print/setup.pdf?game=zzzzzzzz", 404, "there is no Trias game"),
    ("/trias/print/rules.pdf", 404, "setup.pdf, score-sheet.pdf, aid.pdf"),
])
def test_print_refusals_are_one_sentence(web, query, status, words):
    reply = web().client.get(query)
    assert reply.status_code == status
    assert words in reply.get_data(as_text=True) and reply.mimetype == "text/plain"
