"""Input that reads one way and books another: a JSON key given twice, a reason nobody can see
. Each is a 400 with a sentence, and nothing is booked."""

from __future__ import annotations

import json

import pytest

from bank.game import fields
from security_kit import prepare, refusal, snapshot


@pytest.fixture
def lead(app, web):
    prepare(app)
    return web("lead")


def _post_raw(client, data: str, key: str = "raw-1"):
    return client.client.post("/api/commands", data=data.encode(), content_type="application/json",
                              headers={"X-CSRF-Token": client.csrf, "Idempotency-Key": key})


@pytest.mark.parametrize("body, key", [
    ('{"type": "award", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"}', "type"),
    ('{"type": "award", "team": "red", "points": 1, "points": 9000, "reason": "x"}', "points"),
    ('{"type": "exchange", "team": "blue", "tokens": {"water": 10, "water": 20}}', "water"),
])
def test_a_key_given_twice_is_refused_naming_it(app, lead, body, key):
    before = snapshot(app)
    reply = _post_raw(lead, body)
    assert reply.status_code == 400
    error = refusal(reply)
    assert error["code"] == "duplicate_key"
    assert f"'{key}' twice" in error["message"] and "send each field once" in error["message"]
    assert snapshot(app) == before


def test_a_log_in_with_a_key_given_twice_is_refused(app, web):
    client = web()
    reply = client.client.post("/api/login", data=b'{"username": "lead", "username": "banker", "password": "correct horse"}',
                               content_type="application/json", headers={"X-CSRF-Token": client.csrf})
    assert reply.status_code == 400 and refusal(reply)["code"] == "duplicate_key"


INVISIBLE = {
    "zero-width spaces": "\u200b\u200b\u200b",
    "zero-width joiners": "\u200d\u200c",
    "byte-order mark": "\ufeff",
    "soft hyphen": "\u00ad",
    "an accent on nothing": "\u0301\u0301",
    "Hangul filler": "\u3164",
    "blank Braille": "\u2800",
    "ideographic space": "\u3000",
    "spaces around a zero-width space": "  \u200b  ",
    "tag characters": "\U000e0041\U000e0042",
}


@pytest.mark.parametrize("text", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_reason_nobody_can_see_is_refused_and_nothing_booked(app, lead, text):
    before = snapshot(app)
    reply = lead.command(type="award", team="red", points=1, reason=text)
    assert reply.status_code == 400, reply.get_json()
    error = refusal(reply)
    assert error["code"] in ("invisible_text", "missing_text")
    assert "'reason'" in error["message"] and ("visible" in error["message"] or "empty" in error["message"])
    assert snapshot(app) == before


@pytest.mark.parametrize("command", [
    {"type": "reverse", "seq": 6, "reason": "\u200b"},
    {"type": "inventory", "team": "red", "counted": {"water": 3}, "reason": "\u200b"},
    {"type": "open_event", "title": "\u200b\u200b", "rewards": [{"points": 2}]},
], ids=["reverse reason", "inventory note", "event title"])
def test_every_free_text_field_needs_a_visible_character(app, lead, command):
    before = snapshot(app)
    reply = lead.command(**command)
    assert reply.status_code == 400 and refusal(reply)["code"] == "invisible_text"
    assert snapshot(app) == before


def test_zero_width_joiners_inside_words_and_emoji_are_kept(app, lead):
    for text in ["famille 👨\u200d👩\u200d👧", "\u200bmerci", "e\u0301quipe", "✨"]:
        reply = lead.command(type="award", team="red", points=1, reason=text)
        assert reply.status_code == 200, (text, reply.get_json())


def test_visible_is_what_a_reader_sees():
    assert not any(fields.visible(t) for t in INVISIBLE.values())
    assert all(fields.visible(t) for t in ["a", "é", "7", "!", "蓝", "🙂", "\u200ba"])


def test_json_dumps_never_makes_duplicates_so_pages_are_unaffected(app, lead):
    # The pages send JSON.stringify of an object, which cannot repeat a key: the check costs them nothing.
    reply = _post_raw(lead, json.dumps({"type": "award", "team": "red", "points": 1, "reason": "fair play"}))
    assert reply.status_code == 200
