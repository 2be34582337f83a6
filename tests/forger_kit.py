"""Another program writing into a game's store, the guards off: what a forger holding the file or the database does.

`sqlite_forger(db)` and `postgres_forger(server, name)` each return `sql(statement, params=())`: it runs one
statement (`%s` placeholders; `{game}` stands for the condition that picks this game's rows) with the store's
append-only triggers off, then puts them back (PostgreSQL) or leaves them dropped (SQLite: the bank's connection
never needs them to refuse anything here), and returns the rows it read.
"""

from __future__ import annotations

import sqlite3

GUARDED = ("journal", "chain", "snapshots", "chain_snapshot", "clock_checkpoint", "meta")


def sqlite_forger(db):
    def sql(statement, params=()):
        raw = sqlite3.connect(db)
        for table in GUARDED:
            for verb in ("update", "delete"):
                raw.execute(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
        found = raw.execute(statement.replace("%s", "?").replace("{game}", "1=1"), params).fetchall()
        raw.commit()
        raw.close()
        return found
    return sql


def postgres_forger(server, name: str):
    def sql(statement, params=()):
        import psycopg
        with psycopg.connect(server.admin_url.rsplit("/", 1)[0] + "/games", autocommit=True) as raw:
            game = raw.execute("SELECT id FROM terrabank.games WHERE name = %s", (name,)).fetchone()[0]
            for table in GUARDED:
                raw.execute(f"ALTER TABLE terrabank.{table} DISABLE TRIGGER USER")
            try:
                text = statement.replace("{game}", f"game = {game}")
                for table in GUARDED:
                    text = text.replace(f" {table} ", f" terrabank.{table} ").replace(f" {table}(", f" terrabank.{table}(")
                cur = raw.execute(text, params)
                return cur.fetchall() if cur.description else []
            finally:
                for table in GUARDED:
                    raw.execute(f"ALTER TABLE terrabank.{table} ENABLE TRIGGER USER")
    return sql


def forged_store(request, config, tmp_path, monkeypatch, prefix: str):
    """A parametrized fixture's (config, db, sql) for `request.param` "sqlite" or "postgresql": the game's path or
    name, and the forger's `sql` on it."""
    import dataclasses
    import uuid

    from bank.store.storage_url import ENV_VAR

    if request.param == "sqlite":
        db = tmp_path / "game.db"
        return config, db, sqlite_forger(db)
    server = request.getfixturevalue("postgres_server")
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv(ENV_VAR, server.url)
    return dataclasses.replace(config, storage_url=server.url), name, postgres_forger(server, name)


def rewrite_trias(sql, game, seq: int) -> str:
    """A Trias game's entry `seq` said to be played a minute earlier, the chain rebuilt from it to the end (the rows
    replay to the same position: `trias verify` on a fresh process says ok): the store's new head."""
    from bank.store import chain
    from bank.store.canonical_json import canonical_json
    from bank.store.journal_pg_reads import row_bytes

    rows = list(game._service.rows())
    previous = chain.start_of(game._service.meta) if seq == 1 else game._service._journal.head_at(seq - 1)
    for r in rows[seq - 1:]:
        at = float(r["at"]) - (60 if r["seq"] == seq else 0)
        texts = (r["command_id"], r["fingerprint"], r["type"], r["actor"], canonical_json(r["command"]),
                 canonical_json(r["events"]))
        previous = chain.link(previous, r["seq"], at, row_bytes(texts))
        if r["seq"] == seq:
            sql("UPDATE journal SET at = %s WHERE {game} AND seq = %s", (at, seq))
        sql("UPDATE chain SET hash = %s WHERE {game} AND seq = %s", (previous, r["seq"]))
    return previous
