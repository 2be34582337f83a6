"""`terrabank migrate`, second half: the game's facilitator accounts and team links.

They are not journal rows: in a Pi's game they sit in the SQLite file's `facilitators`
and `team_tokens` tables (bank/store/accounts/access.py), on PostgreSQL in the game's rows of the
same tables (bank/store/accounts/access_pg.py). Copying them means the facilitators log in on the
server with the passwords they know and, above all, the join cards printed for the Pi
still lead each team's phones to their team. Which ledger line stood for a move booked from the
other team's sheet comes too (paper_copies.py): a ledger typed half on the Pi, half on the server,
books each trade once, and the names the teams were opened with (AccessRules.team_names): a sheet printed under
a name a reload gave a team in between is typed back on the server too. Log-ins (sessions), failed log-in counts and the devices' and witnesses'
reports are not copied: a facilitator logs in once more, a page reports again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bank.store.journal import storage_errors


def read_access(db: Path) -> tuple[list, list, list, list]:
    """(accounts, links, paper copies, the teams' names kept) of the game file, read-only; ([], [], [], []) for a
    game never served."""
    with storage_errors(db):
        conn = sqlite3.connect(f"file:{Path(db).resolve()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            accounts = conn.execute("SELECT username, password_hash, role, created_at FROM facilitators "
                                    "ORDER BY username").fetchall() if "facilitators" in tables else []
            links = conn.execute("SELECT team, token, rotated_at FROM team_tokens ORDER BY rowid").fetchall() \
                if "team_tokens" in tables else []
            copies = conn.execute("SELECT slot, sheet, line FROM paper_copies ORDER BY slot").fetchall() \
                if "paper_copies" in tables else []
            names = conn.execute("SELECT name, value, set_at FROM settings WHERE name = 'team_names'").fetchall() \
                if "settings" in tables else []
        finally:
            conn.close()
    return accounts, links, copies, names


def write_access(url: str, game: str, accounts: list, links: list, copies: list = (), names: list = ()) -> None:
    """Put them in the database's rows of game `game` (the copy being built), in one transaction."""
    from bank.store.accounts.access_pg_connections import GameConnections

    db = GameConnections(url, game)
    try:
        with db.transaction() as conn:
            for username, password_hash, role, created_at in accounts:
                conn.execute("INSERT INTO terrabank.facilitators(game, username, password_hash, role, created_at) "
                             "VALUES (%s, %s, %s, %s, %s)", (db.game, username, password_hash, role, created_at))
            for team, token, rotated_at in links:
                conn.execute("INSERT INTO terrabank.team_tokens(game, team, token, rotated_at) VALUES (%s, %s, %s, %s)",
                             (db.game, team, token, rotated_at))
            for slot, sheet, line in copies:
                conn.execute("INSERT INTO terrabank.paper_copies(game, slot, sheet, line) VALUES (%s, %s, %s, %s)",
                             (db.game, slot, sheet, line))
            for name, value, set_at in names:
                conn.execute("INSERT INTO terrabank.settings(game, name, value, set_at) VALUES (%s, %s, %s, %s)",
                             (db.game, name, value, set_at))
    finally:
        db.close()
