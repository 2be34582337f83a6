"""Whether visitors may start Trias games during a field game is the lead's choice on the admin page.

Before: no such choice; anyone on the Wi-Fi could start Trias games (and mint their seat links) at any time.
"""

from __future__ import annotations

NEW_GAME = {"seats": [{"name": "Ana", "kind": "human"}, {"name": "Ben", "kind": "human"}]}


def create(client):
    return client.client.post("/trias/api/games", json=NEW_GAME, headers={"X-CSRF-Token": client.csrf})


def test_the_lead_keeps_new_trias_games_for_facilitators_while_the_field_game_runs(web):
    from security_kit import refusal

    lead, visitor, banker = web("lead"), web(), web("banker")
    assert lead.client.get("/api/trias/visitors").get_json() == {"open": True, "field_game_running": False}
    closed = lead.client.post("/api/trias/visitors", json={"open": False}, headers={"X-CSRF-Token": lead.csrf})
    assert closed.get_json() == {"open": False, "field_game_running": False}
    assert create(visitor).status_code == 201  # before the field game: the choice does not apply
    assert lead.command(type="start_clock").status_code == 200
    refused = create(visitor)
    assert refused.status_code == 403
    error = refusal(refused)
    assert error["code"] == "trias_closed_to_visitors" and "ask a facilitator" in error["message"]
    assert create(banker).status_code == 201 and create(lead).status_code == 201  # facilitators still may
    lead.client.post("/api/trias/visitors", json={"open": True}, headers={"X-CSRF-Token": lead.csrf})
    assert create(visitor).status_code == 201


def test_only_the_lead_changes_it_and_a_bad_value_says_what_to_send(web):
    from security_kit import refusal

    assert web().client.get("/api/trias/visitors").status_code == 401
    banker = web("banker")
    assert banker.client.post("/api/trias/visitors", json={"open": False},
                              headers={"X-CSRF-Token": banker.csrf}).status_code == 403
    lead = web("lead")
    assert lead.client.post("/api/trias/visitors", json={"open": False}).status_code == 403  # no CSRF token
    bad = lead.client.post("/api/trias/visitors", json={"open": "no"}, headers={"X-CSRF-Token": lead.csrf})
    assert bad.status_code == 400 and '{"open": false}' in refusal(bad)["message"]
    assert lead.client.get("/api/trias/visitors").get_json()["open"] is True


def test_the_choice_is_kept_with_the_accounts(app):
    access = app.extensions["terrabank"].access
    assert access.setting("trias_for_visitors", True) is True
    access.set_setting("trias_for_visitors", False)
    assert access.setting("trias_for_visitors", True) is False


def test_the_admin_page_shows_the_choice(web):
    page = web("lead").client.get("/admin").get_data(as_text=True)
    assert 'id="trias-visitors"' in page and "trias_visitors.js" in page
