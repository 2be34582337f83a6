"""A network this test makes, to cut a server process from PostgreSQL or Redis.

A network namespace and a veth pair: the host side 10.231.N.1 (a private PostgreSQL and a
private Redis listen there too), the namespace side 10.231.N.2 (a `terrabank serve` started
inside with `ip netns exec`). A cut is an nftables table inside the namespace that drops the
packets to and from one port both ways: nothing is closed, nothing answers, as when a cable
or a switch between two machines fails. The host's own rules are never touched.

Needs root, `ip` (iproute2) and `nft` (nftables): `.ci/run` installs them and CI runs as
root. Elsewhere `missing_reason()` says what is missing and the tests skip with it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import postgres_kit
import redis_kit

IP = shutil.which("ip") or "/usr/sbin/ip"  # /usr/sbin is not on every user's PATH


def missing_reason() -> str | None:
    """Why no namespace can be made here, or None (tried for real: a container may refuse it)."""
    from needs import reason

    why = reason("ip", "nft", "initdb", "redis-server", "psycopg", "redis") or postgres_kit.missing_reason()
    if why:
        return why
    if os.geteuid() != 0:
        return "making a network namespace needs root (CI runs as root)"
    name = f"tbk-probe-{secrets.token_hex(3)}"
    made = subprocess.run([IP, "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        return f"this machine cannot make a network namespace ({made.stderr.strip()})"
    subprocess.run([IP, "netns", "delete", name], capture_output=True)
    return None


def _ip(*args: str, inside: str | None = None, stdin: str | None = None) -> None:
    command = ([IP, "netns", "exec", inside] if inside else []) + [shutil.which(args[0]) or f"/usr/sbin/{args[0]}",
                                                                  *args[1:]]
    done = subprocess.run(command, capture_output=True, text=True, input=stdin)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()}")


class Network:
    """The namespace, its veth pair, and a PostgreSQL and a Redis listening on the host side."""

    def __init__(self):
        tag = secrets.token_hex(3)
        self.ns = f"tbk-{tag}"
        net = 16 + int(tag, 16) % 200  # 10.231.N.0/24: unlikely to meet another test's
        self.host_ip, self.ns_ip = f"10.231.{net}.1", f"10.231.{net}.2"
        self._host_if, ns_if = f"tbh{tag}", f"tbn{tag}"
        _ip("ip", "netns", "add", self.ns)
        try:
            _ip("ip", "link", "add", self._host_if, "type", "veth", "peer", "name", ns_if)
            _ip("ip", "link", "set", ns_if, "netns", self.ns)
            _ip("ip", "addr", "add", f"{self.host_ip}/24", "dev", self._host_if)
            _ip("ip", "link", "set", self._host_if, "up")
            _ip("ip", "addr", "add", f"{self.ns_ip}/24", "dev", ns_if, inside=self.ns)
            _ip("ip", "link", "set", ns_if, "up", inside=self.ns)
            _ip("ip", "link", "set", "lo", "up", inside=self.ns)
            self.postgres = postgres_kit.Server(also_listen=self.host_ip, max_connections=200)
            self.redis = redis_kit.Server(also_listen=self.host_ip)
        except BaseException:
            self.close()
            raise
        self.pg_url = f"postgresql://{postgres_kit.APP_ROLE}@{self.host_ip}:{self.postgres.port}/{postgres_kit.DATABASE}"
        self.redis_url = f"redis://{self.host_ip}:{self.redis.port}/0"

    @contextlib.contextmanager
    def cut(self, port: int):
        """Drop every packet between the namespace and the host's `port`, both ways, until the block ends."""
        rules = (f"table inet cut {{\n"
                 f"  chain out {{ type filter hook output priority 0; ip daddr {self.host_ip} tcp dport {port} drop; }}\n"
                 f"  chain in {{ type filter hook input priority 0; ip saddr {self.host_ip} tcp sport {port} drop; }}\n"
                 f"}}\n")
        _ip("nft", "-f", "-", inside=self.ns, stdin=rules)
        try:
            yield
        finally:
            _ip("nft", "delete", "table", "inet", "cut", inside=self.ns)

    def spawn_inside(self, argv: list, log: Path, env: dict, timeout: float = 90.0):
        """Start a server inside the namespace listening on its address; (process, its base URL) once it answers."""
        start = log.stat().st_size if log.exists() else 0
        with open(log, "ab") as out:
            proc = subprocess.Popen([IP, "netns", "exec", self.ns, *argv], stdout=out, stderr=subprocess.STDOUT,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
                                    cwd=log.parent)  # its lock, address note and sheets beside its log, not in the checkout
        printed = re.compile(rb"http://" + re.escape(self.ns_ip.encode()) + rb":(\d+)/")
        deadline = time.monotonic() + timeout
        while True:
            with open(log, "rb") as f:
                f.seek(start)
                found = printed.search(f.read())
            if found and _answers(self.ns_ip, int(found.group(1))):
                return proc, f"http://{self.ns_ip}:{int(found.group(1))}"
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the server in the namespace did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def close(self) -> None:
        for server in (getattr(self, "redis", None), getattr(self, "postgres", None)):
            if server is not None:
                server.stop()
        subprocess.run([IP, "link", "delete", self._host_if], capture_output=True)  # its peer goes with it
        subprocess.run([IP, "netns", "delete", self.ns], capture_output=True)


def _answers(host: str, port: int) -> bool:
    import socket

    try:
        with socket.create_connection((host, port), timeout=1.0) as sock:
            sock.sendall(b"GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n")
            return sock.recv(5) == b"HTTP/"
    except OSError:
        return False
