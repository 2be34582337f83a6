"""The report says how many commands came late (made on a station offline, booked when the network came
back) and from which stations; a game booked live has no such section."""

from __future__ import annotations

from printkit import all_text

from printables.report import render_report


def test_the_report_counts_late_commands_per_station(started):
    bank = started
    for n in range(3):
        bank.execute({"id": f"late-a{n}", "actor": "ana", "type": "harvest", "team": "green", "card": "harvester-1",
                      "resource": "flora", "queued": {"seconds": 60 * n + 30, "device": "d-aaaa1111"}})
    bank.execute({"id": "late-b", "actor": "ben", "type": "harvest", "team": "red", "card": "harvester-1",
                  "resource": "water", "queued": {"seconds": 5, "device": "d-bbbb2222"}})
    bank.execute({"id": "live", "actor": "ben", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
    text = " ".join(all_text(render_report(bank, "en")).split())
    assert "Commands that came late" in text
    assert "4 commands made offline, booked when the network came back:" in text
    assert "ana (device d-aaaa1111): 3, the longest wait 2 min 30 s" in text
    assert "ben (device d-bbbb2222): 1, after a wait of 5 s" in text
    french = " ".join(all_text(render_report(bank, "fr")).split())
    assert "Commandes arrivées en retard" in french and "ana (appareil d-aaaa1111) : 3" in french  # split() took the no-break space


def test_a_game_booked_live_has_no_late_section(started):
    started.execute({"id": "live", "actor": "ben", "type": "harvest", "team": "red", "card": "harvester-1", "resource": "water"})
    assert "came late" not in all_text(render_report(started, "en"))
