"""What each facilitator's device last said its outbox holds (commands kept while the bank was out of reach),
kept with the accounts, so every process of the game reads the same list: the lead's admin page, served by
any of them, shows every device still catching up, whichever process heard it.

A row is keyed by its holder: the id inside the device cookie the bank signed at the device's log-in (the
web layer reads it), never a name the page chooses, so a facilitator cannot overwrite or empty another
device's report. The page's own name for the device (the one its queued commands carry) is shown beside.
A log-in gives a new cookie: the row moves to the new holder (`moved`), so the device keeps one row.
Each account keeps at most PER_ACCOUNT rows; a newer one of the account pushes out its own oldest only.
"""

from __future__ import annotations

PER_ACCOUNT = 20  # devices one account reports from; more is one facilitator making noise

SCHEMA = """CREATE TABLE IF NOT EXISTS outbox_devices (
    holder TEXT PRIMARY KEY, device TEXT NOT NULL, account TEXT NOT NULL, waiting INTEGER NOT NULL,
    oldest_seconds INTEGER NOT NULL, at REAL NOT NULL);"""

FIELDS = ("device", "account", "waiting", "oldest_seconds", "at")


def listed(rows) -> list[dict]:
    """The rows as the admin page reads them (without the holder), most waiting first."""
    return sorted((dict(zip(FIELDS, row)) for row in rows), key=lambda d: (-d["waiting"], d["device"], d["account"]))


class DeviceReports:
    """The rows in the game's SQLite file, through the accounts' `sql` (one statement, its errors as sentences)."""

    def __init__(self, sql):
        self._sql = sql

    def report(self, holder: str, device: str, account: str, waiting: int, oldest: int, now: float) -> None:
        """What the device holding cookie `holder` holds now; a device holding nothing is no longer listed."""
        if not waiting:
            self._sql("DELETE FROM outbox_devices WHERE holder = ?", (holder,))
            return
        self._sql("""INSERT INTO outbox_devices VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (holder) DO UPDATE SET
                     device = excluded.device, account = excluded.account, waiting = excluded.waiting,
                     oldest_seconds = excluded.oldest_seconds, at = excluded.at""",
                  (holder, device, account, waiting, oldest, now))
        self._sql("""DELETE FROM outbox_devices WHERE account = ? AND holder NOT IN (
                     SELECT holder FROM outbox_devices WHERE account = ? ORDER BY at DESC, holder LIMIT ?)""",
                  (account, account, PER_ACCOUNT))

    def moved(self, old: str, new: str) -> None:
        """The device logged in again: its row follows its new cookie."""
        self._sql("UPDATE OR REPLACE outbox_devices SET holder = ? WHERE holder = ?", (new, old))

    def holding(self) -> list[dict]:
        """The devices that said they hold waiting commands, most waiting first."""
        return listed(self._sql("SELECT device, account, waiting, oldest_seconds, at FROM outbox_devices"))


class PostgresDeviceReports:
    """The rows of one game in PostgreSQL (access_pg_schema.py), on the accounts' connections."""

    def __init__(self, db):
        self.db, self.game = db, db.game

    def report(self, holder: str, device: str, account: str, waiting: int, oldest: int, now: float) -> None:
        if not waiting:
            self.db.rows("DELETE FROM terrabank.outbox_devices WHERE game = %s AND holder = %s", (self.game, holder))
            return
        with self.db.transaction() as conn:
            conn.execute("""INSERT INTO terrabank.outbox_devices(game, holder, device, account, waiting, oldest_seconds, at)
                            VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game, holder) DO UPDATE SET
                            device = EXCLUDED.device, account = EXCLUDED.account, waiting = EXCLUDED.waiting,
                            oldest_seconds = EXCLUDED.oldest_seconds, at = EXCLUDED.at""",
                         (self.game, holder, device, account, waiting, oldest, now))
            conn.execute("""DELETE FROM terrabank.outbox_devices WHERE game = %s AND account = %s AND holder NOT IN (
                            SELECT holder FROM terrabank.outbox_devices WHERE game = %s AND account = %s
                            ORDER BY at DESC, holder LIMIT %s)""", (self.game, account, self.game, account, PER_ACCOUNT))

    def moved(self, old: str, new: str) -> None:
        self.db.rows("UPDATE terrabank.outbox_devices SET holder = %s WHERE game = %s AND holder = %s",
                     (new, self.game, old))

    def holding(self) -> list[dict]:
        return listed(self.db.rows("SELECT device, account, waiting, oldest_seconds, at FROM terrabank.outbox_devices "
                                   "WHERE game = %s", (self.game,)))
