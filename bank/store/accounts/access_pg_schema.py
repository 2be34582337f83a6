"""The PostgreSQL tables of accounts, log-in sessions, lock-outs, team links, the cookie key, the devices'
outbox reports and the witnesses' reports.

They sit beside the journal's tables (bank/store/journal_pg_schema.py), keyed by the same game
number, so every `terrabank serve` of a game, on any host, reads the same rows. They are
access data, not the ledger: a password change or a rotated link updates them in place,
so they carry no append-only guard. Added with CREATE ... IF NOT EXISTS under their own
advisory lock: a database made before them gains them on the first start, and the
journal's schema version does not change.
"""

from __future__ import annotations

from bank.store.journal_pg_schema import ensure_tables

ACCESS_SCHEMA_LOCK = -1  # second key while these tables are created: game numbers are >= 1, the journal's is 0
LOGIN_LOCK_SPACE = 0x744C  # first key ("tL") of a game's log-in counting lock: log-ins never wait on commands

_TABLES = """
CREATE TABLE IF NOT EXISTS terrabank.facilitators(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), username TEXT NOT NULL, password_hash TEXT NOT NULL,
    role TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, username));
CREATE TABLE IF NOT EXISTS terrabank.team_tokens(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), team TEXT NOT NULL, token TEXT NOT NULL,
    rotated_at DOUBLE PRECISION NOT NULL,
    added BIGSERIAL,                        -- the order the links were made in, as SQLite's rowid
    PRIMARY KEY (game, team), UNIQUE (game, token));
CREATE TABLE IF NOT EXISTS terrabank.sessions(
    game BIGINT NOT NULL REFERENCES terrabank.games(id),
    id_hash TEXT NOT NULL,                  -- sha256 of the cookie's session id: the id itself is never stored
    username TEXT NOT NULL, role TEXT NOT NULL, account_since DOUBLE PRECISION NOT NULL,
    created_at DOUBLE PRECISION NOT NULL, last_seen DOUBLE PRECISION NOT NULL, address TEXT NOT NULL,
    device TEXT NOT NULL,
    PRIMARY KEY (game, id_hash));
CREATE TABLE IF NOT EXISTS terrabank.login_failures(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), key TEXT NOT NULL, count INTEGER NOT NULL,
    since DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, key));
CREATE TABLE IF NOT EXISTS terrabank.cookie_keys(
    game BIGINT PRIMARY KEY REFERENCES terrabank.games(id), key TEXT NOT NULL);
"""


# Added after the tables above: its own marker, so a database made before gains it.
_DISPLAY_KEYS = """
CREATE TABLE IF NOT EXISTS terrabank.display_keys(
    game BIGINT PRIMARY KEY REFERENCES terrabank.games(id), key TEXT NOT NULL,
    rotated_at DOUBLE PRECISION NOT NULL);
"""


# Added later too: the lead's yes/no choices (Trias games for visitors during a field game).
_SETTINGS = """
CREATE TABLE IF NOT EXISTS terrabank.settings(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), name TEXT NOT NULL, value TEXT NOT NULL,
    set_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, name));
"""


# Added later too: what each facilitator's device said its outbox holds (device_reports.py).
_OUTBOX_DEVICES = """
CREATE TABLE IF NOT EXISTS terrabank.outbox_devices(
    game BIGINT NOT NULL REFERENCES terrabank.games(id),
    holder TEXT NOT NULL,                   -- the id in the device cookie the bank signed, never the page's word
    device TEXT NOT NULL, account TEXT NOT NULL, waiting INTEGER NOT NULL, oldest_seconds INTEGER NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, holder));
"""


# Added later too: the pages' reports of a chain head the bank does not hold (witness_reports.py).
_WITNESS_REPORTS = """
CREATE TABLE IF NOT EXISTS terrabank.witness_reports(
    game BIGINT NOT NULL REFERENCES terrabank.games(id),
    id BIGSERIAL PRIMARY KEY,               -- the order the reports came in: a reporter's oldest goes first
    reporter TEXT NOT NULL,                 -- the team, "screen" or "facilitator:<account>" the bank found
    seq BIGINT NOT NULL, hash TEXT NOT NULL, other TEXT NOT NULL, shown TEXT NOT NULL,
    head_seq BIGINT, head_hash TEXT, mark TEXT, at DOUBLE PRECISION NOT NULL,
    UNIQUE (game, reporter, seq, hash, other));
"""


# Added later too: which ledger line stood for a move booked from the other team's sheet (paper_copies.py).
_PAPER_COPIES = """
CREATE TABLE IF NOT EXISTS terrabank.paper_copies(
    game BIGINT NOT NULL REFERENCES terrabank.games(id),
    slot TEXT NOT NULL,                     -- the booking's command id: one line stands for it, the first to claim
    sheet TEXT NOT NULL, line INTEGER NOT NULL,
    PRIMARY KEY (game, slot));
"""


def ensure_access_schema(conn) -> None:
    """Create the tables once per database; a concurrent creator waits on their lock, then finds them."""
    ensure_tables(conn, "terrabank.cookie_keys", ACCESS_SCHEMA_LOCK, _TABLES)
    ensure_tables(conn, "terrabank.display_keys", ACCESS_SCHEMA_LOCK, _DISPLAY_KEYS)
    ensure_tables(conn, "terrabank.settings", ACCESS_SCHEMA_LOCK, _SETTINGS)
    ensure_tables(conn, "terrabank.outbox_devices", ACCESS_SCHEMA_LOCK, _OUTBOX_DEVICES)
    ensure_tables(conn, "terrabank.witness_reports", ACCESS_SCHEMA_LOCK, _WITNESS_REPORTS)
    ensure_tables(conn, "terrabank.paper_copies", ACCESS_SCHEMA_LOCK, _PAPER_COPIES)
