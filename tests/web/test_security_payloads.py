"""Oversized and malformed requests: a 4xx with {code, message} saying what to do, and nothing changed.

Covers the command body (size, syntax, shape, depth, numbers, types of every field, text),
the Socket.IO handshake and sync, and a chunked body with no Content-Length on a real server.
"""

from __future__ import annotations

import http.client
import json

import pytest

from bank.game import fields
from live_kit import live_client
from security_kit import KINDS, prepare, refusal, services, snapshot, valid_command


@pytest.fixture
def lead(app, web):
    prepare(app)
    return web("lead")


def _post_raw(lead, data, content_type="application/json", key="raw-1"):
    return lead.client.post("/api/commands", data=data, content_type=content_type,
                            headers={"X-CSRF-Token": lead.csrf, "Idempotency-Key": key})


def _refused(app, reply, before, status=400):
    assert reply.status_code == status, (reply.status_code, reply.data[:300])
    error = refusal(reply)
    assert snapshot(app) == before
    return error


BAD_BODIES = {
    "empty": b"",
    "not json": b"award red 5",
    "truncated": b'{"type": "award", "team": "red"',
    "a list": b'[{"type": "start_clock"}]',
    "a string": b'"start_clock"',
    "a number": b"42",
    "null": b"null",
    "NaN": b'{"type": "award", "team": "red", "points": NaN, "reason": "x"}',
    "Infinity": b'{"type": "award", "team": "red", "points": Infinity, "reason": "x"}',
    "1e400": b'{"type": "award", "team": "red", "points": 1e400, "reason": "x"}',
    "5000 digits": b'{"type": "award", "team": "red", "points": ' + b"9" * 5000 + b', "reason": "x"}',
    "deep nesting": b'{"type": "award", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "nesting past the limit": b'{"type": "award", "x": ' + b"[" * 20 + b"]" * 20 + b"}",
    "latin-1 bytes": '{"type": "award", "team": "red", "points": 1, "reason": "caf\xe9"}'.encode("latin-1"),
    "type missing": b'{"team": "red"}',
    "type a list": b'{"type": ["award"]}',
    "type an object": b'{"type": {"award": 1}}',
    "unknown type": b'{"type": "print_money"}',
    "system type": b'{"type": "setup"}',
    "tick": b'{"type": "tick"}',
}


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_malformed_body_is_a_clear_400_and_changes_nothing(app, lead, name):
    before = snapshot(app)
    _refused(app, _post_raw(lead, BAD_BODIES[name]), before)


def test_the_body_must_be_sent_as_json(app, lead):
    before = snapshot(app)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        error = _refused(app, _post_raw(lead, b'{"type": "pause"}', content_type), before)
        assert "Content-Type: application/json" in error["message"]


def test_oversized_body_is_413(app, lead):
    before = snapshot(app)
    reply = _post_raw(lead, json.dumps({"type": "award", "team": "red", "points": 1, "reason": "x" * 20_000}))
    assert _refused(app, reply, before, 413)["code"] == "too_large"


# Wrong values for every field a command reads: each must be a 400 naming the field, or a 409 from the rules.
WRONG_VALUES = [None, True, "", "x" * 300, -1, 0, 1.5, 10**30, [], {}, ["red"], {"a": 1},
                "\u202e\u0000", "<img src=x onerror=alert(1)>"]


def _fields_of(kind):
    return sorted(fields.COMMAND_FIELDS[kind])


@pytest.mark.parametrize("kind", [k for k in KINDS if fields.COMMAND_FIELDS[k]])
def test_wrong_type_for_every_field_is_refused_and_changes_nothing(app, lead, kind):
    config = services(app).config
    for field in _fields_of(kind):
        for n, value in enumerate(WRONG_VALUES):
            before = snapshot(app)
            command = {**valid_command(kind, config), field: value}
            reply = lead.command(key=f"{kind}-{field}-{n}", **command)
            if reply.status_code == 200:
                # Some values are valid for some fields (an empty 'tokens' in a fight, no reason on a count):
                # fine, as long as what was booked is exactly what was asked.
                continue
            assert reply.status_code in (400, 409), (kind, field, value, reply.status_code)
            refusal(reply)
            assert snapshot(app) == before, (kind, field, value)


@pytest.mark.parametrize("points", [0, -1001, 1001, 10**100])
def test_out_of_range_points_are_refused(app, lead, points):
    before = snapshot(app)
    error = _refused(app, lead.command(type="award", team="red", points=points, reason="fair play"), before)
    assert "points" in error["message"]


@pytest.mark.parametrize("amount", [0, -3, 1.0, 2.5, "3", True, 10**100])
def test_bad_token_amounts_are_refused(app, lead, amount):
    before = snapshot(app)
    reply = lead.command(type="refill", resource="water", amount=amount)
    error = _refused(app, reply, before)
    assert "amount" in error["message"]


def test_negative_tokens_in_a_table_are_refused(app, lead):
    before = snapshot(app)
    reply = lead.command(type="exchange", team="blue", tokens={"water": -10})
    assert "tokens.water" in _refused(app, reply, before)["message"]


@pytest.mark.parametrize("text", ["line one\nline two", "tab\there", "nul\x00byte", "bell\x07", "\u202eevil override",
                                  "x" * (fields.MAX_TEXT + 1), "   "])
def test_bad_reason_text_is_refused(app, lead, text):
    before = snapshot(app)
    error = _refused(app, lead.command(type="award", team="red", points=1, reason=text), before)
    assert "reason" in error["message"]


def test_unicode_that_people_type_is_kept(app, lead):
    for n, text in enumerate(["Équipe très fair-play ✨", "蓝队 帮助", "famille 👨‍👩‍👧", "مرحبا"]):
        assert lead.command(type="award", team="red", points=1, reason=text).status_code == 200, text


def test_unknown_extra_fields_are_refused_naming_them(app, lead):
    before = snapshot(app)
    reply = lead.command(type="open_event", title="Flood", rewards=[{"points": 2}], deadline=10)
    error = _refused(app, reply, before)
    assert error["code"] == "unknown_field" and "'deadline'" in error["message"] and "deadline_minutes" in error["message"]


def test_the_field_table_matches_what_the_pages_send():
    """Every field the pages put in a command is in the table, so no page is refused for a field it sends."""
    from pathlib import Path
    import re

    js = "".join(p.read_text() for p in (Path(__file__).parents[2] / "static" / "js").glob("*.js"))
    for kind, known in fields.COMMAND_FIELDS.items():
        for literal in re.findall(r'\{ type: "' + kind + r'"([^}]*)', js):
            sent = set(re.findall(r"(?:^|[{,])\s*(\w+):", literal))
            assert sent <= known, (kind, sent - known)
    for added in re.findall(r"command\.(\w+) =(?!=)", js):  # fields a page adds afterwards (an event's target), not a comparison
        assert any(added in known for known in fields.COMMAND_FIELDS.values()), added


# ---- Socket.IO ----

@pytest.mark.parametrize("data", [{"after": "abc"}, {"after": 10**50}, {"after": [1]}, {"after": 1.5},
                                  {"after": float("nan")}, {"after": -5}, {"after": True}, "text", None, [1, 2],
                                  {"team": ["x"]}, {"team": {"a": 1}}, {"team": "x" * 10_000}])
def test_sync_with_odd_data_never_raises(app, lead, data):
    before = snapshot(app)
    sock = live_client(app, flask_test_client=lead.client)
    sock.get_received()
    sock.emit("sync", data)
    received = {packet["name"] for packet in sock.get_received()}
    assert "public" in received and "journal" in received or not isinstance(data, dict)
    sock.disconnect()
    assert snapshot(app) == before


@pytest.mark.parametrize("auth", [{"team": ["x"]}, {"team": {"a": 1}}, {"team": 5}, {"team": "../../etc"},
                                  "text", [1], 7, {"display": "yes"}, {"display": [1]}])
def test_connect_with_odd_auth_never_raises(app, auth):
    before = snapshot(app)
    sock = live_client(app, auth=auth)
    if isinstance(auth, dict) and "team" in auth:
        assert not sock.is_connected()  # an unusable team token is refused, so the phone says so
    else:
        assert sock.is_connected()
        sock.disconnect()
    assert snapshot(app) == before


# ---- a real server: chunked bodies with no Content-Length ----

def test_a_chunked_body_is_limited_too(tmp_path):
    """Transfer-Encoding: chunked has no Content-Length to check up front: the body is read up to the limit."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.harness import Api, Server

    server = Server(tmp_path).prepare().start()
    try:
        api = Api(server.url).login()
        assert api.command("ck-1", type="start_clock")[0] == 200
        for size, want in ((300, 200), (40_000, 413), (200_000, 413)):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.putrequest("POST", "/api/commands")
            for k, v in {"Cookie": api.cookie, "X-CSRF-Token": api.csrf, "Content-Type": "application/json",
                         "Transfer-Encoding": "chunked", "Idempotency-Key": f"chunk-{size}"}.items():
                conn.putheader(k, v)
            conn.endheaders()
            payload = b'{"type": "award", "team": "red", "points": 1, "reason": "' + b"x" * min(size, 150) + b'", "pad": "' + b"p" * size + b'"}'
            payload = payload if size > 300 else b'{"type": "award", "team": "red", "points": 1, "reason": "chunked"}'
            for start in range(0, len(payload), 8192):
                piece = payload[start:start + 8192]
                conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            conn.send(b"0\r\n\r\n")
            reply = conn.getresponse()
            data = json.loads(reply.read())
            conn.close()
            assert reply.status == want, (size, reply.status, data)
            if want != 200:
                assert data["error"]["code"] == "too_large"
        _, body = api.request("GET", "/api/journal?after=0")
        assert [row["type"] for row in body["rows"]][-1] == "award"  # only the small chunked command was booked
        api.close()
    finally:
        server.stop()
