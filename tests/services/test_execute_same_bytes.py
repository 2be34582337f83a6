"""Cutting Bank.execute's CPU must not change a byte of what it writes.

The same 700 mixed commands (harvests, inventories, builds, reversals, awards, track raises,
animals, refused ones among them), booked at fixed times with a seeded die, give the same
journal export, the same chain head, the same fingerprints and the same snapshot as the code before the cuts
did: the figures below were taken from that code (commit 321af37, `book_mixed` run on a copy of
its tree). Whatever the bank does faster, a game's journal, its chain (the head a lead wrote
down on paper) and its ids' fingerprints stay what they were.
"""

from __future__ import annotations

import hashlib
import re
import json
import random
import sqlite3

import pytest

from bank.errors import BankError
from bank.services.bank import Bank
from bank.services.export import export_journal
from bank.store import chain

# From the code before Bank.execute's CPU cuts (commit 321af37), the same book_mixed.
BEFORE = {
    "outcomes": "eb7831508e8586446dcb500eeeeb9b2845e9ad24dcee3d4cd23104d9dc58eaf4",
    "export": "a4b2d834cd55031e51d434cde6c056611724df1563a439eddcee89cd4fae9c62",
    # A new game's row 1 links to its creation record's seed, which holds its creation time and random
    # identity, so its head differs from game to game: what stays is row 500's hash chained from GENESIS, as
    # a game made before the seed chains it (the code before the seed gave the same, carried in its snapshot).
    # Rows 501-512 link to the snapshot's binding; the bank's own verify checks them.
    "row_500_from_genesis": "81c884eaac8f5f0d0ec7786b91d12e28b7aaaa59ca100d224f3e152239638e06",
    "fingerprints": "3129ea8f9d023b503fd0d5b11eea5fdd3b4770276b50fd6329dfb231d83ea53d",
    # The snapshot's state (its JSON with sorted keys); the chain head and seal it also carries depend on
    # the game's seed, and are checked against the rows below instead.
    "snapshots": [(500, "42f5233688e478f8d3a99c7ff5883363239608acefca1f315b641e8b02fd6b49")],
    "booked": 510,  # 190 of the 700 refused (cooldowns, stock, buildings owned, a reversal's target)
}

TEAMS = ["blue", "yellow", "red", "green"]
RESOURCES = ["water", "flora", "dioxygen", "fauna", "energy"]
BUILDINGS = ["power_plant_1", "purification_centre", "greenhouse", "reserve", "laboratory", "power_plant_2"]


def mixed(i: int, last_seq) -> dict:
    """Command i of the mix: mostly harvests and builds, some refused on purpose (unknown card, no stock)."""
    team = TEAMS[i % 4]
    kind = i % 10
    if kind in (0, 3, 6):
        return {"type": "harvest", "team": team, "card": f"harvester-{i // 4 % 2 + 1}", "resource": RESOURCES[i % 5],
                "actor": "bench"}
    if kind in (1, 7):
        return {"type": "inventory", "team": team, "counted": {r: 20 + i % 7 for r in RESOURCES}, "reason": "count é"}
    if kind in (2, 5):
        return {"type": "build", "team": team, "building": BUILDINGS[i // 3 % len(BUILDINGS)]}
    if kind == 4:
        return {"type": "reverse", "seq": last_seq, "reason": "ùndo"}
    if kind == 8:
        return {"type": "award", "team": team, "points": i % 5 - 1, "reason": f"award {i}"}
    return {"type": "raise_tracks", "team": team, "steps": {"phytosphere": 1}} if i % 20 == 9 else \
        {"type": "buy_animal", "team": team, "animal": "sheep"}


def book_mixed(path, config, n: int = 700) -> dict:
    """Book n mixed commands at fixed times with a seeded die; what a reader of the game sees of them."""
    clock = [1_700_000_000.0]
    bank = Bank.create(path, config, wall=lambda: clock[0], mono=lambda: clock[0] - 1_600_000_000.0)
    outcomes, prints = [], []
    try:
        bank._rng = random.Random(27)  # the die, seeded: the same faces on both codes
        at = 1_700_000_000.0
        bank.execute({"id": "start", "type": "start_clock"}, now=at)
        last_seq = 1
        for i in range(n):
            at += 7.125  # some harvest cooldowns pass, some not
            command = {"id": f"c{i}", **mixed(i, last_seq)}
            try:
                result = bank.execute(command, now=at)
            except BankError as refusal:
                outcomes.append(refusal.code)
                continue
            outcomes.append(result.seq)
            last_seq = result.seq
        # A retry of a booked id answers from the row, by its fingerprint.
        retry = bank.execute({"id": "c0", **mixed(0, 1)}, now=at)
        outcomes.append(("retry", retry.seq, retry.duplicate))
        prints = [row["fingerprint"] for row in bank.journal_rows(0)]
        seq, head = bank.chain_head()
        assert bank.verify() == []
        export = path.parent / "journal.json"
        export_journal(bank, export, "json")
    finally:
        bank.close()
    with sqlite3.connect(path) as db:  # the sealed snapshot(s), written every SNAPSHOT_EVERY seqs
        snapshots = db.execute("SELECT seq, state FROM snapshots ORDER BY seq").fetchall()
        rows = db.execute(chain.SELECT_ROWS + " ORDER BY seq").fetchall()
        seals = dict(db.execute("SELECT seq, seal FROM chain_snapshot").fetchall())
        seed = db.execute("SELECT value FROM meta WHERE key = ?", (chain.SEED_KEY,)).fetchone()
    db.close()
    # The stored head is these rows chained from the game's own seed; from GENESIS they give the head of old.
    assert seed and list(chain.replay(rows, seals, seed[0]))[-1] == (seq, head)
    row_hashes = dict(chain.replay(rows, {}, seed[0]))  # a snapshot carries its row's hash, before its binding
    assert all(json.loads(text)["chain"] == row_hashes[at] for at, text in snapshots)
    from_genesis = dict(chain.replay(rows, {}, chain.GENESIS))
    return {"outcomes": hashlib.sha256(json.dumps(outcomes).encode()).hexdigest(),
            # The rows' bytes as before exports carried each entry's head (test_verify_witness.py checks those).
            "export": hashlib.sha256(re.sub(rb'"chain": "[0-9a-f]{64}", ', b"", export.read_bytes())).hexdigest(),
            "row_500_from_genesis": from_genesis[500],
            "fingerprints": hashlib.sha256("".join(prints).encode()).hexdigest(),
            "snapshots": [(at, hashlib.sha256(json.dumps(json.loads(text)["state"], sort_keys=True).encode()).hexdigest())
                          for at, text in snapshots],
            "booked": sum(type(o) is int for o in outcomes)}


@pytest.mark.sqlite_file("the figures were taken on SQLite; the chain is the same on both stores")
def test_700_mixed_commands_write_the_same_journal_chain_fingerprints_and_snapshot_as_before(config, bank_path):
    assert book_mixed(bank_path, config) == BEFORE
