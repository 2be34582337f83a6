"""The witnesses' reports this process heard (bank/web/field/chain_routes.py), for the admin page.

One entry per thing seen (entry, head, and the game when the page saw another one behind its link), with
every reporter that reported it: a team link, the big screen's key, a facilitator's account. Each reporter
keeps its newest PER_REPORTER reports; a newer one withdraws its own oldest, never another reporter's, so a
stolen link flooding false reports cannot push out a phone's real one. An entry is confirmed once two
reporters agree: one link alone may lie, and the admin page says so.
"""

from __future__ import annotations

import threading

PER_REPORTER = 5  # a real page reports once per head it holds; more from one link is a flood


class Reports:
    """Safe between threads; bounded by PER_REPORTER times the reporters (teams, screen, facilitators)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: dict[tuple, dict] = {}  # what was seen -> its entry, oldest first
        self._by: dict[str, list[tuple]] = {}  # reporter -> what it reported, oldest first

    def add(self, report: dict, reporter: str) -> bool:
        """Count `reporter` (its link's team, "screen", "facilitator:<name>") among the pages that saw
        `report["saw"]`; False when it had already said so (nothing new to tell)."""
        saw = report["saw"]
        key = (saw["seq"], saw["hash"], saw.get("game"))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and reporter in entry["ids"]:
                return False
            mine = self._by.setdefault(reporter, [])
            if len(mine) >= PER_REPORTER:
                self._withdraw(reporter, mine.pop(0))
            mine.append(key)
            if entry is None:
                entry = self._entries[key] = {**report, "ids": [], "reporters": []}
            entry["ids"].append(reporter)
            entry["reporters"].append(report["by"])
            return True

    def _withdraw(self, reporter: str, key: tuple) -> None:
        entry = self._entries.get(key)
        if entry is None or reporter not in entry["ids"]:
            return
        at = entry["ids"].index(reporter)
        del entry["ids"][at], entry["reporters"][at]
        if not entry["ids"]:
            del self._entries[key]

    def all(self) -> list[dict]:
        """The entries, oldest first: who saw it ("by": the first, "reporters": all), and whether two agree."""
        with self._lock:
            return [{**{k: v for k, v in entry.items() if k != "ids"}, "by": entry["reporters"][0],
                     "reporters": list(entry["reporters"]), "confirmed": len(entry["ids"]) >= 2}
                    for entry in self._entries.values()]
