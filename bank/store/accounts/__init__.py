"""The accounts' rows: facilitators, their log-in sessions, failed log-ins, team links.

Access data, not the ledger: a password change or a replaced team link updates these
rows, and they are not replayed. They live where the game's journal lives: in the SQLite
game file (access.py, sessions.py, lockout.py) or beside the game in PostgreSQL (the
`_pg` modules). `open_access` is the one place that chooses. Part of bank/store: imports
only bank.errors and bank.store; the web layer decides who may do what with these rows.
"""

from __future__ import annotations

from bank.store.accounts.access import Access, AccessRules


def open_access(db, config=None, hash_method: str = "scrypt") -> AccessRules:
    """The accounts of the game named by --db, where its journal is: in PostgreSQL when a database URL
    is set (bank/store/storage_url.py), else in the SQLite file itself. The one place the store is chosen;
    its sessions(clock) and lockout(clock) follow it."""
    from bank.store import storage_url

    where = storage_url.target(db, config)
    if isinstance(where, storage_url.PostgresTarget):
        from bank.store.accounts.access_pg import PostgresAccess  # psycopg is loaded only for a game in PostgreSQL

        return PostgresAccess(where.url, where.game, hash_method)
    return Access(db, hash_method)
