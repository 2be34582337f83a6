"""The witnesses' reports (bank/web/field/chain_routes.py): a page found that the bank's chain does not hold
the head it saw. Kept with the accounts, so every process of the game reads the same list: the admin page,
served by any of them, lists a report whichever process heard it, and two pages heard by two processes
confirm each other.

One row per reporter and thing seen (entry, head, and the game when the page saw another one behind its
link); the reporter is a team link's team, "screen" (the big screen's key) or "facilitator:<account>", as
the web layer found it, never a word of the page. Each reporter keeps its newest PER_REPORTER rows; a newer
one withdraws its own oldest, never another reporter's, so a stolen link flooding false reports cannot push
out a phone's real one. The list is bounded by PER_REPORTER times the reporters. A thing seen is confirmed
once two reporters agree: one link alone may lie, and the admin page says so.
"""

from __future__ import annotations

PER_REPORTER = 5  # a real page reports once per head it holds; more from one link is a flood

# `other` is '' when the page saw this game: a NULL would never conflict, and a page repeating itself
# would count as a second row.
SCHEMA = """CREATE TABLE IF NOT EXISTS witness_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT, reporter TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL,
    other TEXT NOT NULL, shown TEXT NOT NULL, head_seq INTEGER, head_hash TEXT, mark TEXT, at REAL NOT NULL,
    UNIQUE (reporter, seq, hash, other));"""

_COLUMNS = "seq, hash, other, shown, head_seq, head_hash, mark, at"


def _row(report: dict, reporter: str) -> tuple:
    saw, head = report["saw"], report["head"]
    return (reporter, saw["seq"], saw["hash"], saw.get("game") or "", report["by"], head["seq"], head["hash"],
            report["game"], report["at"])


def entries(rows) -> list[dict]:
    """The rows (oldest first) as the admin page reads them: one entry per thing seen, in the order its oldest
    standing report came, with who saw it ("by": the first, "reporters": all) and whether two agree."""
    found: dict[tuple, dict] = {}
    for seq, hash_, other, shown, head_seq, head_hash, mark, at in rows:
        entry = found.get((seq, hash_, other))
        if entry is None:
            saw = {"seq": seq, "hash": hash_, **({"game": other} if other else {})}
            entry = found[(seq, hash_, other)] = {"saw": saw, "head": {"seq": head_seq, "hash": head_hash},
                                                  "game": mark, "at": at, "by": shown, "reporters": []}
        entry["reporters"].append(shown)
    for entry in found.values():
        entry["confirmed"] = len(entry["reporters"]) >= 2
    return list(found.values())


class WitnessReports:
    """The rows in the game's SQLite file, through the accounts' `sql` (one statement, its errors as sentences)."""

    def __init__(self, sql):
        self._sql = sql

    def add(self, report: dict, reporter: str) -> bool:
        """Count `reporter` among the pages that saw `report["saw"]` (report: saw, head, game, at, by); False
        when it had already said so (nothing new to tell)."""
        if not self._sql("INSERT INTO witness_reports(reporter, seq, hash, other, shown, head_seq, head_hash, mark, "
                         "at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                         _row(report, reporter)):
            return False
        # Apart from the insert: two of one reporter's at once each keep its newest few, whichever runs last.
        self._sql("""DELETE FROM witness_reports WHERE reporter = ? AND id NOT IN (
                     SELECT id FROM witness_reports WHERE reporter = ? ORDER BY id DESC LIMIT ?)""",
                  (reporter, reporter, PER_REPORTER))
        return True

    def all(self) -> list[dict]:
        return entries(self._sql(f"SELECT {_COLUMNS} FROM witness_reports ORDER BY id"))


class PostgresWitnessReports:
    """The rows of one game in PostgreSQL (access_pg_schema.py), on the accounts' connections."""

    def __init__(self, db):
        self.db, self.game = db, db.game

    def add(self, report: dict, reporter: str) -> bool:
        with self.db.transaction() as conn:
            added = conn.execute("""INSERT INTO terrabank.witness_reports(game, reporter, seq, hash, other, shown,
                                    head_seq, head_hash, mark, at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                                    ON CONFLICT DO NOTHING RETURNING id""", (self.game, *_row(report, reporter)))
            if added.fetchone() is None:
                return False
            conn.execute("""DELETE FROM terrabank.witness_reports WHERE game = %s AND reporter = %s AND id NOT IN (
                            SELECT id FROM terrabank.witness_reports WHERE game = %s AND reporter = %s
                            ORDER BY id DESC LIMIT %s)""", (self.game, reporter, self.game, reporter, PER_REPORTER))
        return True

    def all(self) -> list[dict]:
        return entries(self.db.rows(f"SELECT {_COLUMNS} FROM terrabank.witness_reports WHERE game = %s ORDER BY id",
                                    (self.game,)))
