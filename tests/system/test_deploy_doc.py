"""docs/DEPLOY.md's "Step by step on a clean Debian machine", followed literally.

The operator's doc was wrong in ways only following it shows: the nginx file in conf.d lost to
Debian's default site (every request got the welcome page, `nginx -t` only warned), and the
systemd unit assumed a folder, a venv, a user and a settings file the text never made. So this
test takes the fenced block under that heading and runs every command of it, in order, in one
shell, as an operator types them, on a sandboxed "clean machine":

- a folder R stands for `/`: every /srv/... and /etc/... of the steps (and of the unit file
  they copy) is R/srv/..., R/etc/...; R starts as a clean Debian with nginx installed has it
  (R/etc/nginx/sites-enabled/default, the welcome site, enabled);
- the ports the steps name stand for free ports of the test (tests/deploy_shims/sandbox.py):
  5432 is the throwaway PostgreSQL (tests/postgres_kit.py), 6379 the throwaway Redis, 80 the
  sandbox's nginx, 5001... the processes;
- what a container cannot do for real is done by shims first on PATH (tests/deploy_shims/shim.py):
  sudo, apt (checks, never installs), useradd and chown (recorded), systemctl (runs the unit file
  the steps copied, as systemd would), nginx -t (real, on Debian's layout), git clone (this
  checkout's committed HEAD). Everything else is real: python3 -m venv, pip install -e from the
  package index, psql and createdb, the `terrabank` commands, the processes, nginx, curl.

Then the bank deployed that way must answer as the doc promises. A step that fails fails the
test naming the step and the command, with the end of its output.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from needs import needs

ROOT = Path(__file__).resolve().parents[2]
SHIMS = Path(__file__).resolve().parents[1] / "deploy_shims"
sys.path.insert(0, str(SHIMS))
from sandbox import SYSTEM_PATH, Sandbox  # noqa: E402
from sio_kit import Phone  # noqa: E402

pytestmark = needs("nginx", "initdb", "redis-server", "psycopg")

DOC = ROOT / "docs" / "DEPLOY.md"
HEADING = "Step by step on a clean Debian machine"
SHIMMED = ("sudo", "apt", "apt-get", "useradd", "chown", "systemctl", "nginx", "git", "adduser", "addgroup",
           "groupadd", "usermod", "userdel")
# What a clean Debian machine with nginx installed has: its welcome site, enabled.
DEBIAN_DEFAULT_SITE = """server {
	listen 80 default_server;
	listen [::]:80 default_server;
	root /var/www/html;
	index index.html index.htm index.nginx-debian.html;
	server_name _;
	location / {
		try_files $uri $uri/ =404;
	}
}
"""


@dataclass
class Command:
    step: str   # "3. The code in /srv/terrabank ..."
    text: str   # as written in the doc (with its here-document, if any)


def steps_block(doc: str) -> str:
    """The first fenced block after the heading (before the next heading), or a failure saying what is missing."""
    match = re.search(rf"^#+ {re.escape(HEADING)}\s*$", doc, flags=re.M)
    assert match, f"docs/DEPLOY.md has no heading {HEADING!r}: an operator has no steps to follow"
    # The prose up to the first fence, then the fence (its `# 1. ...` lines are comments, not headings).
    fence = re.compile(r"(?:(?!#+ |```)[^\n]*\n)*```[^\n]*\n(.*?)^```", flags=re.M | re.S).match(doc, match.end() + 1)
    assert fence, f"docs/DEPLOY.md's {HEADING!r} has no fenced block of commands before its next heading"
    return fence.group(1)


def commands(block: str) -> list[Command]:
    """The block's commands in order: `# N. Title` lines name the step of the commands after them; other
    comment lines are comments; a line ending in a backslash goes on; a here-document comes with its command."""
    found, step = [], "(before any step)"
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        title = re.match(r"^#\s*(\d+\..*)$", line.strip())
        if title:
            step = title.group(1).strip()
            continue
        if not line.strip() or line.strip().startswith("#"):
            continue
        text = line
        while text.endswith("\\") and i < len(lines):
            text += "\n" + lines[i]
            i += 1
        heredoc = re.search(r"<<(-?)\s*['\"]?(\w+)['\"]?", text)
        if heredoc:
            while i < len(lines):
                text += "\n" + lines[i]
                i += 1
                if (lines[i - 1].lstrip("\t") if heredoc.group(1) else lines[i - 1]) == heredoc.group(2):
                    break
        found.append(Command(step, text))
    return found


class Machine:
    """The sandboxed clean machine the steps run on, and what they left running."""

    def __init__(self, folder: Path, postgres, redis):
        self.box = Sandbox(folder / "R")
        self.box.make()
        self.home = folder / "home"  # the operator's shell starts in a folder of its own
        self.home.mkdir()
        for path in ("srv", "etc/systemd/system", "etc/nginx/conf.d", "etc/nginx/sites-available",
                     "etc/nginx/sites-enabled"):
            (self.box.root / path).mkdir(parents=True, exist_ok=True)
        (self.box.root / "etc/nginx/sites-available/default").write_text(DEBIAN_DEFAULT_SITE)
        (self.box.root / "etc/nginx/sites-enabled/default").symlink_to(self.box.root / "etc/nginx/sites-available/default")
        self.box.preset(**{"_5432": postgres.port, "_6379": redis.port})
        bin_dir = self.box.state / "bin"
        bin_dir.mkdir()
        for name in SHIMMED:
            (bin_dir / name).write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} "
                                        f"{shlex.quote(str(SHIMS / 'shim.py'))} {name} \"$@\"\n")
            (bin_dir / name).chmod(0o755)
        from postgres_kit import ADMIN

        # The operator's environment: this machine's pip settings (its index, certificates) and the
        # sandbox's, nothing of the test's own (no TERRABANK_*, no venv on PATH).
        kept = {k: v for k, v in os.environ.items()
                if re.match(r"^(HOME|LANG|PIP_\w+|\w*_CA_\w+|SSL_CERT_\w+|(?i:\w*_proxy))$", k)}
        self.env = {**kept, "PATH": f"{bin_dir}:{SYSTEM_PATH}", "TERM": "dumb", "DEPLOY_SANDBOX": str(self.box.root),
                    "DEPLOY_SHIMS": str(bin_dir), "DEPLOY_REPO": str(ROOT), "DEPLOY_PG_PORT": str(postgres.port),
                    "DEPLOY_PG_ADMIN": ADMIN}
        self.log = self.box.state / "steps.log"

    def follow(self, steps: list[Command]) -> None:
        """Run the steps in one shell, in order; fail naming the first step whose command fails."""
        script = ["exec 2>&1"]
        for n, command in enumerate(steps):
            script += [f"printf '\\n[%ss] $ %s\\n' \"$SECONDS\" {shlex.quote(command.text)}",
                       self.box.addresses(self.box.rooted(command.text)),
                       f'__rc=$?; if [ "$__rc" -ne 0 ]; then echo "{n} $__rc" > {self.box.state}/failed; exit 1; fi']
        # What the operator writes down at the end: the lead's password (step 6 shows it).
        script.append(f'printf %s "${{LEAD_PASSWORD:-}}" > {self.box.state}/lead-password')
        (self.box.state / "steps.sh").write_text("\n".join(script) + "\n")
        with open(self.log, "wb") as log:
            subprocess.run(["bash", str(self.box.state / "steps.sh")], cwd=self.home, env=self.env, stdout=log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=600)
        failed = self.box.state / "failed"
        if failed.exists():
            n, code = failed.read_text().split()
            command = steps[int(n)]
            number, _, title = command.step.partition(". ")
            pytest.fail(f"docs/DEPLOY.md, {HEADING!r}, step {number} ({title.rstrip('.')}): `{command.text}` "
                        f"failed (exit {code}).\n"
                        f"The steps' output ends with:\n{self.tail(self.log)}{self.process_logs()}", pytrace=False)

    def tail(self, path: Path, lines: int = 25) -> str:
        text = path.read_text(errors="replace") if path.exists() else ""
        return self.box.unrooted("\n".join(text.splitlines()[-lines:])) + "\n"

    def process_logs(self) -> str:
        return "".join(f"\n--- {log.name} ---\n{self.tail(log, 12)}" for log in sorted(self.box.logs.glob("*.log")))

    def run(self, command: str) -> subprocess.CompletedProcess:
        """One more command typed in the operator's shell (paths and ports as the steps' are)."""
        return subprocess.run(["bash", "-c", self.box.addresses(self.box.rooted(command))], cwd=self.home,
                              env=self.env, capture_output=True, text=True, timeout=60)

    def process_ports(self) -> dict[str, int]:
        """unit -> the sandbox's port of each process the steps started (terrabank@5001 -> ...)."""
        return {unit: self.box.port(unit.partition("@")[2]) for unit in self.box.started() if "@" in unit}

    def lead_password(self) -> str:
        return (self.box.state / "lead-password").read_text()

    def stop(self) -> None:
        """Everything the steps left running: the processes (their whole groups), then nginx."""
        for pgid in self.box.started().values():
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        pid_file = self.box.nginx_folder() / "nginx.pid"
        if pid_file.exists() and pid_file.read_text().strip():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 10
            while pid_file.exists() and time.monotonic() < deadline:
                time.sleep(0.05)


def _skip_without_what_the_steps_need(steps: list[Command]) -> None:
    """The machine, not the doc: Debian packages the steps install (a package apt does not know is the
    doc's mistake and fails at step 1) and the package index their pip reaches."""
    wanted = []
    for command in steps:
        match = re.match(r"^sudo apt(?:-get)? install (.*)$", command.text.strip())
        if match:
            wanted += [w for w in match.group(1).split() if not w.startswith("-")]
    missing = [p for p in wanted if "install ok installed" not in subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout
        and subprocess.run(["apt-cache", "show", p], capture_output=True).returncode == 0]
    if missing:
        pytest.skip(f"the deploy steps use Debian packages not installed here: {' '.join(missing)} "
                    f"(sudo apt-get install {' '.join(missing)})")
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=10).close()
    except OSError as exc:
        pytest.skip(f"the deploy steps' pip install needs the package index, and https://pypi.org cannot be "
                    f"reached from here ({exc})")


@pytest.fixture(scope="module")
def deployed(tmp_path_factory, postgres_server, redis_server):
    """A machine on which the doc's steps were followed, all of them."""
    steps = commands(steps_block(DOC.read_text()))
    _skip_without_what_the_steps_need(steps)
    machine = Machine(tmp_path_factory.mktemp("deploy"), postgres_server, redis_server)
    try:
        machine.follow(steps)
        yield machine
    finally:
        machine.stop()


class Browser:
    """The lead's browser, reduced to HTTP: every cookie kept (behind nginx, its route cookie beside
    the bank's session cookie), the CSRF token sent back."""

    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = ""

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Content-Type": "application/json", "X-CSRF-Token": self.csrf, **(headers or {})})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def login(self, user: str, password: str) -> "Browser":
        self.csrf = self.request("GET", "/api/csrf")[1]["csrf"]
        status, body = self.request("POST", "/api/login", {"username": user, "password": password})
        assert status == 200, (self.url, status, body)
        self.csrf = body["csrf"]
        return self

    def command(self, key: str, **command):
        return self.request("POST", "/api/commands", command, {"Idempotency-Key": key})


def test_each_process_the_steps_start_is_ready_and_so_is_the_bank_through_nginx(deployed):
    ports = deployed.process_ports()
    assert len(ports) >= 2, f"the steps start several processes (terrabank@PORT units), started: {list(ports)}"
    for unit, port in ports.items():
        status, body = Browser(port).request("GET", "/readyz")
        assert (status, body.get("ready")) == (200, True), (unit, status, body)
    status, body = Browser(deployed.box.port(80)).request("GET", "/readyz")
    assert (status, body.get("ready")) == (200, True), ("nginx on port 80", status, body)


def test_the_lead_logs_in_through_nginx_and_every_process_sees_a_command_booked_there(deployed):
    nginx = deployed.box.port(80)
    lead = Browser(nginx).login("lead", deployed.lead_password())
    status, links = lead.request("GET", "/api/teams/links")
    assert status == 200, links
    assert lead.command("start", type="start_clock")[0] == 200
    phone = Phone(nginx, {"team": links["blue"]})  # a team's phone, through nginx too
    try:
        status, booked = lead.command("harvest-1", type="harvest", team="blue", card="harvester-1",
                                      resource="water")
        assert status == 200, booked
        assert phone.wait_for(lambda name, data: name == "team" and isinstance(data, dict)
                              and data.get("seq", 0) >= booked["seq"], timeout=10), phone.events[-3:]
    finally:
        phone.close()
    for unit, port in deployed.process_ports().items():  # each process, asked directly, has the row
        status, state = Browser(port).login("lead", deployed.lead_password()).request("GET", "/api/state")
        assert status == 200 and state["seq"] >= booked["seq"], (unit, status, state.get("seq"))


def test_the_settings_file_with_the_password_is_readable_by_root_and_the_terrabank_group_only(deployed):
    """systemd reads /etc/terrabank.env as root; step 6's commands read it as the terrabank user."""
    env_file = deployed.box.root / "etc/terrabank.env"
    assert env_file.exists(), "the steps write /etc/terrabank.env (the unit's EnvironmentFile)"
    assert env_file.stat().st_mode & 0o777 == 0o640, oct(env_file.stat().st_mode)
    assert deployed.box.owner(env_file) == "root:terrabank"
    assert "TERRABANK_DATABASE_URL=postgresql://terrabank:" in env_file.read_text()


def test_the_config_is_in_etc_and_what_the_processes_write_is_in_var_lib_terrabank(deployed):
    """The config where operators keep it (/etc/terrabank/config.toml, the Wi-Fi password may be in
    it), and the state sheets in the unit's StateDirectory (0700), nothing written into the code's folder."""
    config = deployed.box.root / "etc/terrabank/config.toml"
    assert config.exists() and config.stat().st_mode & 0o777 == 0o640, "step 5 puts the config in /etc/terrabank"
    state = deployed.box.root / "var/lib/terrabank"
    deadline = time.monotonic() + 60
    while not list((state / "summer-camp-paper").glob("game-state-*.pdf")) and time.monotonic() < deadline:
        time.sleep(0.5)  # the writer's first look comes 5 s after the process started
    assert list((state / "summer-camp-paper").glob("game-state-*.pdf")), deployed.process_logs()
    assert state.stat().st_mode & 0o777 == 0o700
    # Nothing beside the code (the on-host lock, `summer-camp.lock`, is tried there and skipped where the
    # folder is read-only: the hold in PostgreSQL fences the game).
    assert not list((deployed.box.root / "srv/terrabank").glob("summer-camp-*")), "nothing beside the code"


def test_debian_default_site_left_enabled_is_an_error_at_nginx_t_not_a_welcome_page(deployed):
    """The shipped site claims `default_server`: forgetting to remove Debian's welcome site makes
    `nginx -t` fail (before: it only warned, and nginx served the welcome page to every phone)."""
    default = deployed.box.root / "etc/nginx/sites-enabled/default"
    default.symlink_to(deployed.box.root / "etc/nginx/sites-available/default")
    try:
        checked = deployed.run("sudo nginx -t")
    finally:
        default.unlink()
    assert checked.returncode != 0, checked.stderr
    assert "duplicate default server" in checked.stderr, checked.stderr
    assert deployed.run("sudo nginx -t").returncode == 0  # and without it, the steps' nginx is fine


def test_a_venv_planted_elsewhere_fails_at_the_step_that_expects_it(tmp_path, postgres_server, redis_server):
    """The test follows the doc: a step that does not fit the others (here a venv made elsewhere than
    where the next command, and the unit, look for it) fails the run naming that step."""
    block = steps_block(DOC.read_text())
    planted = block.replace("python3 -m venv /srv/terrabank/.venv", "python3 -m venv /srv/venvs/terrabank")
    assert planted != block, "the steps make the venv with `python3 -m venv /srv/terrabank/.venv`"
    _skip_without_what_the_steps_need(commands(planted))
    machine = Machine(tmp_path, postgres_server, redis_server)
    try:
        with pytest.raises(pytest.fail.Exception) as failed:
            machine.follow(commands(planted))
    finally:
        machine.stop()
    message = str(failed.value)
    print(message)  # what the developer who planted it reads (pytest -s shows it)
    assert re.search(r"step 3 \(The code .*\): `sudo /srv/terrabank/\.venv/bin/pip install", message), message
    assert "No such file or directory" in message or "not found" in message, message
