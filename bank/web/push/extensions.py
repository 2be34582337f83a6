"""The app's Socket.IO server: one per app (several games may be served by one process)."""

from flask_socketio import SocketIO

from bank.web.push import deflate, event_budget, hub


def make_socketio(app, register) -> SocketIO:
    """A Socket.IO server for `app`; `register(server)` attaches the handlers before it is bound.

    Threading mode with simple-websocket: no eventlet/gevent to install on a Raspberry Pi,
    and real WebSocket transport (long-polling remains the fallback for old phones).
    A short heartbeat so a phone that lost the Wi-Fi shows "offline" within about 20 s.
    cors_allowed_origins=None: only the page's own origin (whatever address the phones use), since
    [] would turn engineio's origin check off and let any site open a facilitator's socket.
    permessage-deflate with a 4 KB window and a small zlib memLevel (deflate.py: at simple-websocket's
    defaults each browser's page holds a ~290 KB compressor and decompressor in the worker).
    Under Gunicorn every page's WebSocket is served by one thread (hub.py), not four threads a page.
    Each page may send a few messages a second (event_budget.py), as each starts a thread.
    """
    deflate.install()
    hub.install()
    server = SocketIO(async_mode="threading")
    register(server)
    server.init_app(app, async_mode="threading", cors_allowed_origins=None, max_http_buffer_size=deflate.MAX_MESSAGE,
                    ping_interval=10, ping_timeout=10)
    event_budget.install(server.server)  # a few messages a second from each page, however tiny (event_budget.py)
    return server


def socketio_of(app) -> SocketIO:
    """The Socket.IO server bound to `app` (Flask-SocketIO keeps it in app.extensions)."""
    return app.extensions["socketio"]
