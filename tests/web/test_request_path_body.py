"""The command body's checks where they are now decided from the text (bank/web/body.py).

A command body with no more opening brackets than MAX_DEPTH and no \\uD800-\\uDFFF escape skips the walk of
the parsed value (it cannot nest too deep or hold a lone surrogate). These are the edges of that shortcut:
each must still be refused with its sentence, and nothing booked, through the real route.
"""

from __future__ import annotations

import pytest

from bank.web import body

HARVEST = '"type": "harvest", "team": "blue", "card": "harvester-1", "resource": "water"'


def post(client, text: str):
    return client.client.post("/api/commands", data=text.encode(), content_type="application/json",
                              headers={"X-CSRF-Token": client.csrf, "Idempotency-Key": f"{client.name}-{len(text)}"})


@pytest.mark.parametrize("escape", ["\\ud800", "\\uDFFF", "\\uDc00", "\\udBff"])
def test_a_lone_surrogate_escape_in_a_short_body_is_refused_and_books_nothing(web, app, escape):
    lead = web("lead")
    seq = app.extensions["terrabank"].bank.last_seq
    reply = post(lead, "{" + HARVEST + f', "note": "a{escape}b"' + "}")
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == "bad_text", reply.get_json()
    assert app.extensions["terrabank"].bank.last_seq == seq


def test_a_lone_surrogate_in_a_key_is_refused_too():
    with pytest.raises(body.BodyError) as refused:
        body.parse(b'{"\\ud800": 1}', "command")
    assert refused.value.code == "bad_text"


def test_an_emoji_written_as_a_surrogate_pair_is_text_not_a_refusal():
    assert body.parse(b'{"note": "\\ud83d\\ude00"}', "command") == {"note": "\U0001F600"}


def test_an_escaped_backslash_before_u_is_plain_text():
    assert body.parse(b'{"note": "\\\\ud800"}', "command") == {"note": "\\ud800"}


def test_a_body_nested_one_level_too_deep_is_refused_with_exactly_as_many_brackets():
    deepest = "[" * body.MAX_DEPTH + "]" * body.MAX_DEPTH  # MAX_DEPTH + 1 levels with the object
    with pytest.raises(body.BodyError) as refused:
        body.parse(('{"a": ' + deepest + "}").encode(), "command")
    assert refused.value.code == "too_deep"
    assert body.parse(('{"a": ' + "[" * (body.MAX_DEPTH - 1) + "]" * (body.MAX_DEPTH - 1) + "}").encode(),
                      "command")["a"] is not None


def test_brackets_inside_strings_never_let_a_deep_body_through():
    """Brackets in text count towards the shortcut's bound, so they can only send a body to the full walk."""
    text = '{"note": "' + "[" * 20 + '", "a": ' + "[" * 9 + "]" * 9 + "}"
    with pytest.raises(body.BodyError) as refused:
        body.parse(text.encode(), "command")
    assert refused.value.code == "too_deep"
    assert body.parse(('{"note": "' + "{[" * 20 + '"}').encode(), "command") == {"note": "{[" * 20}
