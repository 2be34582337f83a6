"""The first start's message reads as a sentence, on a terminal and in the file.

It used to set the account name and the password apart with double spaces ("log in as  lead
with password  X"), which reads as a typing mistake and copies badly; the name and password
must still be the words a facilitator types.
"""

import io
import re

from bank.cli import serve as cli_web


class Accounts:
    def __init__(self):
        self.added = []

    def add_user(self, name, password, role):
        self.added.append((name, password, role))


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _no_double_space(text):
    assert "  " not in text, f"double space in {text!r}"


def test_on_a_terminal_the_message_has_single_spaces_and_the_password(tmp_path, monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    accounts = Accounts()
    cli_web.first_lead(accounts, tmp_path / "g.db")
    (name, password, role), = accounts.added
    out = terminal.getvalue()
    _no_double_space(out)
    assert f"log in as lead with password {password}\n" in out and role == "lead"


def test_without_a_terminal_the_file_and_the_log_line_have_single_spaces(tmp_path, capsys):
    accounts = Accounts()
    cli_web.first_lead(accounts, tmp_path / "g.db")
    (_, password, _), = accounts.added
    _no_double_space(capsys.readouterr().out)
    text = cli_web.lead_password_path(tmp_path / "g.db").read_text()
    _no_double_space(text)
    assert re.search(r"password\s+(\S+)", text).group(1) == password
