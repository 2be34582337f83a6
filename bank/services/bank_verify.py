"""`verify` of a field game: replay the whole journal and check every row, snapshot and the live state.

Split from bank/services/bank.py, which runs the game; this module only reads it.
A check made of several reads must see one moment of the game, or a row another process
books meanwhile shows as a difference: so everything is read in one view of the journal
(`read_view`: one read transaction in SQLite, REPEATABLE READ in PostgreSQL), and the live
state of this process is compared with the replay at the seq that state stands at, not at
the journal's end (another process may have booked since this one last folded the rows).
The rows after that seq are still checked: chain, seqs, fingerprints, that they replay,
and every snapshot against the replay. The bank's own lock is held by the caller, so this
process books nothing meanwhile; other processes go on booking, and no lock of the game is
taken (a verify of a long game takes a second or two: a bank must not wait for it).
"""

from __future__ import annotations

from bank.game import invariants
from bank.game.state import GameState
from bank.store.rows import row_problems


def fold(state: GameState, events) -> GameState:
    """Apply `events` in order to `state`, in place (GameState.apply), and return it.

    Only for a state nobody else holds (a replay's own): the live state is never changed.
    """
    for event in events:
        state.apply(event)
    return state


def tampered(journal, own_check: str = "the database's own check") -> list[str]:
    """What `serve` refuses a game for before anyone plays it (bank/cli/serve.py check_database, a worker started
    again, a hosted game): the database's own check, then the chain (a row, a snapshot's binding or the creation
    record edited, a tail cut short of the checkpoint); [] when sound. Opening reads only the rows after the last
    snapshot, and the witnesses are answered the heads as stored: a game opened without this serves an edited history
    under the heads the phones saw."""
    report = journal.integrity_check()
    if report != "ok":
        return [f"{own_check} found: {first_finding(report)}"]
    chain = journal.chain_problem()
    return [chain] if chain else []


def first_finding(report: str) -> str:
    """The first line of a database's check that names a problem: SQLite heads a damaged page's findings with
    "*** in database main ***", which says nothing to whoever reads the refusal."""
    return next((line for line in report.splitlines() if not line.startswith("***")), report).strip()


def verify_journal(journal, config, live: GameState, live_seq: int) -> list[str]:
    """Every problem found replaying the journal, checking snapshots and the store; [] when sound."""
    problems, state, seq = [], GameState.initial(config), 0
    with journal.read_view():
        chain = journal.chain_problem()
        if chain:
            problems.append(chain)
        named = journal.snapshot_problems()  # an edited snapshot, named (its seal, or the one the chain binds)
        problems += named
        snapshots = dict(journal.snapshots())
        if live_seq == 0:
            problems += _live_differs(state, live)
        for row in journal.rows():
            if row["seq"] != seq + 1:
                problems.append(f"seqs {seq + 1} to {row['seq'] - 1} are missing (rows deleted)")
            seq = row["seq"]
            problems += row_problems(row)
            try:
                state = fold(state, row["events"])
            except Exception as exc:  # a tampered event may not even apply
                problems.append(f"seq {seq}: its events cannot be applied ({exc})")
            if seq in snapshots and not _same_state(snapshots.pop(seq), state):
                problems += _snapshot_differs(seq, chain, named)
            if seq == live_seq:
                problems += _live_differs(state, live)
    if seq < live_seq:
        problems.append(f"the live state stands at entry {live_seq} but the journal ends at entry {seq} "
                        "(rows deleted)")
    problems += [f"snapshot at seq {seq} has no journal row" for seq in sorted(snapshots)]
    problems += [f"invariant: {p}" for p in invariants.check(live, config)]
    integrity = journal.integrity_check()  # outside the view: PostgreSQL's index check may fail a statement
    if integrity != "ok":
        problems.append(f"{journal.check_name}: {integrity}")
    return problems


def _snapshot_differs(seq: int, chain: str | None, named: list[str]) -> list[str]:
    """Why the snapshot at `seq` differs from the replay: the snapshot alone, or a changed row."""
    if chain:  # the rows no longer match the chain: one of them may be what changed
        return [f"snapshot at seq {seq} differs from the replayed journal (a row at or before seq {seq} was changed)"]
    if any(f"snapshot at journal row {seq} " in p for p in named):
        return [f"snapshot at seq {seq} differs from the replayed journal (the snapshot was changed, not the rows: "
                "they still match the chain)"]
    return [f"snapshot at seq {seq} differs from the replayed journal, whose rows still match the chain: the "
            "snapshot was changed (if its seal matches, the chain was rewritten over it: its head is no longer "
            "the one written down or the one the phones saw)"]


def _live_differs(replayed: GameState, live: GameState) -> list[str]:
    if replayed == live:
        return []
    return ["the live state differs from the replayed journal (changed keys: "
            f"{', '.join(_diff(replayed.to_dict(), live.to_dict())) or '?'})"]


def _same_state(snapshot: dict, state: GameState) -> bool:
    """Whether a stored snapshot equals `state` (False if it no longer loads)."""
    try:
        return GameState.from_dict(snapshot) == state
    except (TypeError, ValueError, KeyError):
        return False


def _diff(a, b, prefix: str = "", limit: int = 5) -> list[str]:
    """Up to `limit` dotted paths where two JSON-like values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            out += _diff(a.get(key), b.get(key), f"{prefix}{key}.", limit - len(out))
            if len(out) >= limit:
                break
        return out
    return [] if a == b else [prefix.rstrip(".") or "(root)"]
