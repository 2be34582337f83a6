"""The report's word on commands that came late: made on a station while the bank was out of reach,
kept on its device and booked when the bank answered again (docs/OUTBOX.md). The bank judged each at
arrival; the report says how many there were and from which stations, so the lead can tell whether
a result hung on a station's Wi-Fi.
"""

from __future__ import annotations

from .boards import BANK_COLOUR, header
from .drawing import FONT, INK, PT, text
from .geometry import Box
from .labels import typo
from .report_moments import AREA

WORDS = {
    "fr": {"title": "Commandes arrivées en retard", "total": "{n} commandes faites hors ligne, enregistrées au retour du réseau :",
           "total_1": "1 commande faite hors ligne, enregistrée au retour du réseau :",
           "line": "{actor} (appareil {device}) : {n}, la plus longue attente {wait}",
           "line_1": "{actor} (appareil {device}) : 1, après {wait} d'attente"},
    "en": {"title": "Commands that came late", "total": "{n} commands made offline, booked when the network came back:",
           "total_1": "1 command made offline, booked when the network came back:",
           "line": "{actor} (device {device}): {n}, the longest wait {wait}",
           "line_1": "{actor} (device {device}): 1, after a wait of {wait}"},
}


def late_stations(rows) -> list[dict]:
    """Per station (account and device), the commands booked after waiting on it: [{actor, device, n, longest}]."""
    stations: dict[tuple, dict] = {}
    for row in rows:
        queued = (row.get("command") or {}).get("queued")
        if not isinstance(queued, dict):
            continue
        key = (str(row.get("actor") or "?"), str(queued.get("device", "?")))
        seen = stations.setdefault(key, {"actor": key[0], "device": key[1], "n": 0, "longest": 0})
        seen["n"] += 1
        seen["longest"] = max(seen["longest"], int(queued.get("seconds", 0)))
    return sorted(stations.values(), key=lambda s: (-s["n"], s["actor"], s["device"]))


def _wait(seconds: int) -> str:
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def late_section(flow, stations: list[dict], lang: str) -> None:
    """A band and one line per station; nothing at all when every command was booked live."""
    if not stations:
        return
    words = WORDS.get(lang, WORDS["en"])
    total = sum(s["n"] for s in stations)
    lines = [words["total_1" if total == 1 else "total"].format(n=total)]
    lines += [words["line_1" if s["n"] == 1 else "line"].format(actor=s["actor"], device=s["device"], n=s["n"],
                                                                  wait=_wait(s["longest"])) for s in stations]
    top = flow.need(18 + 4.5 * len(lines))
    header(flow.c, Box(AREA.x, top - 14, AREA.w, 11), BANK_COLOUR, words["title"], "")
    for i, line in enumerate(lines):
        text(flow.c, typo(lang, line), AREA.x + 3, top - 19 - 4.5 * i, 9 * PT, FONT, INK, width=AREA.w - 3)
