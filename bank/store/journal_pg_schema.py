"""The PostgreSQL tables of the journal: many games, append-only guards, created once.

Every table is keyed by the game's number (terrabank.games), so one database hosts many
games. Triggers refuse UPDATE, DELETE and TRUNCATE of journal, snapshot, meta and chain
rows; a game's row in `games` may only change its name (renamed by `init --force`,
retired when its creation failed) and its hold epoch (the fence of its writers,
bank/store/journal_pg_hold.py: a number from the sequence hold_epochs, negative while
servers sharing a queue hold the game together). Text columns stay TEXT, not JSONB (which would
reorder keys): the hash chain hashes their bytes.
"""

from __future__ import annotations

from bank.store.journal import SCHEMA_VERSION
from bank.store.storage import StorageError

LOCK_SPACE = 0x7442  # first key of our advisory locks ("tB"): keeps clear of other apps' locks
SCHEMA_LOCK = 0  # second key while the tables are created; a game's lock uses its number (>= 1)

APPEND_ONLY = ("journal", "snapshots", "meta", "chain")

_SCHEMA = """
CREATE SCHEMA IF NOT EXISTS terrabank;
CREATE TABLE terrabank.version(version TEXT NOT NULL);
CREATE TABLE terrabank.games(
    id BIGSERIAL PRIMARY KEY,
    name TEXT UNIQUE,                       -- NULL: retired (a creation that failed); rows are kept
    created_at DOUBLE PRECISION NOT NULL,
    retired TEXT,
    hold_epoch BIGINT NOT NULL DEFAULT 0);  -- the fence of its writers (journal_pg_hold.py)
CREATE SEQUENCE terrabank.hold_epochs;
CREATE TABLE terrabank.meta(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), key TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (game, key));
CREATE TABLE terrabank.journal(
    game BIGINT NOT NULL REFERENCES terrabank.games(id),
    seq BIGINT NOT NULL CHECK (seq > 0),
    command_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    type TEXT NOT NULL,
    actor TEXT,
    at DOUBLE PRECISION NOT NULL,
    command TEXT NOT NULL,
    events TEXT NOT NULL,
    PRIMARY KEY (game, seq),
    UNIQUE (game, command_id));
CREATE TABLE terrabank.snapshots(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), seq BIGINT NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (game, seq));
CREATE TABLE terrabank.chain(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), seq BIGINT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (game, seq));
CREATE TABLE terrabank.clock_checkpoint(
    game BIGINT PRIMARY KEY REFERENCES terrabank.games(id),
    timeline DOUBLE PRECISION NOT NULL, wall DOUBLE PRECISION NOT NULL, seq BIGINT, head TEXT);
CREATE FUNCTION terrabank.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are append-only: add a correcting entry instead', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE FUNCTION terrabank.games_rename_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.id <> OLD.id OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'games rows are kept: a game may only be renamed or retired'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER games_rename_only BEFORE UPDATE OR DELETE ON terrabank.games
    FOR EACH ROW EXECUTE FUNCTION terrabank.games_rename_only();
CREATE TRIGGER games_no_truncate BEFORE TRUNCATE ON terrabank.games
    FOR EACH STATEMENT EXECUTE FUNCTION terrabank.refuse_change();
""" + "".join(f"""
CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON terrabank.{t}
    FOR EACH ROW EXECUTE FUNCTION terrabank.refuse_change();
CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON terrabank.{t}
    FOR EACH STATEMENT EXECUTE FUNCTION terrabank.refuse_change();
""" for t in APPEND_ONLY)

# The triggers integrity_check() expects enabled: a DBA can disable one (the sqlite3 tool's
# DROP TRIGGER), and that must show in `verify`.
GUARDS = {f"{t}_append_only" for t in APPEND_ONLY + ("chain_snapshot",)} \
    | {f"{t}_no_truncate" for t in APPEND_ONLY + ("games", "chain_snapshot")} | {"games_rename_only"}

# The chain's binding of each snapshot (bank/store/chain.py): added after the first
# databases, so created on open where missing, append-only like the chain.
BINDING_DDL = """
CREATE TABLE IF NOT EXISTS terrabank.chain_snapshot(
    game BIGINT NOT NULL REFERENCES terrabank.games(id), seq BIGINT NOT NULL, seal TEXT NOT NULL,
    hash TEXT NOT NULL, PRIMARY KEY (game, seq));
CREATE TRIGGER chain_snapshot_append_only BEFORE UPDATE OR DELETE ON terrabank.chain_snapshot
    FOR EACH ROW EXECUTE FUNCTION terrabank.refuse_change();
CREATE TRIGGER chain_snapshot_no_truncate BEFORE TRUNCATE ON terrabank.chain_snapshot
    FOR EACH STATEMENT EXECUTE FUNCTION terrabank.refuse_change();
"""


def ensure_tables(conn, probe: str, lock_key: int, ddl: str) -> None:
    """Create tables added beside the journal's (accounts, Trias starts) once per database: `probe`
    names one of them; a concurrent creator waits on the lock `lock_key`, then finds them (IF NOT EXISTS)."""
    if conn.execute("SELECT to_regclass(%s)", (probe,)).fetchone()[0] is not None:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, lock_key))
        conn.execute(ddl)


def ensure_schema(conn) -> None:
    """Create the tables once per database; a concurrent creator waits on the schema lock."""
    if conn.execute("SELECT to_regclass('terrabank.version')").fetchone()[0] is None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, SCHEMA_LOCK))
            if conn.execute("SELECT to_regclass('terrabank.version')").fetchone()[0] is None:
                conn.execute(_SCHEMA)
                conn.execute("INSERT INTO terrabank.version(version) VALUES (%s)", (SCHEMA_VERSION,))
    version = conn.execute("SELECT version, to_regclass('terrabank.hold_epochs') IS NOT NULL "
                           "FROM terrabank.version").fetchone()
    if version is None or version[0] != SCHEMA_VERSION:
        found = version[0] if version else "?"
        raise StorageError("unsupported_schema", f"The Terrabank tables in this database are version {found}; "
                           f"this Terrabank reads version {SCHEMA_VERSION}: update Terrabank.", version=found)
    if not version[1]:  # tables made before the hold's fence: added once, in place
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, SCHEMA_LOCK))
            conn.execute(FENCE_DDL)
    if not conn.execute(_LATER_ADDITIONS_MADE).fetchone()[0]:
        with conn.transaction():  # the lock, then a second look: a concurrent opener may have made them
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, SCHEMA_LOCK))
            if conn.execute("SELECT to_regclass('terrabank.chain_snapshot')").fetchone()[0] is None:
                conn.execute(BINDING_DDL)
            conn.execute(TIP_DDL)


# Whether tables made by an older version have gained the later additions (one statement on every open).
_LATER_ADDITIONS_MADE = ("SELECT to_regclass('terrabank.chain_snapshot') IS NOT NULL AND EXISTS (SELECT 1 FROM "
                         "information_schema.columns WHERE table_schema = 'terrabank' AND table_name = "
                         "'clock_checkpoint' AND column_name = 'head')")
# The checkpoint's record of the last row written (bank/store/chain.py): NULL until the next row.
TIP_DDL = ("ALTER TABLE terrabank.clock_checkpoint ADD COLUMN IF NOT EXISTS seq BIGINT, "
           "ADD COLUMN IF NOT EXISTS head TEXT")


FENCE_DDL = ("ALTER TABLE terrabank.games ADD COLUMN IF NOT EXISTS hold_epoch BIGINT NOT NULL DEFAULT 0; "
             "CREATE SEQUENCE IF NOT EXISTS terrabank.hold_epochs")

# The time line's checkpoint, written with a transaction's COMMIT (journal_pg.py): fenced (no time line,
# NOT NULL, unless the game's row carries our epoch), never back (another process's later time
# line, committed first, stays), and with the last row written and its head (bank/store/chain.py), read
# after this transaction's rows. Parameters: game, timeline, game, epoch, wall, game, game.
_TIP = ("(SELECT {} FROM (SELECT c.seq, COALESCE(b.hash, c.hash) FROM terrabank.chain c LEFT JOIN "
        "terrabank.chain_snapshot b ON b.game = c.game AND b.seq = c.seq WHERE c.game = %s ORDER BY c.seq DESC "
        "LIMIT 1) AS t(seq, head))")
SAVE_CHECKPOINT = ("INSERT INTO terrabank.clock_checkpoint AS c(game, timeline, wall, seq, head) VALUES (%s, (SELECT "
                   "%s::float8 FROM terrabank.games WHERE id = %s AND hold_epoch = %s FOR SHARE), %s, "
                   f"{_TIP.format('seq')}, {_TIP.format('head')}) ON CONFLICT (game) DO UPDATE SET timeline = "
                   "EXCLUDED.timeline, wall = EXCLUDED.wall, seq = EXCLUDED.seq, head = EXCLUDED.head "
                   "WHERE EXCLUDED.timeline >= c.timeline")
