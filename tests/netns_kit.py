"""A network this test makes, to cut a server process from PostgreSQL or Redis, or a browser from the bank.

A network namespace and a veth pair: the host side 10.231.N.1 (a private PostgreSQL and a
private Redis listen there too), the namespace side 10.231.N.2 (a `terrabank serve` started
inside with `ip netns exec`, or a browser run inside by `wrapped`). A cut is an nftables table
inside the namespace that drops the packets to and from one port both ways: nothing is closed,
nothing answers, as when a cable or a switch between two machines fails. A bad link (`impaired`)
loses and duplicates packets at random and is slow. The host's own rules are never touched.

Needs root, `ip` and `tc` (iproute2) and `nft` (nftables): `.ci/run` installs them and CI runs as
root. Elsewhere `missing_reason()` says what is missing and the tests skip with it. `Link` is the
namespace alone (`link_missing_reason()`); `Network` adds the PostgreSQL and the Redis.
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
    """Why no namespace with its PostgreSQL and Redis can be made here, or None."""
    from needs import reason

    return reason("initdb", "redis-server", "psycopg", "redis") or postgres_kit.missing_reason() or link_missing_reason()


def link_missing_reason() -> str | None:
    """Why no namespace can be made here, or None (tried for real: a container may refuse it)."""
    from needs import reason

    why = reason("ip", "nft")
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


class Link:
    """The namespace and its veth pair: the host at `host_ip`, the namespace at `ns_ip`."""

    def __init__(self):
        tag = secrets.token_hex(3)
        self.ns = f"tbk-{tag}"
        net = 16 + int(tag, 16) % 200  # 10.231.N.0/24: unlikely to meet another test's
        self.host_ip, self.ns_ip = f"10.231.{net}.1", f"10.231.{net}.2"
        self._host_if, self._ns_if = f"tbh{tag}", f"tbn{tag}"
        self._wrappers: list[Path] = []
        _ip("ip", "netns", "add", self.ns)
        try:
            _ip("ip", "link", "add", self._host_if, "type", "veth", "peer", "name", self._ns_if)
            _ip("ip", "link", "set", self._ns_if, "netns", self.ns)
            _ip("ip", "addr", "add", f"{self.host_ip}/24", "dev", self._host_if)
            _ip("ip", "link", "set", self._host_if, "up")
            _ip("ip", "addr", "add", f"{self.ns_ip}/24", "dev", self._ns_if, inside=self.ns)
            _ip("ip", "link", "set", self._ns_if, "up", inside=self.ns)
            _ip("ip", "link", "set", "lo", "up", inside=self.ns)
            self._servers()
        except BaseException:
            self.close()
            raise

    def _servers(self) -> None:
        """What listens on the host side besides the test's own servers (none for a bare link)."""

    def wrapped(self, program: str) -> str:
        """A script that runs `program` inside the namespace with the arguments it is given (file descriptors
        and all, so Playwright can drive a browser started by it): give it as the browser's executable."""
        import tempfile

        fd, path = tempfile.mkstemp(prefix=f"{self.ns}-", suffix=".sh")
        with os.fdopen(fd, "w") as out:
            out.write(f'#!/bin/sh\nexec {IP} netns exec {self.ns} {program} "$@"\n')
        os.chmod(path, 0o755)
        self._wrappers.append(Path(path))
        return path

    @contextlib.contextmanager
    def impaired(self, port: int, loss: int, duplicate: int, rate_kbit: int, seen: dict | None = None):
        """A bad radio link to and from the host's `port` until the block ends: each packet lost at random
        `loss` times in a hundred (both ways), each packet to the host sent twice `duplicate` times in a
        hundred, and at most `rate_kbit` each way (a queue behind it: slow and jittery). nftables and tc's
        token bucket, which every kernel with nftables has (netem's qdisc is a module some kernels lack).
        `seen`, a dict, gets the packets it lost and duplicated when the block ends."""
        rules = (f"table ip bad {{\n"
                 f"  chain out {{ type filter hook output priority 0;\n"
                 f"    ip daddr {self.host_ip} tcp dport {port} numgen random mod 100 < {loss} counter drop;\n"
                 f"    ip daddr {self.host_ip} tcp dport {port} numgen random mod 100 < {duplicate} counter dup to {self.host_ip}; }}\n"
                 f"  chain in {{ type filter hook input priority 0;\n"
                 f"    ip saddr {self.host_ip} tcp sport {port} numgen random mod 100 < {loss} counter drop; }}\n"
                 f"}}\n")
        bucket = ("root", "tbf", "rate", f"{rate_kbit}kbit", "burst", "16kb", "latency", "2s")
        _ip("nft", "-f", "-", inside=self.ns, stdin=rules)
        try:
            _ip("tc", "qdisc", "add", "dev", self._ns_if, *bucket, inside=self.ns)
            _ip("tc", "qdisc", "add", "dev", self._host_if, *bucket)
            yield
        finally:
            if seen is not None:  # what the link did: packets lost on the way out, duplicated, lost on the way in
                listed = subprocess.run([IP, "netns", "exec", self.ns, shutil.which("nft") or "/usr/sbin/nft", "list",
                                         "table", "ip", "bad"], capture_output=True, text=True).stdout
                counts = [int(n) for n in re.findall(r"counter packets (\d+)", listed)]
                if len(counts) == 3:
                    seen.update(lost_out=counts[0], duplicated=counts[1], lost_in=counts[2])
            for undo in (lambda: _ip("nft", "delete", "table", "ip", "bad", inside=self.ns),
                         lambda: _ip("tc", "qdisc", "del", "dev", self._ns_if, "root", inside=self.ns),
                         lambda: _ip("tc", "qdisc", "del", "dev", self._host_if, "root")):
                with contextlib.suppress(RuntimeError):  # a part the block never reached
                    undo()

    @contextlib.contextmanager
    def cut(self, port: int, answers_only: bool = False):
        """Drop every packet between the namespace and the host's `port`, both ways, until the block ends.
        `answers_only`: drop only what the port sends that carries data (more than a bare TCP segment's
        60 bytes), so connections open and requests arrive and are answered, but no answer ever arrives."""
        rules = (f"table inet cut {{\n"
                 f"  chain out {{ type filter hook output priority 0; ip daddr {self.host_ip} tcp dport {port} "
                 f"{'accept' if answers_only else 'drop'}; }}\n"
                 f"  chain in {{ type filter hook input priority 0; ip saddr {self.host_ip} tcp sport {port} "
                 f"{'ip length > 60 ' if answers_only else ''}drop; }}\n"
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
        subprocess.run([IP, "link", "delete", self._host_if], capture_output=True)  # its peer goes with it
        subprocess.run([IP, "netns", "delete", self.ns], capture_output=True)
        for path in getattr(self, "_wrappers", ()):
            path.unlink(missing_ok=True)


class Network(Link):
    """The namespace, its veth pair, and a PostgreSQL and a Redis listening on the host side."""

    def _servers(self) -> None:
        self.postgres = postgres_kit.Server(also_listen=self.host_ip, max_connections=200)
        self.redis = redis_kit.Server(also_listen=self.host_ip)
        self.pg_url = f"postgresql://{postgres_kit.APP_ROLE}@{self.host_ip}:{self.postgres.port}/{postgres_kit.DATABASE}"
        self.redis_url = f"redis://{self.host_ip}:{self.redis.port}/0"

    def close(self) -> None:
        for server in (getattr(self, "redis", None), getattr(self, "postgres", None)):
            if server is not None:
                server.stop()
        super().close()


def _answers(host: str, port: int) -> bool:
    import socket

    try:
        with socket.create_connection((host, port), timeout=1.0) as sock:
            sock.sendall(b"GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n")
            return sock.recv(5) == b"HTTP/"
    except OSError:
        return False
