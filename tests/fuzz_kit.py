"""Fuzzing the API's command parsing: random JSON commands through the Flask test client as the lead.

Shared by tests/web/field/test_fuzz_api.py (bounded, in CI) and bench/web/field/fuzz_api.py (long runs).
Each example: the reply is 200/400/409 (never 500), JSON with a code and a sentence;
a refusal leaves journal and state unchanged; after an accepted one the invariants hold.
"""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from bank.game import fields
from bank.game.invariants import check
from security_kit import KINDS, is_sentence, prepare, valid_command

ROOT = Path(__file__).resolve().parents[1]
KNOWN_FIELDS = sorted(set().union(*fields.COMMAND_FIELDS.values()))

scalars = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=30) | st.sampled_from(["blue", "red", "water", "joker", "harvester-1", "pirate-1", "ev1", "", " "]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                           max_leaves=12)
field_names = st.sampled_from(KNOWN_FIELDS) | st.text(max_size=12)
kinds = st.sampled_from(KINDS) | st.text(max_size=15) | json_values


@st.composite
def mutated(draw):
    """A valid command with one to three of its fields replaced, dropped or added."""
    kind = draw(st.sampled_from(KINDS))
    command = valid_command(kind, Fuzzer.config)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        names = [k for k in command if k != "type"]
        if action == "replace" and names:
            command[draw(st.sampled_from(names))] = draw(json_values)
        elif action == "drop" and names:
            command.pop(draw(st.sampled_from(names)))
        else:
            command[draw(field_names)] = draw(json_values)
    return command


commands = st.one_of(
    st.builds(lambda kind, extra: {"type": kind, **extra}, kinds, st.dictionaries(field_names, json_values, max_size=6)),
    mutated(),
    st.sampled_from(KINDS).map(lambda kind: valid_command(kind, Fuzzer.config)),
    json_values,  # not even an object
)


class Fuzzer:
    """One live app (a fresh game when the last one ended) and the check of one example."""

    config = None

    def __init__(self):
        from bank.game.config import load_config

        Fuzzer.config = Fuzzer.config or load_config(ROOT / "config.toml")
        self.folder = Path(tempfile.mkdtemp(prefix="terrabank-fuzz-"))
        self.games = itertools.count(1)
        self.app = self.client = None
        self.statuses: dict = {}
        self.new_game()

    def new_game(self) -> None:
        from bank.web import create_app
        from conftest import WebClient

        self.close_app()
        app = create_app({"DB": self.folder / f"game-{next(self.games)}.db", "CONFIG": Fuzzer.config, "TESTING": True,
                          "PASSWORD_HASH": "pbkdf2:sha256:1000"})
        app.extensions["terrabank"].access.add_user("lead", "correct horse", "lead")
        prepare(app)
        self.app, self.client = app, WebClient(app.test_client())
        assert self.client.login("lead").status_code == 200

    def close_app(self) -> None:
        if self.app is not None:
            self.app.extensions["terrabank"].bank.close()
            self.app.extensions["terrabank"].access.close()

    def close(self) -> None:
        self.close_app()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _snapshot(self) -> tuple:
        bank = self.app.extensions["terrabank"].bank
        return bank.last_seq, json.dumps(bank.state.to_dict(), sort_keys=True, default=repr)

    def check(self, command) -> int:
        """Post one command and assert the promises; returns the HTTP status."""
        bank = self.app.extensions["terrabank"].bank
        if bank.state.clock["status"] == "ended":
            self.new_game()
            bank = self.app.extensions["terrabank"].bank
        before = self._snapshot()
        body = json.dumps(command)  # NaN and Infinity go out as the bare words Python's json writes
        reply = self.client.client.post("/api/commands", data=body, content_type="application/json",
                                        headers={"X-CSRF-Token": self.client.csrf, "Idempotency-Key": f"fuzz-{next(_keys)}"})
        status = reply.status_code
        self.statuses[status] = self.statuses.get(status, 0) + 1
        assert status in (200, 400, 409), (status, command, reply.data[:300])
        assert reply.is_json, (status, command)
        data = reply.get_json()
        if status == 200:
            problems = check(bank.state, bank.config)
            assert problems == [], (command, problems)
            assert bank.last_seq > before[0]
        else:
            error = data["error"]
            assert isinstance(error["code"], str) and is_sentence(error["message"]), (command, error)
            assert self._snapshot() == before, ("a refused command changed something", command, error)
        return status


_keys = itertools.count(1)
