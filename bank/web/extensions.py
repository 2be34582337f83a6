"""Flask extensions, created once here and bound to an app in create_app()."""

from flask_socketio import SocketIO

# Threading mode with simple-websocket: no eventlet/gevent to install on a Raspberry Pi,
# and real WebSocket transport (long-polling remains the fallback for old phones).
socketio = SocketIO(async_mode="threading")


def socketio_of(app) -> SocketIO:
    """The Socket.IO server bound to `app` (Flask-SocketIO keeps it in app.extensions)."""
    return app.extensions["socketio"]
