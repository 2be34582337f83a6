"""How large a message a live page may send, by who opened it: small for whoever holds no secret.

A page sends its connect (with its link or key, and the entry it holds) and a `sync` now and then
(static/js/live.js, trias/common.js): under 300 bytes. But every page, a stranger's among them (no secret,
no log-in: anyone on the Wi-Fi), could send messages of Engine.IO's 64 KB (deflate.MAX_MESSAGE), inflated
from a few hundred bytes on the wire, and a long-poll POST as large: the worker read, inflated, joined and
decoded each. Now admission's verdict (`terrabank.who`, bank/web/serving/admission.py) bounds it:

- no secret, or a secret anyone can mint (a Trias seat's): STRANGER bytes a message;
- a secret the lead issued (a team link, the big screen's key, a facilitator's session): SECRET bytes;
- a request admission did not see (`serve --dev`, a test client): Engine.IO's own limit, as before.

The hub (hub.py, hub_page.py) stops inflating a WebSocket message at the bound and closes the page; a long
poll's POST longer than the bound is refused before its body is read (HubSocket.handle_post_request).
"""

from __future__ import annotations

from bank.web.serving.who import WHO, pool_of

STRANGER = 1024       # a connect with its auth and a sync, three times over
SECRET = 4 * 1024     # the same with room to spare: nothing a page of ours sends comes near it


def bound(environ, limit: int) -> int:
    """The most bytes one message (or one long-poll POST) of the page opened by `environ` may hold."""
    if WHO not in environ:
        return limit  # not admitted by the guarded worker: Engine.IO's limit
    return min(limit, SECRET if pool_of(environ[WHO]) == "lead" else STRANGER)
