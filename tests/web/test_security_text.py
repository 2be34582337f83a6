"""Text that is no character: a lone surrogate such as "\\ud800" in any field.

JSON may write "\\ud800" alone; Python reads it as a string that cannot be encoded as UTF-8,
so it failed wherever it was written or logged: the anonymous log-in answered an HTML 500
(from the lock-out's key), and so did seven other fields. Each route now answers 400 with a
sentence, and nothing is booked.
"""

from __future__ import annotations

import pytest

from security_kit import services, snapshot

LONE = "a\\ud800"  # as JSON writes it: the escape of half a character
SAMPLES = {"code": "fr", "team": "blue"}  # any other part of an address: an id nobody has

def _post(client, path: str, body: str, csrf: str, key: str = "surrogate-1"):
    return client.client.post(path, data=body.encode("ascii"), content_type="application/json",
                              headers={"X-CSRF-Token": csrf, "Idempotency-Key": key})


@pytest.mark.parametrize("body", [
    '{"username": "%s", "password": "correct horse"}' % LONE,
    '{"username": "lead", "password": "%s"}' % LONE,
    '{"%s": 1}' % LONE,
])
def test_the_anonymous_log_in_refuses_broken_text_with_a_sentence(web, body):
    anonymous = web()
    reply = _post(anonymous, "/api/login", body, anonymous.csrf)
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_text"
    assert "plain UTF-8" in reply.get_json()["error"]["message"]


@pytest.mark.parametrize("field", ["reason", "team", "type"])
def test_a_command_with_broken_text_is_refused_and_books_nothing(web, app, field):
    lead = web("lead")
    command = {"type": "award", "team": "blue", "points": 1, "reason": "fair play"}
    before = snapshot(app)
    body = "{" + ", ".join(f'"{k}": ' + (f'"{LONE}"' if k == field else (f'"{v}"' if isinstance(v, str) else str(v)))
                           for k, v in command.items()) + "}"
    reply = _post(lead, "/api/commands", body, lead.csrf)
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_text"
    assert snapshot(app) == before


def test_a_new_account_with_broken_text_is_refused(web, app):
    lead = web("lead")
    reply = _post(lead, "/api/accounts", '{"username": "%s", "password": "long enough", "role": "banker"}' % LONE,
                  lead.csrf)
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_text"
    assert all("\ud800" not in name for name, *_ in services(app).access.users())


def test_no_route_answers_500_to_broken_text(web, app):
    """Every POST route the app has, as the lead, read from the app itself so a new route is covered too:
    an answer below 500 (a refusal, or 200 where the body is not read: log-out), never a 500 (raised here
    in TESTING)."""
    lead = web("lead")
    answered = {}
    # Routes that end the lead's own session go last, so every other one is tried logged in.
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: ("logout" in r.rule or "end" in r.rule, r.rule)):
        if "POST" not in rule.methods:
            continue
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<{argument}>", SAMPLES.get(argument, "x"))
        body = '{"type": "%s", "name": "%s", "seats": [{"name": "%s"}]}' % (LONE, LONE, LONE)
        answered[path] = _post(lead, path, body, lead.csrf).status_code
    assert len(answered) >= 16
    assert {p: s for p, s in answered.items() if s >= 500} == {}
    assert answered["/api/commands"] == answered["/trias/api/games"] == 400
