"""A lone surrogate in a socket's auth data is refused with a reason, never a traceback.

Before: `{"team": "\\ud800"}` reached the look-up of the link, which raised UnicodeEncodeError out of the
connect handler (two tracebacks; the socket neither accepted nor refused); `{"display": true, "key":
"\\ud800"}` the same in the key's comparison.
"""

from __future__ import annotations

import pytest
from flask_socketio import ConnectionRefusedError

from bank.web.push.auth_text import refuse_unreadable
from live_kit import live_client

SURROGATE = "\ud800"


@pytest.mark.parametrize("auth", [{"team": SURROGATE}, {"display": True, "key": SURROGATE},
                                  {"display": True, "key": "a" + SURROGATE + "b"}, {"team": "x", SURROGATE: 1}])
def test_a_lone_surrogate_in_a_bank_pages_auth_is_refused_not_raised(app, tokens, auth):
    page = live_client(app, auth=auth)  # before: UnicodeEncodeError out of on_connect
    assert not page.is_connected()
    assert live_client(app, auth={"team": tokens["blue"]}).is_connected()  # the server goes on


@pytest.mark.parametrize("auth", [{"seat": SURROGATE * 20}, {"game": SURROGATE}])
def test_a_lone_surrogate_in_a_trias_pages_auth_is_refused_not_raised(app, auth):
    from flask_socketio import SocketIOTestClient

    from bank.web.push.extensions import socketio_of

    page = SocketIOTestClient(app, socketio_of(app), namespace="/trias", auth=auth)
    assert not page.is_connected("/trias")


def test_the_refusal_says_which_value_and_what_to_do():
    with pytest.raises(ConnectionRefusedError) as refused:
        refuse_unreadable({"display": True, "key": SURROGATE})
    message = refused.value.error_args["message"]
    assert message.startswith("bad_auth_text: 'key' ") and "not valid Unicode" in message
    assert "open the link as it was given" in message
    refuse_unreadable({"team": "blue-token", "after": 3, "display": False})  # plain data passes
    refuse_unreadable("not a dict")
