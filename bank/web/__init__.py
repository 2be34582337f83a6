"""The live bank: create_app, the Flask + Flask-SocketIO app around the running games.

One app per game (hosted games are whole apps too, bank/web/serving/hosting.py). Its rooms:
serving/ (the server underneath), access/ (who a client is), push/ (live updates), field/
(the field game's pages and API), trias/ (Trias at the table). The web parses, calls
bank.services, and shows; it decides no rule and writes no row itself.
"""

# The package itself loads nothing: `bank.web.serving` (Gunicorn's master, bank/cli/serve_lean.py)
# must import without Flask and the whole app (P3 memory). The app comes on first use.
_LAZY = ("create_app", "Services", "ROOT")


def __getattr__(name: str):
    if name in _LAZY:
        from bank.web import app

        return getattr(app, name)
    raise AttributeError(f"module 'bank.web' has no attribute {name!r}")
