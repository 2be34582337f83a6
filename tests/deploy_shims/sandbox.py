"""The sandbox in which tests/system/test_deploy_doc.py follows docs/DEPLOY.md's steps.

A folder R stands for the clean Debian machine's root: every absolute /srv/ and /etc/ of the
steps (and of the files they copy: the systemd unit) is R/srv/, R/etc/. Ports too are the
sandbox's own: each port the steps name on this machine (5001 for a process, 80 for nginx,
5432 for PostgreSQL, 6379 for Redis) stands for a free port of the test, one map shared by the
test and the shims (R/.sandbox/ports.json), so the same number always means the same port.

Used by the test and by shim.py (the programs a container cannot run for real: sudo, apt,
useradd, chown, systemctl, nginx, git). Standard library only: the shims run under any python3.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import socket
from contextlib import contextmanager
from pathlib import Path

# Users and groups a clean Debian machine with the steps' packages already has.
SYSTEM_ACCOUNTS = {"root", "postgres", "redis", "www-data", "nobody"}
# The PATH of the operator's shell and of sudo (Debian's secure_path), after the shims.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The absolute folders of the steps that live under R.
_ROOTED = re.compile(r"(?<![\w./-])/(srv|etc)(?=/|\b)")
# host:port on this machine, and a URL on this machine without a port (nginx on 80).
_HOST_PORT = re.compile(r"\b(localhost|127\.0\.0\.1):(\d+)\b")
_URL_NO_PORT = re.compile(r"\bhttp://(localhost|127\.0\.0\.1)(?=[/\s'\"]|$)")


class Sandbox:
    def __init__(self, root):
        self.root = Path(root)
        self.state = self.root / ".sandbox"  # the shims' own records, not part of the machine
        self.logs = self.state / "logs"
        self.pids = self.state / "pids"

    @classmethod
    def from_env(cls) -> "Sandbox":
        return cls(os.environ["DEPLOY_SANDBOX"])

    def make(self) -> None:
        for folder in (self.logs, self.pids):
            folder.mkdir(parents=True, exist_ok=True)

    # --- paths ----------------------------------------------------------------------------
    def rooted(self, text: str) -> str:
        """`text` with its absolute /srv/..., /etc/... moved under R."""
        return _ROOTED.sub(lambda m: f"{self.root}/{m.group(1)}", text)

    def unrooted(self, text: str) -> str:
        """The reverse, for messages: what the operator would have read."""
        return text.replace(f"{self.root}/", "/")

    # --- ports ----------------------------------------------------------------------------
    @contextmanager
    def _ports(self):
        self.state.mkdir(parents=True, exist_ok=True)
        with open(self.state / "ports.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = self.state / "ports.json"
            ports = json.loads(path.read_text()) if path.exists() else {}
            yield ports
            path.write_text(json.dumps(ports))

    def preset(self, **ports: int) -> None:
        """Ports that are already somebody's: {"5432": the test's PostgreSQL, ...}."""
        with self._ports() as known:
            known.update({str(k).lstrip("_"): v for k, v in ports.items()})

    def port(self, port: int | str) -> int:
        """The sandbox's port standing for the machine's `port` (a free one, the first time)."""
        with self._ports() as known:
            if str(port) not in known:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    known[str(port)] = s.getsockname()[1]
            return known[str(port)]

    def addresses(self, text: str) -> str:
        """`text` with each address on this machine moved to the sandbox's port for it."""
        text = _HOST_PORT.sub(lambda m: f"127.0.0.1:{self.port(m.group(2))}", text)
        return _URL_NO_PORT.sub(lambda m: f"http://127.0.0.1:{self.port(80)}", text)

    # --- users (useradd and chown are recorded, never done) ---------------------------------
    def _accounts_path(self) -> Path:
        return self.state / "accounts.json"

    def accounts(self) -> dict:
        path = self._accounts_path()
        return json.loads(path.read_text()) if path.exists() else {"users": [], "groups": [], "owners": {}}

    def save_accounts(self, accounts: dict) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        self._accounts_path().write_text(json.dumps(accounts, indent=1))

    def is_user(self, name: str) -> bool:
        return name in SYSTEM_ACCOUNTS or name in self.accounts()["users"]

    def is_group(self, name: str) -> bool:
        return name in SYSTEM_ACCOUNTS or name in self.accounts()["groups"]

    def owner(self, path) -> str | None:
        """"user:group" the steps gave `path` with chown, or None."""
        return self.accounts()["owners"].get(str(Path(path)))

    # --- processes the shims started -------------------------------------------------------
    def started(self) -> dict[str, int]:
        """unit name -> process group id, for every process the sandbox's systemctl started."""
        return {p.stem: int(p.read_text()) for p in sorted(self.pids.glob("*.pid"))}

    def nginx_folder(self) -> Path:
        return self.state / "nginx"


def free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:`port`."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return False
    except OSError:
        return True
