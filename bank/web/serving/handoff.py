"""A connection the app takes over from the worker: a live page's WebSocket served by one loop for every page.

The worker closes a request's connection once the app returns; a WebSocket the app has handed to its own
loop (bank/web/push/hub.py) must stay open: `take(sock)` marks the worker's socket so that its close only
drops the worker's descriptor (the app holds a duplicate), with no shutdown of the connection.

The admission of live pages (admission.py) counts a page while its request runs; a page taken over ends
its request at once and lives on: the request's environ carries KEEP, a function the app calls with the
socket it keeps, which returns the function that frees the page's slots when the page closes.

The worker's caps (max_connections, per_address) count a connection until it closes, taken over or not:
the worker asks `when_closed(own, ...)` to count it down, and the app says `closed(own)` when it closes
its socket (either may come first).
"""

from __future__ import annotations

import threading
import weakref

KEEP = "terrabank.keep_live_slot"  # environ key: keep(sock) -> release(), see the module's doc

_taken: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # the worker's socket -> the app's


def take(sock, own) -> None:
    """The app keeps this connection through `own`, a duplicate of `sock`: the worker must not shut it down."""
    _taken[sock] = own


def taken(sock):
    """The app's socket for a connection it took over (the worker may still cut it when it stops), or None."""
    return _taken.get(sock)


_hooks: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # the app's socket -> [function]
_gone: "weakref.WeakSet" = weakref.WeakSet()  # the app's sockets it closed already
_lock = threading.Lock()


def when_closed(own, function) -> None:
    """Call `function` once the app has closed `own` (at once if it has already)."""
    with _lock:
        if own not in _gone:
            _hooks.setdefault(own, []).append(function)
            return
    function()


def closed(own) -> None:
    """The app closed `own`, a connection it took over: what waited for it runs now."""
    with _lock:
        _gone.add(own)
        hooks = _hooks.pop(own, [])
    for function in hooks:
        function()
