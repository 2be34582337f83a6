"""A page's side of the live pictures in Python, step for step as static/js/live.js `Pictures`.

The tests feed it what a Socket.IO test client received and read the picture the page
would show. Patches are applied with bank/delta.apply, the same as static/js/delta.js
(tests/web/push/test_browser_delta.py checks the two agree).
"""

from __future__ import annotations

from bank.web.push.delta import PatchError, apply


def _before(a: str, b: str, or_same: bool) -> bool:
    """Versions "<boot>.<n>": is a older than b (or the same, when or_same) within one server start?"""
    (boot_a, n_a), (boot_b, n_b) = a.split("."), b.split(".")
    return boot_a == boot_b and (int(n_a) < int(n_b) or (or_same and n_a == n_b))


class Page:
    """The pictures one page holds; `asks` counts the whole-picture requests (`sync`) it sent."""

    WAIT = 5.0  # seconds before asking again for whole pictures that did not come (live.js: 5000 ms)

    def __init__(self):
        self.held: dict[str, tuple[str, dict]] = {}  # event -> (version, picture)
        self.asks = 0
        self.asked_at: float | None = None  # None: not waiting for whole pictures
        self.clock = 0.0  # the test moves the page's time on

    def receive(self, event: str, msg: dict) -> dict | None:
        mine = self.held.get(event)
        if "patch" not in msg:
            if mine and (msg["seq"] < mine[1]["seq"] or _before(msg["v"], mine[0], False)):
                return None
            picture = {k: v for k, v in msg.items() if k != "v"}
            self.asked_at = None
        elif mine and mine[0] == msg["base"]:
            try:
                picture = {**apply(mine[1], msg["patch"]), "seq": msg["seq"]}
            except PatchError:
                return self._resync()
        elif mine and (msg["seq"] < mine[1]["seq"] or _before(msg["v"], mine[0], True)):
            return None
        else:
            return self._resync()
        self.held[event] = (msg["v"], picture)
        return picture

    def _resync(self) -> None:
        if self.asked_at is None or self.clock - self.asked_at > self.WAIT:
            self.asked_at = self.clock
            self.asks += 1
        return None

    def feed(self, messages: list) -> "Page":
        """Every picture message of a Socket.IO test client's get_received(), in order."""
        for m in messages:
            if m["name"] in ("public", "team"):
                self.receive(m["name"], m["args"][0])
        return self

    def picture(self, event: str) -> dict | None:
        return self.held[event][1] if event in self.held else None

    def version(self, event: str) -> str | None:
        return self.held[event][0] if event in self.held else None
