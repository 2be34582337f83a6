"""Facilitator accounts from the admin page: list, create or replace, delete (lead only)."""

from __future__ import annotations

import pytest

from security_kit import refusal, snapshot


def _post(client, path, body):
    return client.client.post(path, json=body, headers={"X-CSRF-Token": client.csrf})


def _save(client, **body):
    return _post(client, "/api/accounts", body)


def test_the_lead_lists_the_accounts_with_their_roles(web):
    reply = web("lead").client.get("/api/accounts")
    assert reply.status_code == 200
    rows = {row["username"]: row for row in reply.get_json()["accounts"]}
    assert {name: row["role"] for name, row in rows.items()} == {"lead": "lead", "banker": "banker", "referee": "referee"}
    assert rows["lead"]["current"] and not rows["banker"]["current"]


@pytest.mark.parametrize("who", [None, "banker", "referee"])
def test_only_the_lead_manages_accounts(web, app, who):
    client = web(who)
    before = snapshot(app)
    assert client.client.get("/api/accounts").status_code == (401 if who is None else 403)
    for path, body in (("/api/accounts", {"username": "eve", "role": "lead", "password": "long enough", "again": "long enough"}),
                       ("/api/accounts/delete", {"username": "lead"})):
        reply = _post(client, path, body)
        assert reply.status_code == (401 if who is None else 403)
        refusal(reply)
    assert snapshot(app) == before


def test_a_new_account_typed_twice_can_log_in(web):
    lead = web("lead")
    reply = _save(lead, username="dora", role="banker", password="sunny meadow", again="sunny meadow")
    assert reply.status_code == 200 and "password" not in reply.get_json() and not reply.get_json()["replaced"]
    assert web().login("dora", "sunny meadow").get_json()["role"] == "banker"


def test_a_generated_password_is_shown_once_and_works(web):
    reply = _save(web("lead"), username="eli", role="referee")
    password = reply.get_json()["password"]
    assert reply.status_code == 200 and len(password) >= 8
    assert web().login("eli", password).status_code == 200
    assert all(set(row) == {"username", "role", "current"} for row in web("lead").client.get("/api/accounts").get_json()["accounts"])


def test_replacing_an_account_logs_its_devices_out(web):
    banker = web("banker")
    assert banker.client.get("/api/state").status_code == 200
    reply = _save(web("lead"), username="banker", role="referee", password="new password", again="new password")
    assert reply.status_code == 200 and reply.get_json()["replaced"]
    assert banker.client.get("/api/state").status_code == 401
    assert web().login("banker", "correct horse").status_code == 401


def test_deleting_an_account_logs_its_devices_out(web, app):
    banker = web("banker")
    reply = _post(web("lead"), "/api/accounts/delete", {"username": "banker"})
    assert reply.status_code == 200
    assert banker.client.get("/api/state").status_code == 401
    assert "banker" not in [row["username"] for row in app.extensions["terrabank"].access.users()]


@pytest.mark.parametrize("body, code", [
    ({"username": "dora", "role": "banker", "password": "sunny meadow", "again": "sunny meadoww"}, "password_mismatch"),
    ({"username": "dora", "role": "boss", "password": "sunny meadow", "again": "sunny meadow"}, "bad_role"),
    ({"username": "  ", "role": "banker"}, "bad_username"),
    ({"username": "a\nb", "role": "banker"}, "bad_username"),
    ({"username": "x" * 41, "role": "banker"}, "bad_username"),
    ({"username": "dora", "role": "banker", "password": "short", "again": "short"}, "weak_password"),
    ({"username": ["dora"], "role": "banker"}, "bad_account_form"),
    ({"username": "lead", "role": "banker", "password": "sunny meadow", "again": "sunny meadow"}, "last_lead"),
])
def test_bad_account_input_is_refused_and_changes_nothing(web, app, body, code):
    lead = web("lead")
    before = snapshot(app)
    reply = _save(lead, **body)
    assert reply.status_code in (400, 409) and refusal(reply)["code"] == code
    assert snapshot(app) == before


def test_the_lead_cannot_delete_itself_nor_the_last_lead(web, app):
    lead = web("lead")
    before = snapshot(app)
    reply = _post(lead, "/api/accounts/delete", {"username": "lead"})
    assert reply.status_code == 409 and refusal(reply)["code"] == "delete_self"
    assert _post(lead, "/api/accounts/delete", {"username": "nobody"}).status_code == 404
    assert snapshot(app) == before
    # A second lead may delete the first, but then not itself: one lead always remains.
    assert _save(lead, username="lea", role="lead", password="second lead", again="second lead").status_code == 200
    lea = web()
    assert lea.login("lea", "second lead").status_code == 200
    assert _post(lea, "/api/accounts/delete", {"username": "lead"}).status_code == 200
    assert app.extensions["terrabank"].access.remove_user("lea") is False


# ---- the lock-out message, and pages that do not exist (items 12 and 13) ----

def test_the_lock_out_message_says_minutes_and_seconds(web):
    from bank.store.accounts.lockout import wait_text

    assert (wait_text(272), wait_text(45), wait_text(300)) == ("4 min 32 s", "45 s", "5 min 0 s")
    client = web()
    for attempt in range(5):
        _post(client, "/api/login", {"username": "banker", "password": f"guess {attempt}"})
    reply = _post(client, "/api/login", {"username": "banker", "password": "guess again"})
    message = refusal(reply)["message"]
    assert reply.status_code == 429 and " min " in message and "300 s" not in message


@pytest.mark.parametrize("path", ["/t/", "/t", "/nowhere", "/console/extra"])
def test_an_unknown_page_is_a_french_sentence_not_the_framework_404(app, path):
    reply = app.test_client().get(path)
    html = reply.get_data(as_text=True)
    assert reply.status_code == 404 and 'lang="fr"' in html and "Not Found" not in html
    assert "QR code" in html  # says what to do: scan the team's code again


def test_an_unknown_api_address_stays_json(app):
    reply = app.test_client().get("/api/nowhere")
    assert reply.status_code == 404 and refusal(reply)["code"] == "unknown_address"
