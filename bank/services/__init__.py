"""The running games: a game's state kept in step with its journal, one command at a time.

bank.py holds the field game's Bank (one lock, idempotent commands, snapshot and tail
on open, the bank's time line in timeline.py); journal_service.py is the same discipline
for any engine, used by the Trias games (trias_games.py, trias_table.py); export.py and
migrate.py read or copy whole games. Imports the pure cores (bank.game, trias) and
bank.store; never the web or the terminal, which call in from above.
"""
