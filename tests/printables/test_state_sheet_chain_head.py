"""The paper state sheet prints the journal chain's head at its entry.

The sheet is where paper takes over when the bank stops; with the head on it, a journal rolled back
or rebuilt afterwards is caught against the paper as against a phone (static/js/witness.js): the
whole hash, as `terrabank verify --at <entry>` prints it.
"""

from __future__ import annotations

from printkit import all_text


def test_the_state_sheet_prints_the_chain_head_at_its_entry(app, web):
    lead = web("lead")
    for command in ({"type": "start_clock"}, {"type": "refill", "resource": "water", "amount": 2}):
        assert lead.command(**command).status_code == 200
    bank = app.extensions["terrabank"].bank
    seq, head = bank.chain_head()
    reply = lead.client.get("/api/paper/state.pdf")
    assert reply.status_code == 200
    words = " ".join(all_text(reply.data).split())
    assert head in words.replace(" ", "")  # the whole hash, to compare character by character
    assert f"Chaîne du journal à l'entrée n° {seq}" in words
    assert bank.chain_at(seq) == head  # what `verify --at` recomputes from the rows


def test_the_english_sheet_says_it_in_english(app, web):
    from printables.state_data import snapshot
    from printables.state_sheet import render_state

    lead = web("lead")
    assert lead.command(type="start_clock").status_code == 200
    services = app.extensions["terrabank"]
    bank = services.bank
    seq, head = bank.chain_head()
    snap = snapshot(bank.state, services.config, bank.now(), seq, 1_700_000_000.0, bank.head_at(seq))
    words = " ".join(all_text(render_state(snap, services.config, "en")).split())
    assert f"Journal chain at entry {seq}: {head}" in words
