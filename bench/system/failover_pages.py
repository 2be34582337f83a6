"""Failover of the pages: kill -9 one of two `serve` processes under a crowd of pages during a
burst of commands; every page of the dead process moves to the survivor and must end with the database's
picture and (a console) its journal: no row lost, none doubled, all in order.

Each page is a tests/sio_kit.Phone (one WebSocket, events in arrival order) driven by a Python twin
of its page's script: the pictures as static/js/live.js keeps them (tests/delta_page.Page: a patch
of a version not held asks for the whole pictures with `sync`), a console's journal as
static/js/console_journal.js merges it (JournalTwin: by seq, a gap asks for the rows after the last
one held in order). A page whose connection dies connects to the survivor, as nginx sends it
(`proxy_next_upstream`), naming in its connect the last journal row it holds (live.js).

    .venv/bin/python bench/system/failover_pages.py               # 100 pages of each kind, 2 processes
    .venv/bin/python bench/system/failover_pages.py --pages 30    # a quicker look

Prints a Markdown table (pages moved, time to catch up, rows lost, out of order, doubled, whole
pictures asked), the command that reproduces it and the machine. tests/system/test_failover_pages.py runs
the same crowd and asserts the counts.
"""

from __future__ import annotations

import argparse
import http.client
import os
import queue
import selectors
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the shared modules
from harness import Api, machine
from processes_cluster import Cluster, queue_servers

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from delta_page import Page  # noqa: E402  (tests/: the Python twin of live.js's pictures)
from sio_kit import Phone  # noqa: E402

KINDS = ("console", "phone", "display")
DUE = {"console": ("public",), "phone": ("public", "team"), "display": ("public",)}
SESSION_PAGES = 40  # consoles per log-in session
PER_ADDRESS = 100  # pages behind one access point (the bank caps connections per address)
NO_REPLY = (OSError, http.client.HTTPException)
TEAM_KEYS = ("team", "reputation", "stock", "buildings", "animals", "cards")


class JournalTwin:
    """A console's journal, step for step as static/js/console_journal.js keeps it.

    Rows are merged by seq: one already held is skipped, an older one arriving late takes its
    place; `seq` is the last row held with every row before it; a held row beyond it is a gap,
    for which the page asks the rows after `seq` (at most every ASK_AGAIN seconds).
    `late` counts rows that arrived after a newer one: those today's page
    dropped for good, as "older than the newest shown"."""

    KEEP, ASK_AGAIN = 200, 3.0

    def __init__(self):
        self.rows: dict[int, dict] = {}
        self.seq, self.started, self.asked_at = 0, False, None
        self.asks = self.late = self.doubled = 0

    def load(self, after: int, rows: list) -> None:
        """/api/journal?after=... at the page's start."""
        if not self.started:
            self.seq, self.started = after, True
        self.add(rows)

    def add(self, rows: list) -> int | None:
        """Rows of a `journal` message; returns the seq to ask after when a gap shows, else None."""
        added = False
        for row in rows:
            seq = row["seq"]
            if seq in self.rows:
                self.doubled += 1  # a row sent twice: skipped, but counted
                continue
            if seq <= self.seq - self.KEEP:
                continue
            if self.rows and seq < max(self.rows):
                self.late += 1
            self.rows[seq] = row
            added = True
        if not added:
            return None
        if not self.started:
            self.seq, self.started = min(self.rows) - 1, True
        while self.seq + 1 in self.rows:
            self.seq += 1
        for old in sorted(self.rows)[:-self.KEEP]:
            del self.rows[old]
        if max(self.rows) > self.seq:
            now = time.monotonic()
            if self.asked_at is None or now - self.asked_at > self.ASK_AGAIN:
                self.asked_at = now
                self.asks += 1
                return self.seq
        else:
            self.asked_at = None
        return None

    def shown(self) -> list[int]:
        """The seqs the console shows, oldest first."""
        return sorted(self.rows)


class Pictures(Page):
    """live.js's pictures; `misfits` counts the patches it could not apply (another version than the one held)."""

    def __init__(self):
        super().__init__()
        self.misfits = 0

    def _resync(self):
        self.misfits += 1
        return super()._resync()


@dataclass
class PageTwin:
    kind: str
    auth: dict
    headers: dict
    source: str
    team: str | None = None
    pictures: Pictures = field(default_factory=Pictures)
    journal: JournalTwin = field(default_factory=JournalTwin)
    phone: Phone | None = None
    port: int = 0
    cursor: int = 0
    moved: bool = False
    back_at: float | None = None   # when a moved page held the target again (time.monotonic)
    backwards: int = 0            # pictures older than one already shown
    misfits: int = 0              # patches of a version this page never got
    connects: int = 0
    story: list = field(default_factory=list)  # its first 50 journal messages: (connect, row held, first, last)
    recent: list = field(default_factory=list)  # its last 10 journal messages, (connect, moved, held, first, last)
    around_late: list = field(default_factory=list)  # `recent` when a row first came after a newer one
    last_seq: dict = field(default_factory=dict)

    def query(self) -> str:
        """The secret live.js also puts in the socket's query: the server admits a page by it."""
        secret = self.auth.get("team") and f"&team={self.auth['team']}" or self.auth.get("key") and f"&key={self.auth['key']}"
        return secret or ""

    def connect_auth(self) -> dict:
        """What live.js sends on each (re)connect: its auth (one `round` message per round; a
        console shows the journal), and a console the last row it holds."""
        if self.kind == "console":
            return {**self.auth, "rounds": 1, "journal": True, "after": self.journal.seq}
        return {**self.auth, "rounds": 1}

    def handle(self, name: str, data) -> None:
        if name == "round" and isinstance(data, dict):  # its parts in order, as live.js reads them
            for part in ("public", "team", "journal"):
                if part in data:
                    self.handle(part, data[part])
        elif name in ("public", "team") and isinstance(data, dict):
            asks, misfits = self.pictures.asks, self.pictures.misfits
            self.pictures.clock = time.monotonic()
            picture = self.pictures.receive(name, data)
            self.misfits += self.pictures.misfits - misfits
            if self.pictures.asks > asks:
                self.emit("sync", {"after": self.journal.seq, **({"team": self.auth["team"]} if self.team else {})})
            if picture is not None:
                if picture["seq"] < self.last_seq.get(name, 0):
                    self.backwards += 1
                self.last_seq[name] = picture["seq"]
        elif name == "journal" and self.kind == "console" and isinstance(data, dict):
            rows = data.get("rows") or []
            if rows and len(self.story) < 50:
                self.story.append((self.connects, self.journal.seq, rows[0]["seq"], rows[-1]["seq"]))
            if rows:  # what a rare late row came after, wherever in the run (the story keeps the first 50)
                self.recent = [*self.recent[-9:], (self.connects, self.moved, self.journal.seq,
                                                    rows[0]["seq"], rows[-1]["seq"])]
            late = self.journal.late
            gap = self.journal.add(rows)
            if self.journal.late > late and not self.around_late:
                self.around_late = list(self.recent)
            if gap is not None:
                self.emit("sync", {"after": gap, "pictures": False})

    def emit(self, name: str, data) -> None:
        try:
            self.phone.emit(name, data)
        except OSError:
            pass  # the connection died meanwhile: the pump moves the page

    def holds(self, seq: int) -> bool:
        """Whether this page shows entry `seq` (or later) everywhere it is due, journal included."""
        ok = all((self.pictures.picture(e) or {}).get("seq", -1) >= seq for e in DUE[self.kind])
        return ok and (self.kind != "console" or self.journal.seq >= seq)


class Crowd:
    """Pages on processes' ports, read by one pump thread; a page whose process dies moves to `survivor`."""

    def __init__(self, pages: list[PageTwin]):
        self.pages = pages
        self.selector = selectors.DefaultSelector()
        self.arrived: queue.Queue = queue.Queue()
        self.survivor: int | None = None
        self.target, self.killed_at = None, None
        self.failed_moves: list[str] = []
        self.reconnected, self._count = 0, threading.Lock()
        self._stop = threading.Event()
        self._movers = ThreadPoolExecutor(8)
        self._pump = threading.Thread(target=self._run, name="crowd", daemon=True)

    def start(self, ports: list[int]) -> "Crowd":
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda ip: self._open(ip[1], ports[ip[0] % len(ports)]), enumerate(self.pages)))
        for page in self.pages:
            self._watch(page)
        self._pump.start()
        return self

    def _open(self, page: PageTwin, port: int) -> PageTwin:
        page.phone = Phone(port, page.connect_auth(), timeout=30, headers=page.headers, source=page.source,
                           query=page.query())
        page.port, page.cursor = port, 0
        page.connects += 1
        return page

    def _watch(self, page: PageTwin) -> None:
        self._drain(page)
        self.selector.register(page.phone.sock, selectors.EVENT_READ, page)

    def _drain(self, page: PageTwin) -> None:
        events = page.phone.events
        while page.cursor < len(events):
            name, data = events[page.cursor]
            page.cursor += 1
            page.handle(name, data)
        if page.moved and page.back_at is None and self.target is not None and page.holds(self.target):
            page.back_at = time.monotonic()

    def _run(self) -> None:
        while not self._stop.is_set():
            while not self.arrived.empty():
                self._watch(self.arrived.get())
            for key, _ in self.selector.select(0.05):
                page = key.data
                page.phone.read(5.0)
                self._drain(page)
                if page.phone.closed:
                    self.selector.unregister(page.phone.sock)
                    page.phone.close()
                    self._movers.submit(self._move, page)

    def _move(self, page: PageTwin) -> None:
        """The page's socket.io client reconnects; nginx now sends it to the survivor."""
        page.moved = True
        for _ in range(20):
            if self.survivor is not None:
                try:
                    self.arrived.put(self._open(page, self.survivor))
                    with self._count:
                        self.reconnected += 1
                    return
                except (OSError, TimeoutError) as exc:
                    why = str(exc)
            time.sleep(0.25)
        self.failed_moves.append(f"{page.kind}: {why if self.survivor else 'no survivor'}")

    def killed(self, survivor: int, target: int) -> None:
        """Pages from now on reconnect to `survivor`; a moved page is back once it holds `target`."""
        self.target, self.survivor, self.killed_at = target, survivor, time.monotonic()

    def wait_all_hold(self, seq: int, timeout: float) -> list[PageTwin]:
        """Wait until every page shows `seq` everywhere it is due; the pages that still do not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            behind = [p for p in self.pages if not p.holds(seq)]
            if not behind:
                return []
            time.sleep(0.1)
        return [p for p in self.pages if not p.holds(seq)]

    def stop(self) -> None:
        self._stop.set()
        self._pump.join(10)
        self._movers.shutdown(wait=True)
        for page in self.pages:
            if page.phone is not None:
                page.phone.close()


def make_pages(per_kind: int, links: dict, cookies: list, key: str, journal_after: int,
               journal_rows: list) -> list[PageTwin]:
    """`per_kind` consoles (spread over the sessions of `cookies`), team phones (over the teams) and big
    screens (the big-screen link's `key`), interleaved."""
    teams, pages = list(links), []
    for i in range(per_kind):
        for kind in KINDS:
            n = len(pages)
            source = f"127.0.{n // PER_ADDRESS // 250 + 1}.{n // PER_ADDRESS % 250 + 1}"
            if kind == "console":
                page = PageTwin(kind, {}, {"Cookie": cookies[i % len(cookies)]}, source)
                page.journal.load(journal_after, journal_rows)
            elif kind == "phone":
                team = teams[i % len(teams)]
                page = PageTwin(kind, {"team": links[team]}, {}, source, team)
            else:
                page = PageTwin(kind, {"display": True, "key": key}, {}, source)
            pages.append(page)
    return pages


class Commanders:
    """Facilitators booking flat out, half on each process, until `stop` is set; one whose process dies
    retries the same Idempotency-Key on the survivor until answered (static/js/commands.js)."""

    def __init__(self, apis: list[Api], teams: list[str], pause: float = 0.0):
        self.apis, self.teams, self.pause = apis, teams, pause  # pause: seconds between two commands of one counter
        self.stop = threading.Event()
        self.acked: dict[str, int] = {}
        self.lock = threading.Lock()
        self.survivor: int | None = None
        self.threads = [threading.Thread(target=self._book, args=(n,), daemon=True) for n in range(len(apis))]

    def start(self) -> "Commanders":
        for t in self.threads:
            t.start()
        return self

    def _book(self, n: int) -> None:
        api, i = self.apis[n], -1
        while not self.stop.is_set():
            i += 1
            team = self.teams[(n + i) % len(self.teams)]
            body = ({"type": "award", "team": team, "points": 1 + i % 3, "reason": "failover"} if i % 2 else
                    {"type": "harvest", "team": team, "card": f"harvester-{1 + i % 2}", "resource": "water"})
            key = f"c{n}-{i}"
            for _ in range(400):
                try:
                    status, reply = api.command(key, **body)
                except NO_REPLY:
                    status, reply = None, None
                if status is not None and status not in (502, 503, 504):
                    break
                api.close()
                if self.survivor is not None:
                    api.port = self.survivor  # the same session: PostgreSQL keeps it for every process
                time.sleep(0.05)
            if status == 200:
                with self.lock:
                    self.acked[key] = reply["seq"]
            time.sleep(self.pause)

    def max_seq(self) -> int:
        with self.lock:
            return max(self.acked.values(), default=0)

    def count(self) -> int:
        with self.lock:
            return len(self.acked)

    def join(self, timeout: float) -> None:
        for t in self.threads:
            t.join(timeout)


def all_rows(api: Api) -> list:
    rows, after = [], 0
    while True:
        status, body = api.request("GET", f"/api/journal?after={after}&limit=500")
        assert status == 200, body
        if not body["rows"]:
            return rows
        rows += body["rows"]
        after = rows[-1]["seq"]


@dataclass
class Outcome:
    pages: list
    rows: list          # the journal in the database, every row
    state: dict         # /api/state of the survivor at the end
    behind: list        # pages that never showed the last row
    failed_moves: list
    acked: dict
    kill_after: int     # commands acknowledged when the process was killed
    problems: list = field(default_factory=list)  # the servers' log lines reporting a failure (Cluster.problems)

    def moved(self) -> list:
        return [p for p in self.pages if p.moved]

    def catch_up_seconds(self, killed_at: float) -> list[float]:
        return sorted(p.back_at - killed_at for p in self.moved() if p.back_at is not None)

    def journal_faults(self) -> dict:
        """Per console: rows missing from its window, rows shown that the database does not have, order."""
        truth = {r["seq"]: r for r in self.rows}
        lost = extra = 0
        for page in self.pages:
            if page.kind != "console":
                continue
            shown = page.journal.shown()
            window = [s for s in truth if shown and s >= shown[0]]
            lost += len(set(window) - set(shown))
            extra += sum(1 for s in shown if s not in truth or page.journal.rows[s]["command_id"] !=
                         truth[s]["command_id"])
        return {"lost": lost, "extra": extra}

    def picture_faults(self) -> list[str]:
        """Pages whose final picture differs from the database's (time-free parts), with why."""
        last, wrong = self.rows[-1]["seq"], []
        board = {k: v for k, v in self.state["board"].items() if k != "clock"}
        for n, page in enumerate(self.pages):
            public = page.pictures.picture("public") or {}
            if public.get("seq") != last:
                wrong.append(f"{page.kind} {n}: public picture at {public.get('seq')}, database at {last}")
            elif {k: v for k, v in public["board"].items() if k != "clock"} != board or \
                    public["standings"] != self.state["standings"]:
                wrong.append(f"{page.kind} {n}: public picture differs from the database's")
            if page.kind == "phone":
                view = (page.pictures.picture("team") or {}).get("view") or {}
                mine = self.state["teams"][page.team]
                if any(view.get(k) != mine[k] for k in TEAM_KEYS):
                    wrong.append(f"phone {n} ({page.team}): team picture differs from the database's")
        return wrong

    def figures(self, killed_at: float) -> dict:
        times = self.catch_up_seconds(killed_at)
        consoles = [p for p in self.pages if p.kind == "console"]
        faults = self.journal_faults()
        return {
            "pages": len(self.pages), "moved": len(self.moved()), "rows": len(self.rows),
            "acked": len(self.acked), "kill_after": self.kill_after,
            "catch_up_median": statistics.median(times) if times else None,
            "catch_up_p99": times[min(len(times) - 1, int(len(times) * 0.99))] if times else None,
            "not_back": len(self.moved()) - len(times),
            "rows_lost": faults["lost"], "rows_wrong": faults["extra"],
            "rows_late": sum(p.journal.late for p in consoles),
            "rows_doubled": sum(p.journal.doubled for p in consoles),
            "gap_asks": sum(p.journal.asks for p in consoles),
            "whole_asked": sum(p.pictures.asks for p in self.pages),
            "misfits": sum(p.misfits for p in self.pages),
            "backwards": sum(p.backwards for p in self.pages),
            "behind": len(self.behind), "failed_moves": len(self.failed_moves),
        }


def run(cluster: Cluster, per_kind: int, commanders: int = 4, before: int = 80,
        after: int = 80) -> tuple[Outcome, float]:
    """The crowd on `cluster` (2 processes), a burst of commands, kill -9 of the first process once
    `before` are booked; the burst goes on while the pages move and for `after` more once all are back."""
    port_a, port_b = cluster.ports[:2]
    lead_url = f"http://127.0.0.1:{port_b}"
    lead = Api(lead_url).login()
    status, links = lead.request("GET", "/api/teams/links")
    assert status == 200, links
    assert lead.command("start", type="start_clock")[0] == 200
    seq = lead.request("GET", "/api/state")[1]["seq"]
    first = max(0, seq - 40)  # what console.js loads before it connects
    rows = lead.request("GET", f"/api/journal?after={first}&limit=60")[1]["rows"]
    status, screen = lead.request("GET", "/api/display/link")
    assert status == 200, screen
    # A session holds up to [server] phones_per_team + spare_pages_per_link live pages: a lead at several tablets.
    cookies = [lead.cookie] + [Api(lead_url).login().cookie for _ in range(per_kind // SESSION_PAGES)]
    pages = make_pages(per_kind, links, cookies, screen["key"], first, rows)
    apis = []
    for n in range(commanders):
        api = Api(f"http://127.0.0.1:{(port_a, port_b)[n % 2]}")
        api.cookie, api.csrf = lead.cookie, lead.csrf  # one lead at several counters: one session
        apis.append(api)
    crowd = Crowd(pages).start([port_a, port_b])
    on_a = sum(1 for p in pages if p.port == port_a)
    burst = Commanders(apis, list(links)).start()
    try:
        _wait(lambda: burst.count() >= before, 120)  # in the middle of the burst, whatever the machine's speed
        kill_after = burst.count()
        cluster.procs[0].kill()  # SIGKILL: a power cut on one host
        burst.survivor = port_b
        crowd.killed(port_b, burst.max_seq())
        cluster.procs[0].wait(10)
        _wait(lambda: crowd.reconnected + len(crowd.failed_moves) >= on_a, 180)
        mark = burst.count()
        _wait(lambda: burst.count() >= mark + after, 120)
        burst.stop.set()
        burst.join(60)
        truth = all_rows(lead)
        behind = crowd.wait_all_hold(truth[-1]["seq"], timeout=90)
        state = lead.request("GET", "/api/state")[1]
    finally:
        burst.stop.set()
        crowd.stop()
        for api in apis:
            api.close()
    outcome = Outcome(pages, truth, state, behind, crowd.failed_moves, dict(burst.acked), kill_after)
    lead.close()
    return outcome, crowd.killed_at


def _wait(done, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.005)
    return done()


def table(figures: dict) -> str:
    def s(value):
        return "-" if value is None else f"{value:.2f} s"
    return "\n".join([
        "| pages | moved | rows booked | catch-up median | catch-up p99 | rows lost | late rows | doubled "
        "| whole pictures asked | patches of a picture not held |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {figures['pages']} | {figures['moved']} | {figures['rows']} | {s(figures['catch_up_median'])} "
        f"| {s(figures['catch_up_p99'])} | {figures['rows_lost']} | {figures['rows_late']} "
        f"| {figures['rows_doubled']} | {figures['whole_asked']} | {figures['misfits']} |",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100, help="pages of each kind (console, phone, big screen)")
    parser.add_argument("--commanders", type=int, default=4)
    parser.add_argument("--before", type=int, default=80, help="commands booked before the kill")
    parser.add_argument("--after", type=int, default=80, help="commands booked once every page moved")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    postgres, redis = queue_servers()
    try:
        with tempfile.TemporaryDirectory(prefix="terrabank-failover-") as folder:
            cluster = Cluster(Path(folder), "failover", postgres.url, redis.url, processes=2)
            try:
                outcome, killed_at = run(cluster, args.pages, args.commanders, args.before, args.after)
            finally:
                cluster.stop()
            figures = outcome.figures(killed_at)
    finally:
        redis.stop()
        postgres.stop()
    print(table(figures))
    print()
    print({k: v for k, v in figures.items()})
    print(f"\n`.venv/bin/python bench/system/failover_pages.py --pages {args.pages} --commanders {args.commanders} "
          f"--before {args.before} --after {args.after}` on {machine()}; load average {load_before:.1f} "
          f"before, {os.getloadavg()[0]:.1f} after (catch-up times follow the machine's load)")


if __name__ == "__main__":
    main()
