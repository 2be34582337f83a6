"""Where the phones reach the bank: the addresses `serve` prints and notes, and the warning when only this
machine could open them. Split from bank/cli/serve.py, which re-exports these names."""

from __future__ import annotations

import os
from pathlib import Path

from bank.store import state_dir
from bank.web.serving.log_lines import say


def launcher() -> str:
    """The command the user typed to reach us: `python3 run.py` sets TERRABANK_LAUNCHER, else `terrabank`."""
    return os.environ.get("TERRABANK_LAUNCHER") or "terrabank"


def addresses() -> list:
    """This machine's network addresses phones can reach, else ["127.0.0.1"] (see loopback_warning)."""
    from bank.web.field.addresses import lan_addresses  # bank.web loads Flask: only for the commands that need it

    return lan_addresses() or ["127.0.0.1"]


def loopback_warning(base: str, proxied: bool = False) -> str | None:
    """A warning line when the phones' address is one only this machine can open (behind a proxy, as the
    systemd unit runs it, a loopback is the point: the line then says where the phones go instead)."""
    from bank.web.field.addresses import is_loopback

    if not is_loopback(base):
        return None
    if proxied:
        return (f"Behind a proxy (TERRABANK_PROXIES): phones and facilitators use the proxy's address, not {base}; "
                "the admin page builds the team links on the address it is opened with (or: links --base URL).")
    return (f"Warning: {base} opens only on this machine; phones cannot reach it. Connect this machine "
            f"to the game's Wi-Fi and start again, or give the address phones use: --base http://192.168.4.1:5000")


def address_path(db) -> Path:
    """Where `serve` notes the address it printed, for join cards printed on another machine: beside
    the game file, or in the state directory (bank/store/state_dir.py)."""
    return state_dir.path_for(db, "-address.txt")


def remember_address(db, base: str) -> None:
    """Note the phones' address; a folder the bank may not write loses only the note, said in one line."""
    path = address_path(db)
    try:
        state_dir.ready_folder_for(path)
        # O_NOFOLLOW: a link planted there would have the note overwrite a file of someone's choosing
        with os.fdopen(os.open(state_dir.refuse_link(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                               0o644), "w") as out:
            out.write(base + "\n")
    except OSError as exc:
        say(f"Note: cannot write {path} ({exc.strerror}): `{launcher()} links` run elsewhere will not know "
              f"this address; give the bank a folder it may write: {state_dir.ENV_VAR}=/var/lib/terrabank")


def remembered_address(db) -> str | None:
    """The address the bank last served phones on, if `serve` noted one."""
    try:
        return state_dir.refuse_link(address_path(db)).read_text().strip() or None
    except OSError:
        return None
