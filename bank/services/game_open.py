"""A game opened for use: its journal (created from the config when there is none yet) and its accounts,
each team with its phone link. The web app (bank/web/app.py) and the one-off commands that need no web
app (`terrabank user`, `links`: bank/cli/serve.py) open a game the same way, here."""

from __future__ import annotations

import time

from bank.errors import BankError
from bank.game.game_identity import kept_name_problems
from bank.services.bank import Bank
from bank.store import storage_url
from bank.store.accounts import AccessRules, open_access


def open_game(db, config, hash_method: str = "scrypt", *, wall=time.time, mono=time.monotonic) -> tuple[Bank, AccessRules]:
    """(bank, accounts) of the game at `db` (a file, or a game in PostgreSQL when a database URL is set); the
    caller closes both. The accounts live beside the journal and every team has its phone link."""
    exists = storage_url.target(db, config).exists()
    bank = Bank.open(db, config, wall=wall, mono=mono) if exists else Bank.create(db, config, wall=wall, mono=mono)
    try:
        access = open_access(db, config, hash_method)
    except BaseException:
        bank.close()
        raise
    try:
        taken = kept_name_problems(access.team_names(), config)
        if taken:  # as Bank.open refuses a name a team had at the game's creation (game_identity.py)
            raise BankError("config_mismatch", f"The game in {db} was started with its teams named otherwise: "
                            f"{'; '.join(taken)}.", path=str(db), problems=taken)
        access.ensure_team_tokens(config.teams)
        access.remember_team_names(config.teams)  # a reload's names too: sheets printed under them are typed back
    except BaseException:  # a file another program holds: a worker tries again (serving/opening.py), nothing left open
        access.close()
        bank.close()
        raise
    return bank, access
