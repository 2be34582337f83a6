"""Flask extensions, created once here and bound to an app in create_app()."""

import threading

from flask_socketio import SocketIO

# Threading mode with simple-websocket: no eventlet/gevent to install on a Raspberry Pi,
# and real WebSocket transport (long-polling remains the fallback for old phones).
socketio = SocketIO(async_mode="threading")

# Threading mode costs four threads per connected page (Werkzeug's handler, the WebSocket
# reader, the Engine.IO writer and its ping timer): 800 for 200 phones. At the default
# 8 MB of stack each that is 6.4 GB of address space, more than a 32-bit Raspberry Pi OS
# gives a process (3 GB): new threads would fail from about 90 phones on. Only touched
# stack pages use memory, and 512 KB is ample for Flask, Jinja and json (musl's default
# is 128 KB). Applies to threads started after this import: the server's, not the main one.
threading.stack_size(512 * 1024)
