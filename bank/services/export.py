"""Exports for after the game: the journal and the standings, as JSON or CSV files.

Each journal row (JSON) and transfer line (CSV) carries the chain's head at its entry ("chain", as the phones
and the paper keep it: Bank.head_at), so an export copied off the bank is a witness too: `terrabank verify
--witness FILE` (export_witness.py) finds any entry the game no longer holds as it was exported."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bank.game import views
from bank.errors import BankError

FORMATS = ("json", "csv")
TRANSFER_COLUMNS = ["seq", "at", "type", "actor", "from", "to", "resource", "amount", "reason", "chain"]
STANDINGS_COLUMNS = ["rank", "team", "label", "reputation", "animals", "buildings"]


@contextmanager
def atomic_writer(path):
    """A text file that appears at `path` complete or not at all (temp file + rename)."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from None
        raise


def _write_error(path: Path, exc: OSError) -> BankError:
    return BankError("cannot_write_export", f"Cannot write {path} ({exc.strerror or exc}): "
                     "check that the folder exists and is writable.", path=str(path))


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise BankError("unknown_format", f"Unknown export format {fmt!r}: use json or csv.",
                        format=fmt)


def export_journal(bank, path, fmt: str) -> int:
    """Write the whole journal to `path`; returns the number of rows (JSON) or lines (CSV)."""
    _check_format(fmt)
    with atomic_writer(path) as out:
        return write_journal(bank, out, fmt)


def write_journal(bank, out, fmt: str) -> int:
    """The journal as JSON rows or CSV transfer lines, to any text stream."""
    rows = _with_heads(bank)
    if fmt == "json":
        return _journal_json(rows, out)
    return _journal_csv(rows, out)


def _with_heads(bank):
    """The journal's rows, each with the chain's head at its entry ("chain")."""
    for row, head in bank.journal_rows_with_heads(0):  # one read, not a head read per row
        yield {**row, "chain": head}


def render(what: str, fmt: str, bank, now: float) -> str:
    """An export as text, for a download from the admin page."""
    _check_format(fmt)
    out = io.StringIO()
    if what == "journal":
        write_journal(bank, out, fmt)
    else:
        write_standings(bank, out, fmt, now)
    return out.getvalue()


def _journal_json(rows, out) -> int:
    """A JSON list of rows, written row by row so a long game needs little memory."""
    count = 0
    out.write("[")
    for row in rows:
        out.write(",\n" if count else "\n")
        out.write(json.dumps(row, ensure_ascii=False, sort_keys=True))
        count += 1
    out.write("\n]\n")
    return count


def _journal_csv(rows, out) -> int:
    """One CSV line per transfer event: who moved which tokens, when and why."""
    writer = csv.DictWriter(out, TRANSFER_COLUMNS)
    writer.writeheader()
    count = 0
    for row in rows:
        for event in row["events"]:
            if event.get("type") != "transfer":
                continue
            writer.writerow(_safe_row({"seq": row["seq"], "at": row["at"], "type": row["type"],
                                       "actor": row["actor"] or "", "from": event["from"],
                                       "to": event["to"], "resource": event["resource"],
                                       "amount": event["amount"], "reason": event.get("reason", ""),
                                       "chain": row["chain"]}))
            count += 1
    return count


def standings_rows(bank, now: float) -> list[dict]:
    """The standings as flat rows: labels in the game's language, lists joined."""
    language = getattr(bank.config, "language", "en")
    return [{key: _flat(item.get(key), language) for key in STANDINGS_COLUMNS}
            for item in views.standings(bank.state, bank.config, now)]


def _flat(value, language: str):
    """A cell: a label dict becomes its text, a list becomes "a;b", else unchanged."""
    if isinstance(value, dict):
        return value.get(language) or next(iter(value.values()), "")
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    return value


def export_standings(bank, path, fmt: str, now: float) -> int:
    """Write the standings to `path`; returns the number of teams."""
    _check_format(fmt)
    with atomic_writer(path) as out:
        return write_standings(bank, out, fmt, now)


def write_standings(bank, out, fmt: str, now: float) -> int:
    """The standings as JSON (labels in every language, colours) or flat CSV; returns the team count."""
    if fmt == "json":
        rows = views.standings(bank.state, bank.config, now)
        json.dump(rows, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        rows = standings_rows(bank, now)
        writer = csv.DictWriter(out, STANDINGS_COLUMNS)
        writer.writeheader()
        writer.writerows(_safe_row(row) for row in rows)
    return len(rows)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _safe_row(row: dict) -> dict:
    """Text cells a spreadsheet would run as a formula ("=HYPERLINK(...)" in a username or a reason)
    get a leading apostrophe, so the facilitator who opens the CSV sees the text and nothing runs."""
    return {k: "'" + v if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v for k, v in row.items()}
