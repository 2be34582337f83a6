"""Sessions that end, measured on a real `terrabank serve` (bench/harness.py) with Chromium pages:

- logout: a copied cookie is replayed after its owner logged out;
- cli: `terrabank user NAME --role referee` run while the server runs: the HTTP status of the old
  cookie right after the command returns, and the time until the banker's open console page
  leaves for the log-in form (its socket is cut by the ticker's sweep, every second);
- everywhere: the lead's "log out everywhere": time until the banker's page leaves for the log-in form;
- rotate: a team link replaced while its phone page is open: time until the page says so;
- origin: the Socket.IO handshake with another site's Origin, then with the page's own;
- lang: another site's form posted to /api/lang/en (no cookie, no token): status and Set-Cookie.

    .venv/bin/python bench/web/access/bench_sessions.py            # 5 rounds of each timed case
    .venv/bin/python bench/web/access/bench_sessions.py --rounds 2
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from browserkit import ARGS, CHROMIUM  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the shared modules
from harness import CONFIG, TERRABANK, Api, Server, machine  # noqa: E402


def raw(server: Server, method: str, path: str, headers: dict, body: str | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request(method, path, body=body, headers=headers)
    reply = conn.getresponse()
    reply.read()
    conn.close()
    return reply.status, reply.getheader("Set-Cookie")


def open_console(browser, server: Server, user: str, password: str):
    page = browser.new_context().new_page()
    page.goto(server.url + "/login")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_url("**/console")
    page.wait_for_selector("#conn-badge.badge-live")
    return page


def timed_until_login(page, action) -> float:
    """Milliseconds from the end of `action()` to the page leaving for the log-in form."""
    action()
    start = time.monotonic()
    page.wait_for_url("**/login?ended=1", timeout=30000, wait_until="commit")  # the page leaves, not the next one loaded
    took = (time.monotonic() - start) * 1000
    page.wait_for_load_state()  # closing a context in the middle of a navigation can hang Playwright
    return took


def cli_user(server: Server, role: str, password: str) -> None:
    subprocess.run([TERRABANK, "--config", CONFIG, "--db", str(server.db), "user", "ben", "--role", role,
                    "--password-stdin"], input=password + "\n", text=True, check=True, capture_output=True)


def logout_case(server: Server) -> None:
    ben = Api(server.url).login("ben", "banker-pass-0")
    copied = ben.cookie
    ben.request("POST", "/api/logout", {})
    replay = Api(server.url)
    replay.cookie = copied
    print(f"logout: old cookie replayed -> GET /api/state {replay.request('GET', '/api/state')[0]}")


def cli_case(server: Server, browser, rounds: int) -> None:
    waits, http_after = [], []
    for _ in range(rounds):
        cli_user(server, "banker", "banker-pass-0")  # a banker again, before the change under test
        page = open_console(browser, server, "ben", "banker-pass-0")
        old = Api(server.url).login("ben", "banker-pass-0")

        def change(old=old):
            cli_user(server, "referee", "banker-pass-0")
            http_after.append(old.request("GET", "/api/state")[0])
        waits.append(timed_until_login(page, change))
        page.context.close()
    print(f"cli role change: HTTP right after the command {sorted(set(http_after))}; page leaves for the log-in form after "
          f"{statistics.median(waits):.0f} ms median, {max(waits):.0f} ms max ({rounds} rounds)")


def everywhere_case(server: Server, browser, lead: Api, rounds: int) -> None:
    cli_user(server, "banker", "banker-pass-0")
    waits = []
    for _ in range(rounds):
        page = open_console(browser, server, "ben", "banker-pass-0")
        waits.append(timed_until_login(page, lambda: lead.request("POST", "/api/sessions/end-all", {})))
        page.context.close()
    print(f"log out everywhere: page leaves for the log-in form after {statistics.median(waits):.0f} ms median, "
          f"{max(waits):.0f} ms max ({rounds} rounds)")


def rotate_case(server: Server, browser, lead: Api, rounds: int) -> None:
    waits = []
    for _ in range(rounds):
        phone = browser.new_context().new_page()
        phone.goto(f"{server.url}/t/{lead.request('GET', '/api/teams/links')[1]['blue']}")
        phone.wait_for_selector("#conn-badge.badge-live")
        lead.request("POST", "/api/teams/blue/rotate", {})
        start = time.monotonic()
        phone.wait_for_selector("#unknown:not(.hidden)", timeout=30000)
        waits.append((time.monotonic() - start) * 1000)
        phone.context.close()
    print(f"rotated link: open phone page says so after {statistics.median(waits):.0f} ms median, "
          f"{max(waits):.0f} ms max ({rounds} rounds)")


def origin_cases(server: Server) -> None:
    host = f"127.0.0.1:{server.port}"
    handshake = "/socket.io/?EIO=4&transport=polling"
    evil = raw(server, "GET", handshake, {"Origin": "http://evil.example", "Host": host})[0]
    same = raw(server, "GET", handshake, {"Origin": f"http://{host}", "Host": host})[0]
    print(f"origin: Socket.IO handshake from http://evil.example -> {evil}; from the page's own origin -> {same}")
    status, cookie = raw(server, "POST", "/api/lang/en", {"Content-Type": "application/x-www-form-urlencoded",
                                                         "Origin": "http://evil.example"}, "x=1")
    print(f"lang: cross-site form POST /api/lang/en -> {status}, Set-Cookie {'sent' if cookie else 'none'}")


def run(rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, Server(Path(folder)).prepare() as server, sync_playwright() as p:
        cli_user(server, "banker", "banker-pass-0")
        server.start()
        lead = Api(server.url).login()
        logout_case(server)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            cli_case(server, browser, rounds)
            everywhere_case(server, browser, lead, rounds)
            rotate_case(server, browser, lead, rounds)
        finally:
            browser.close()
        origin_cases(server)
        print(machine())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    run(parser.parse_args().rounds)
