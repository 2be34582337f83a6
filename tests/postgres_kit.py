"""A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary folder.

initdb into a temporary folder and pg_ctl start on a free port of 127.0.0.1, once per
test session. PostgreSQL refuses to run as root, so under root (CI) the server runs as
the `postgres` user Debian's package creates. The app connects as `bank`, the owner of
the database `games` and no superuser, as docs/DEPLOY.md sets it up.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

APP_ROLE, DATABASE, ADMIN = "bank", "games", "admin"


def binaries() -> Path | None:
    """The newest /usr/lib/postgresql/N/bin holding initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def missing_reason() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None."""
    from needs import reason

    why = reason("initdb", "psycopg")
    if why:
        return why
    if os.geteuid() == 0 and _uid("postgres") is None:
        return "running as root and there is no `postgres` user to run the server as"
    return None


def _uid(user: str) -> int | None:
    import pwd
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(Exception):
    """A server could not bind the port picked for it: somebody took it meanwhile."""


def on_a_free_port(start, tries: int = 3):
    """`start(port)` on a free port; another port when it raises PortTaken (the port is picked,
    released, then bound by a program this process cannot hand a socket to: PostgreSQL, Redis, nginx)."""
    for attempt in range(tries):
        try:
            return start(_free_port())
        except PortTaken:
            if attempt == tries - 1:
                raise


class Server:
    """One running cluster; `url` is what TERRABANK_DATABASE_URL gets."""

    def __init__(self, also_listen: str | None = None, max_connections: int = 400):
        """`also_listen`: an address beside 127.0.0.1 (a veth's host side, tests/netns_kit.py), whose /24
        may log in too."""
        self.also_listen, self.max_connections = also_listen, max_connections
        self.bin = binaries()
        self.folder = Path(tempfile.mkdtemp(prefix="terrabank-pg-"))
        self.data = self.folder / "data"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            os.chown(self.folder, _uid("postgres"), -1)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", ADMIN, "-E", "UTF8", "--no-sync")
        self.port = on_a_free_port(self._start)
        self.admin_url = f"postgresql://{ADMIN}@127.0.0.1:{self.port}/postgres"
        self.url = f"postgresql://{APP_ROLE}@127.0.0.1:{self.port}/{DATABASE}"
        self.admin(f"CREATE ROLE {APP_ROLE} LOGIN", f"CREATE DATABASE {DATABASE} OWNER {APP_ROLE}")

    def _start(self, port: int) -> int:
        listen = "127.0.0.1"
        if self.also_listen:
            listen += f",{self.also_listen}"
            hba = self.data / "pg_hba.conf"
            line = f"host all all {self.also_listen.rsplit('.', 1)[0]}.0/24 trust\n"
            if line not in hba.read_text():
                with open(hba, "a") as f:
                    f.write(line)
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-t", "60", "-o",
                      f"-p {port} -k {self.folder} -c listen_addresses={listen} "
                      f"-c max_connections={self.max_connections}", "start")
        except RuntimeError:
            log = self.folder / "log"
            if log.exists() and "already in use" in log.read_text(errors="replace"):
                raise PortTaken() from None
            raise
        return port

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.folder)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    def admin(self, *statements: str, database: str = "postgres") -> None:
        """Run statements as the cluster's superuser (setting up, or playing the attacker DBA)."""
        import psycopg
        with psycopg.connect(self.admin_url.rsplit("/", 1)[0] + f"/{database}", autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
