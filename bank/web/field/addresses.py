"""The address the teams' phones use to reach the bank, and its QR code.

A join card printed with `127.0.0.1` or `localhost` opens the phone's own loopback: every
team's QR code would lead nowhere, and nobody finds out before the game starts. So the
links are built from the machine's network (LAN) address, the one `serve` prints with its
QR code, unless the lead names another; a loopback address is used only when asked for
in so many words (a test on one machine).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import subprocess
from urllib.parse import urlsplit

from bank.errors import BankError

LOOPBACK_NAMES = ("localhost", "ip6-localhost", "ip6-loopback")
_BASE = re.compile(r"^https?://[^\s/?#@]+$")  # scheme and host[:port], nothing after it


def lan_addresses() -> list:
    """This machine's IPv4 addresses that other devices can reach (no loopback, no link-local)."""
    found = []
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=2).stdout
        found = out.split()
    except (OSError, subprocess.SubprocessError):
        pass
    if not found:
        try:
            found = socket.gethostbyname_ex(socket.gethostname())[2]
        except OSError:
            pass
    return [a for a in found if "." in a and not _local_only(a)]


def _local_only(host: str) -> bool:
    """True for a host no other device can reach: loopback, "any", link-local (169.254.x.x)."""
    host = host.strip("[]").lower()
    if not host or host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name such as terrabank.lan: the phones' resolver decides
    return ip.is_loopback or ip.is_unspecified or ip.is_link_local


def is_loopback(base: str) -> bool:
    """True when the phones could not reach this address (127.0.0.1, localhost, ::1, 0.0.0.0)."""
    return _local_only(urlsplit(base if "//" in base else f"http://{base}").hostname or "")


def normalise(base: str) -> str:
    """`http://host[:port]` without a trailing slash; a clear refusal for anything else."""
    base = (base or "").strip().rstrip("/")
    if "//" not in base and base:
        base = f"http://{base}"  # a lead typing 192.168.4.1:5000 means the web address
    if not _BASE.match(base):
        raise BankError("bad_address", f"{base or 'an empty text'} is not a web address the phones can open; "
                        "write it as http://192.168.4.1:5000 (the address the bank printed when it started)",
                        address=base)
    return base


def choose(override: str | None, seen: str | None, port: int) -> dict:
    """The phones' address: the lead's own choice, else the page's address unless it is a loopback,
    else this machine's first LAN address. {"base", "source", "loopback", "lan"}."""
    lan = lan_addresses()
    if override:
        base, source = normalise(override), "chosen"
    elif seen and not is_loopback(seen):
        base, source = normalise(seen), "page"
    elif lan:
        base, source = f"http://{lan[0]}:{_port(seen, port)}", "lan"
    else:
        base, source = normalise(seen or f"http://127.0.0.1:{port}"), "loopback"
    return {"base": base, "source": source, "loopback": is_loopback(base), "lan": lan}


def _port(seen: str | None, port: int) -> int:
    """The port the page came in on (what the bank listens on), else the configured one."""
    try:
        return urlsplit(seen).port or port if seen else port
    except ValueError:
        return port


def require_reachable(base: str, allow_loopback: bool, how_to_allow: str) -> None:
    """Refuse to print or show team links to an address only this machine can open."""
    if is_loopback(base) and not allow_loopback:
        raise BankError("loopback_address", f"the team links would point to {base}, which only this machine can "
                        "open: phones scanning them would reach nothing. Connect this machine to the game's Wi-Fi "
                        "and use its network address (for example http://192.168.4.1:5000), or, for a test on "
                        f"this machine only, {how_to_allow}", address=base)


def qr_svg(payload: str) -> bytes:
    """A QR code as SVG, made here (no CDN, no image library): black squares on white, a 4-module margin."""
    import qrcode
    import qrcode.image.svg

    code = qrcode.QRCode(border=4, error_correction=qrcode.constants.ERROR_CORRECT_M,
                         image_factory=qrcode.image.svg.SvgPathFillImage)
    code.add_data(payload)
    return code.make_image().to_string(encoding="unicode").encode()
