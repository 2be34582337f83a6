"""Issue 27: cutting Bank.execute's CPU must not change a byte of what it writes.

The same 500 mixed commands (harvests, inventories, builds, reversals, awards, track raises,
animals, refused ones among them), booked at fixed times with a seeded die, give the same
journal export, the same chain head and the same fingerprints as the code before the cuts
did: the figures below were taken from that code (commit 321af37, `book_mixed` run on a copy of
its tree). Whatever the bank does faster, a game's journal, its chain (the head a lead wrote
down on paper) and its ids' fingerprints stay what they were.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from bank.errors import BankError
from bank.services.bank import Bank
from bank.services.export import export_journal

# From the code before issue 27's CPU cuts (commit 321af37), the same book_mixed.
BEFORE = {
    "outcomes": "c0b06d6133a508dc7efc478db797ee16638488a60cf1f813729e2bd6bdb6a4c6",
    "export": "747e57c6061bcb082f552f59233b3211a657023e737b73ae81d8b76d3579fc1d",
    "head": "372:01d42dd91e3d8aebbc7debc130c5ac983df27848ab98dc524748c66493633995",
    "fingerprints": "17f5aecb4c5000ce76a5a1ec550ec62bcd4bfd2a7bb085b52e75913dd2bb7d0c",
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


def book_mixed(path, config, n: int = 500) -> dict:
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
            at += 7.125  # harvest cooldowns pass, and a tick falls due now and then
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
    return {"outcomes": hashlib.sha256(json.dumps(outcomes).encode()).hexdigest(),
            "export": hashlib.sha256(export.read_bytes()).hexdigest(),
            "head": f"{seq}:{head}",
            "fingerprints": hashlib.sha256("".join(prints).encode()).hexdigest()}


@pytest.mark.sqlite_file("the figures were taken on SQLite; the chain is the same on both stores")
def test_500_mixed_commands_write_the_same_journal_chain_and_fingerprints_as_before(config, bank_path):
    assert book_mixed(bank_path, config) == BEFORE
