"""Durability for any engine: what is written is never lost and never written twice.

The append-only journal with its hash chain (journal.py for the SQLite game file,
journal_pg*.py for PostgreSQL, one interface: journal_api.py), where a game lives
(storage_url.py, gamefile.py: its file, the hold that makes one writer), the copy of a
game into PostgreSQL (migrate_copy.py, migrate_access.py), where Trias games are kept
(trias_store.py), and the accounts' rows (accounts/). It knows no rule of any game, no
service, no page: it imports only bank.errors and itself, so a new engine reuses it whole.
"""
