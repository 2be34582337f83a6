"""What the browser tests share: the app served on 127.0.0.1 in a thread, and Debian's
Chromium driven by Playwright (the tests using it skip without them)."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from needs import CHROMIUM  # noqa: E402,F401 (Debian's; tests/needs.py says when it is missing)
# Playwright's own --disable-features list (playwright 1.65's chromiumSwitches), read again from its driver below
# when it can be: Chromium keeps only the last --disable-features of its command line, so ours repeats it.
PLAYWRIGHT_DISABLED = ("AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
                       "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
                       "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
                       "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
                       "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion")
# Each window (a browser context's page) of Chromium 156 draws its address bar's drop-down as two WebUI
# pages (chrome://omnibox-popup.top-chrome/) in a renderer of their own, busy for as long as the window is
# open: 6 pages opened and kept open as a test does took 15.0-19.3 CPU-seconds with them, 8.7 without (load
# 29-35). No test has an address bar to type in.
NO_ADDRESS_BAR_POPUP = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")


def _playwright_disabled() -> list[str]:
    """The features the installed Playwright disables when it launches Chromium (its driver's
    chromiumSwitches), or PLAYWRIGHT_DISABLED where its driver cannot be read."""
    try:
        import playwright

        bundle = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "coreBundle.js"
        text = bundle.read_text(encoding="utf-8")
        block = re.search(r"\bdisabledFeatures = (?:\([^)]*\) => )?\[(.*?)\]", text, re.S).group(1)
        found = re.findall(r'"(\w+)"', block)
    except Exception:  # another layout of the driver, or no Playwright (the browser tests skip)
        found = []
    return list(dict.fromkeys(found or PLAYWRIGHT_DISABLED))


# Without the background-networking flags Chromium keeps calling Google, which this closed network refuses.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-features=" + ",".join(_playwright_disabled() + list(NO_ADDRESS_BAR_POPUP))]

SERVERS: list = []  # the production servers started by this process, newest last (stop_servers ends them)


def serve_in_thread(app, dev: bool = False, limits=None) -> tuple[str, int]:
    """Serve `app` with Socket.IO on a free port in a daemon thread; (base url, port) once it listens.

    The production server: `terrabank serve`'s Gunicorn worker with its caps,
    deadlines, gzip and versioned static URLs (bank/web/serving_thread.serve_in_thread), in this
    process so a test can read the app's bank; `limits` (serving.Limits) to test a cap.
    `dev=True` is Werkzeug, as `serve --dev`; no test needs it today: keep it for a test of
    the development server itself.
    """
    if dev:
        return _serve_werkzeug(app)
    from bank.web.serving import thread as serving_thread

    server = serving_thread.serve_in_thread(app, limits=limits)
    SERVERS.append(server)
    return server.url, server.port


def stop_servers() -> None:
    """End every production server this process started (a fixture's teardown may call it)."""
    while SERVERS:
        SERVERS.pop().stop()


def _serve_werkzeug(app) -> tuple[str, int]:
    from werkzeug.serving import make_server

    # The server socketio.run(app, allow_unsafe_werkzeug=True) runs in threading mode (Werkzeug's,
    # threaded), made here: bound to a free port the system chooses, and listening, on return.
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.port}", server.port


def started_bank(folder: Path) -> tuple:
    """A fresh game in `folder` with a lead facilitator (lea / password1), its clock started, served
    with Socket.IO on 127.0.0.1: (app, base url). The game-day browser tests start from here."""
    from bank.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app({"DB": str(folder / "game.db"), "CONFIG": str(Path(__file__).resolve().parents[1] / "config.toml"),
                      "PASSWORD_HASH": "pbkdf2:sha256:1000"})
    app.extensions["terrabank"].access.add_user("lea", "password1", "lead")
    app.extensions["terrabank"].bank.execute({"id": "started-bank", "type": "start_clock"})
    url, _ = serve_in_thread(app)
    return app, url


def log_in_through_the_form(page, url: str, username: str = "lea", password: str = "password1") -> None:
    """Log in through the log-in page's form, as a facilitator does: it lands on the console."""
    page.goto(url + "/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_url("**/console")


def log_in_to(page, url: str, page_path: str, username: str = "lea", password: str = "password1") -> None:
    """Log in as the log-in page does, then open `page_path` in `page`.

    The page's own context sends what login.js sends (POST /api/login with the CSRF token of GET /login),
    so the page holds the same session cookie, without drawing the log-in page and the console on the way
    (1.2-1.7 CPU-seconds of Chromium a log-in, measured at load 14-22, for tests that only need a logged-in
    page). The log-in page itself is tested through its form (tests/web/access/,
    tests/system/test_browser_gameday.py's English refusal); a test that needs it on the way (the page's
    history) uses log_in_through_the_form."""
    request = page.context.request
    login = request.get(url + "/login")
    assert login.ok, f"GET /login: {login.status}"
    token = re.search(r'<meta name="csrf-token" content="([^"]*)"', login.text()).group(1)
    answer = request.post(url + "/api/login", data={"username": username, "password": password},
                          headers={"Accept": "application/json", "X-CSRF-Token": token})
    assert answer.ok, f"POST /api/login as {username}: {answer.status} {answer.text()}"
    page.goto(url + page_path)


def choose_language(context, url: str, lang: str) -> None:
    """The session's language chosen as the header's switch chooses it (POST /api/lang/<lang> with the CSRF token),
    through `context`'s own requests: its pages then open in `lang` at once. The switch itself reloads the page,
    a second load of it (0.3-0.5 CPU-second of Chromium) for a test that does not test the switch."""
    request = context.request
    token = request.get(url + "/api/csrf").json()["csrf"]
    answer = request.post(f"{url}/api/lang/{lang}", headers={"X-CSRF-Token": token})
    assert answer.ok, f"POST /api/lang/{lang}: {answer.status} {answer.text()}"


@contextlib.contextmanager
def page_opener(chromium):
    """`open(**context_options)`: a page in a browser context of its own (its own cookies). When the block
    ends every context closes, and a script error on any page opened fails the test."""
    contexts, errors = [], []

    def open_page(**options):
        context = chromium.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, errors
