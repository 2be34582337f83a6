"""Snapshots bound into the chain, and a deleted tail noticed where the bank can.

Findings: a snapshot edited and sealed again was served (blue got 926 dioxygen instead of 26), and
`verify` blamed "a row at or before seq N" when only the snapshot had changed; deleting the last row
and its chain row went unnoticed. Now the chain binds each snapshot's seal (bank/store/chain.py): the
start refuses a resealed snapshot naming it, `verify` names the snapshot and not the rows, a forger
must rewrite every hash after the snapshot (a new head, which the phones reject:
tests/web/field/test_phones_witness.py), and a snapshot's binding left beyond the journal's end names
the deleted rows. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from bank.cli.serve import check_database
from bank.services import bank as service
from bank.services.bank import Bank
from bank.store import chain, snapshots
from bank.store.canonical_json import canonical_json
from bank.store.journal_pg_reads import row_bytes
from bank.store.storage import StorageError
from forger_kit import forged_store

EVERY = 5  # a snapshot every 5 rows


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, config, tmp_path, monkeypatch):
    """(config, db, sql): sql(statements, *params) runs an attacker's statements with the guards off."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", EVERY)
    return forged_store(request, config, tmp_path, monkeypatch, "witness")


def _play(config, db, rows: int = 12):
    """A started game of `rows` rows: (its state, its chain head)."""
    with Bank.create(db, config) as bank:
        bank.execute({"id": "start", "type": "start_clock"})
        i = 0
        while bank.last_seq < rows:
            bank.execute({"id": f"r{i}", "type": "refill", "resource": "water", "amount": 1})
            i += 1
        return bank.state, bank.chain_head()


def _reseal(sql, seq: int) -> None:
    """The attacker who read bank/store/snapshots.py: 900 dioxygen more for blue, sealed again over the row's hash."""
    text = sql("SELECT state FROM snapshots WHERE {game} AND seq = %s", (seq,))[0][0]
    data = json.loads(text)
    blue = data["state"]["balances"]["team:blue"]
    blue["dioxygen"] = blue.get("dioxygen", 0) + 900
    body = json.dumps(data["state"], sort_keys=True, separators=(",", ":"))
    sql("UPDATE snapshots SET state = %s WHERE {game} AND seq = %s", (snapshots.sealed(seq, data["chain"], body), seq))


def test_a_resealed_snapshot_is_not_served_and_verify_names_the_snapshot_not_the_rows(store):
    config, db, sql = store
    state, head = _play(config, db)
    _reseal(sql, 5)  # an older one, which the start does not read: verify replays them all
    with Bank.open(db, config) as bank:
        assert bank.state == state and bank.chain_head() == head
        problems = bank.verify()
    assert any("snapshot at journal row 5 does not match the chain" in p for p in problems), problems
    assert not any("a row at or before" in p for p in problems), problems  # before: the rows were blamed
    _reseal(sql, 10)  # the one the start reads
    with pytest.raises(StorageError) as refused:
        Bank.open(db, config)  # before: served, blue with 900 dioxygen no row ever booked
    assert "snapshot at journal row 10 does not match the chain" in refused.value.message


def test_a_forger_who_rewrites_the_chain_over_a_snapshot_gets_a_new_head(store):
    """The chain holds no secret: rewriting the binding and every hash after it passes the start, but the
    head moved, and the head at every entry after the snapshot too: what a phone kept no longer matches."""
    config, db, sql = store
    _, head = _play(config, db)
    _, seen_by_a_phone = head
    _reseal(sql, 10)
    seal = snapshots.seal_of(sql("SELECT state FROM snapshots WHERE {game} AND seq = %s", (10,))[0][0])
    sql("UPDATE chain_snapshot SET seal = %s WHERE {game} AND seq = %s", (seal, 10))
    with Bank.open(db, config) as bank:  # the binding's seal alone: its hash no longer follows
        assert "chain's record of the snapshot at journal row 10" in bank._journal.chain_problem()
    previous = sql("SELECT hash FROM chain WHERE {game} AND seq = %s", (10,))[0][0]
    previous = chain.bind(previous, 10, seal)
    sql("UPDATE chain_snapshot SET hash = %s WHERE {game} AND seq = %s", (previous, 10))
    with Bank.open(db, config) as bank:
        rows = list(bank.journal_rows(10))
    for r in rows:
        texts = (r["command_id"], r["fingerprint"], r["type"], r["actor"], canonical_json(r["command"]),
                 canonical_json(r["events"]))
        previous = chain.link(previous, r["seq"], float(r["at"]), row_bytes(texts))
        sql("UPDATE chain SET hash = %s WHERE {game} AND seq = %s", (previous, r["seq"]))
    with Bank.open(db, config) as bank:  # the chain is consistent, but it no longer ends at the head last written
        assert "journal row 12 is not the one the bank wrote" in bank._journal.chain_problem()
    sql("UPDATE clock_checkpoint SET head = %s WHERE {game}", (previous,))
    with Bank.open(db, config) as bank:  # a consistent forgery, its checkpoint too: the start cannot tell
        assert bank._journal.chain_problem() is None
        assert bank.state.balances["team:blue"]["dioxygen"] >= 900
        assert bank.chain_head() != head and bank.head_at(12) != seen_by_a_phone  # the phones can


def test_a_deleted_tail_whose_last_row_held_a_snapshot_is_named(store):
    config, db, sql = store
    _play(config, db, rows=10)  # the snapshot at 10 is the last row
    sql("DELETE FROM chain WHERE {game} AND seq = %s", (10,))
    sql("DELETE FROM journal WHERE {game} AND seq = %s", (10,))
    with pytest.raises(StorageError) as refused:
        Bank.open(db, config)
    assert "rows from 10 on were deleted" in refused.value.message and "backup" in refused.value.message
    sql("DELETE FROM snapshots WHERE {game} AND seq = %s", (10,))  # the snapshot too: the binding still says
    with Bank.open(db, config) as bank:
        assert bank.last_seq == 9
        found = bank._journal.chain_problem()  # what serve's check and verify say (before: None, serve started)
    assert found and "the rows after 9 were deleted" in found and "row 10" in found


def test_a_deleted_last_row_with_its_chain_row_is_refused_by_serve_and_named_by_verify(store):
    """The last row (no snapshot there) deleted with its chain row left a chain that
    ended cleanly at 11: `verify` said ok and `serve` started. The time line's checkpoint, saved with
    every row, recorded row 12 and its head: the journal now falls short of it."""
    config, db, sql = store
    _play(config, db, rows=12)  # snapshots at 5 and 10; row 12 stands alone
    sql("DELETE FROM chain WHERE {game} AND seq = %s", (12,))
    sql("DELETE FROM journal WHERE {game} AND seq = %s", (12,))
    with pytest.raises(StorageError) as refused:
        check_database(db, config)  # what `serve` runs before it opens the game (before: it started)
    assert "the bank wrote journal row 12" in refused.value.message
    assert "the rows after 11 were deleted" in refused.value.message
    with Bank.open(db, config) as bank:
        problems = bank.verify()  # before: []
    assert any("journal row 12" in p and "rows after 11 were deleted" in p for p in problems), problems


def test_the_checkpoint_follows_each_row_and_a_sound_game_verifies(store):
    """No false alarm: the checkpoint names the last row and head after rows, snapshots and restarts."""
    config, db, sql = store
    _, head = _play(config, db, rows=10)  # the last row holds a snapshot: its head is the binding
    seq, recorded = sql("SELECT seq, head FROM clock_checkpoint WHERE {game}")[0]
    row_hash = sql("SELECT hash FROM chain WHERE {game} AND seq = %s", (10,))[0][0]
    assert seq == 10 and recorded in (row_hash, head[1])  # written with the row, before or after its binding
    check_database(db, config)
    with Bank.open(db, config) as bank:
        assert bank.verify() == []
        bank.execute({"id": "after-restart", "type": "refill", "resource": "water", "amount": 1})
        head = bank.chain_head()
    assert tuple(sql("SELECT seq, head FROM clock_checkpoint WHERE {game}")[0]) == tuple(head)
    check_database(db, config)


def test_a_game_written_before_the_binding_opens_from_its_sealed_snapshot(config, tmp_path, monkeypatch):
    """Backward compatibility: a file from before the binding has no chain_snapshot table, its rows link to the
    rows' hashes only and its snapshots are sealed over that chain; it opens, gains the table, trusts its
    sealed snapshot, verifies clean, and binds the snapshots taken from then on."""
    monkeypatch.setattr(service, "SNAPSHOT_EVERY", EVERY)
    db = tmp_path / "old.db"
    _play(config, db, rows=11)
    raw = sqlite3.connect(db)  # the same rows, as the code before the binding wrote them
    raw.executescript("DROP TABLE chain_snapshot; DROP TRIGGER chain_no_update; DROP TRIGGER snapshots_no_update; "
                      "ALTER TABLE clock_checkpoint DROP COLUMN seq; ALTER TABLE clock_checkpoint DROP COLUMN head; "
                      "DROP TRIGGER meta_no_delete; DELETE FROM meta WHERE key = 'chain_seed';")
    links = dict(chain.replay(raw.execute(f"{chain.SELECT_ROWS} ORDER BY seq").fetchall()))
    raw.executemany("UPDATE chain SET hash = ? WHERE seq = ?", [(h, seq) for seq, h in links.items()])
    for seq, text in raw.execute("SELECT seq, state FROM snapshots").fetchall():
        body = json.dumps(snapshots.state_of(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        raw.execute("UPDATE snapshots SET state = ? WHERE seq = ?", (snapshots.sealed(seq, links[seq], body), seq))
    raw.commit()
    raw.close()
    folded = []
    real = service.fold
    monkeypatch.setattr(service, "fold", lambda s, events: folded.append(1) or real(s, events))
    with Bank.open(db, config) as bank:
        assert len(folded) == 1  # the row after the sealed snapshot at 10 only: it was trusted
        assert bank.chain_head() == (11, links[11]) and bank.verify() == []
        while bank.last_seq < 16:
            bank.execute({"id": f"more{bank.last_seq}", "type": "refill", "resource": "water", "amount": 1})
        assert bank.verify() == []
    folded.clear()
    with Bank.open(db, config) as bank:
        assert len(folded) == 1  # from the snapshot at 15, bound: the newest the start trusts


def test_postgresql_tables_from_before_the_checkpoint_tip_gain_it_on_open(store):
    """A database whose checkpoint table has no seq and head (made before this issue) opens, gains them,
    and from the next row on refuses a deleted tail."""
    config, db, sql = store
    if not isinstance(db, str):
        pytest.skip("PostgreSQL's tables (the SQLite file: test_a_game_written_before_the_binding...)")
    _play(config, db, rows=3)
    sql("ALTER TABLE terrabank.clock_checkpoint DROP COLUMN seq, DROP COLUMN head")
    with Bank.open(db, config) as bank:
        assert bank.verify() == []  # no tip recorded yet: nothing to compare, no false alarm
        bank.execute({"id": "after-update", "type": "refill", "resource": "water", "amount": 1})
    sql("DELETE FROM chain WHERE {game} AND seq = %s", (4,))
    sql("DELETE FROM journal WHERE {game} AND seq = %s", (4,))
    with pytest.raises(StorageError, match="the bank wrote journal row 4"):
        check_database(db, config)



def test_an_edited_creation_record_is_named_by_verify_and_refused_by_serve(store):
    """The creation record (meta) was outside the chain: one character appended to
    `created_at` changed the game's mark (what the phones name the game by) and `verify` said ok. Now the
    chain starts from a seed that covers it: `verify` and `serve` name the creation record."""
    config, db, sql = store
    _play(config, db, rows=3)
    with Bank.open(db, config) as bank:
        mark = bank.game_mark()
    sql("UPDATE meta SET value = value || '1' WHERE {game} AND key = %s", ("created_at",))
    with Bank.open(db, config) as bank:
        assert bank.game_mark() != mark  # what the attacker was after: the phones' "another game"
        problems = bank.verify()  # before: []
    assert any("creation record" in p and "created_at" in p for p in problems), problems
    with pytest.raises(StorageError) as refused:
        check_database(db, config)  # before: served
    assert "creation record" in refused.value.message


def test_the_attacker_who_rewrites_the_seed_too_gets_a_new_head_at_every_entry(store):
    """Rewriting the seed and every hash passes `verify`, as any rebuilt chain does, but each entry's head
    changed, so a phone that kept one sees the difference (tests/web/field/test_phones_witness.py)."""
    config, db, sql = store
    _, (seq, head) = _play(config, db, rows=4)  # before the first snapshot (resealing one: the tests above)
    sql("UPDATE meta SET value = value || '1' WHERE {game} AND key = %s", ("created_at",))
    meta = dict(sql("SELECT key, value FROM meta WHERE {game}"))
    start = chain.seed(meta)
    sql("UPDATE meta SET value = %s WHERE {game} AND key = %s", (start, chain.SEED_KEY))
    with Bank.open(db, config) as bank:
        rows = list(bank.journal_rows(0))
    previous = start
    for r in rows:
        texts = (r["command_id"], r["fingerprint"], r["type"], r["actor"], canonical_json(r["command"]),
                 canonical_json(r["events"]))
        previous = chain.link(previous, r["seq"], float(r["at"]), row_bytes(texts))
        sql("UPDATE chain SET hash = %s WHERE {game} AND seq = %s", (previous, r["seq"]))
    sql("UPDATE clock_checkpoint SET head = %s WHERE {game}", (previous,))
    with Bank.open(db, config) as bank:
        assert bank.verify() == []  # a consistent forgery: only the heads kept outside can tell
        assert bank.chain_head() == (seq, previous) and previous != head


def test_a_game_from_before_the_seed_verifies_and_keeps_its_heads(store):
    """No false alarm on existing games: one whose meta has no seed links row 1 to GENESIS, as always."""
    config, db, sql = store
    _play(config, db, rows=3)
    meta = dict(sql("SELECT key, value FROM meta WHERE {game}"))
    sql("DELETE FROM meta WHERE {game} AND key = %s", (chain.SEED_KEY,))  # as the code before wrote it
    with Bank.open(db, config) as bank:
        rows = list(bank.journal_rows(0))
    previous = chain.GENESIS
    for r in rows:
        texts = (r["command_id"], r["fingerprint"], r["type"], r["actor"], canonical_json(r["command"]),
                 canonical_json(r["events"]))
        previous = chain.link(previous, r["seq"], float(r["at"]), row_bytes(texts))
        sql("UPDATE chain SET hash = %s WHERE {game} AND seq = %s", (previous, r["seq"]))
    sql("UPDATE clock_checkpoint SET head = %s WHERE {game}", (previous,))
    check_database(db, config)
    with Bank.open(db, config) as bank:
        assert bank.verify() == [] and bank.chain_head() == (3, previous)
        assert bank.game_mark() == chain.game_mark(meta["created_at"], meta["identity"])  # the same mark as before
        bank.execute({"id": "after-update", "type": "refill", "resource": "water", "amount": 1})
        assert bank.verify() == []


def test_a_new_game_over_an_old_one_declares_it_bound_into_its_chain(store):
    """`init --force` over a game: the new game names the one it replaced (its mark, last entry and head), so
    a page that held that head is told of a successor; the declaration is covered by the seed."""
    config, db, sql = store
    _, (seq, head) = _play(config, db, rows=4)
    with Bank.open(db, config) as bank:
        old_mark = bank.game_mark()
        assert bank.previous_game() is None
    with Bank.create(db, config, force=True) as bank:
        assert bank.game_mark() != old_mark
        assert bank.previous_game() == {"game": old_mark, "seq": seq, "hash": head}
    sql("UPDATE meta SET value = replace(value, %s, %s) WHERE {game} AND key = %s",
        (head, "0" * 64, chain.PREVIOUS_KEY))  # the forger who would pass a swap off as a declared successor
    with Bank.open(db, config) as bank:
        problems = bank.verify()
    assert any("creation record" in p for p in problems), problems
