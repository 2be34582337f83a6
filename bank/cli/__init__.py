"""The `terrabank` command (main.py) and its subcommands, one module per family.

serve.py starts the live bank (and adds accounts, prints links); printing*.py writes
the print pack; trias_*.py plays, shows and scores Trias games; migrate.py copies a game
into PostgreSQL. The top layer: it may import every other room; nothing imports it.
A problem is one line starting with `terrabank:` and exit code 2.
"""
