"""The API answered in English to a French game.

A refusal under /api/ keeps its code (what programs test) and its English `message` (logs,
developers), and now carries `text`: the sentence the pages show, in the game's language or the
session's choice, with the game's names for teams, buildings and resources.
"""

from __future__ import annotations


def _refused(client, **command):
    reply = client.command(**command)
    assert reply.status_code == 409, reply.get_json()
    return reply.get_json()["error"]


def test_a_refusal_says_its_sentence_in_the_french_game_with_the_games_names(web):
    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    error = _refused(lead, type="build", team="blue", building="power_plant_2")
    assert error["code"] == "building_required" and error["params"]["requires"] == ["power_plant_1"]
    assert error["message"] == "the Power plant II needs the Power plant I first"  # unchanged: English
    assert error["text"] == "Ce bâtiment (Centrale II) demande d’abord : Centrale I.", error


def test_a_device_that_chose_english_reads_english(web):
    lead = web("lead")
    assert lead.client.post("/api/lang/en", headers={"X-CSRF-Token": lead.csrf}).status_code == 200
    assert lead.command(type="start_clock").status_code == 200
    error = _refused(lead, type="build", team="blue", building="power_plant_2")
    assert error["text"] == "The Power plant II needs the Power plant I first.", error


def test_an_unknown_address_is_refused_in_the_games_language(web):
    reply = web().client.get("/api/nothing-here")
    error = reply.get_json()["error"]
    assert reply.status_code == 404 and error["code"] == "unknown_address"
    assert error["message"].startswith("there is nothing")  # unchanged: English, for whoever reads the API
    assert error["text"] != error["message"] and "adresse" in error["text"], error
