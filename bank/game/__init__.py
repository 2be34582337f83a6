"""The field game's pure core: its rules, its state and the config that holds its numbers.

Commands in, events or a named refusal (bank.errors) out: engine.handle decides,
state.GameState.apply folds, views projects for the pages and the print pack. The
numbers of the game are read from config.toml (config.py and its reader, model and
sections), never written here. No Flask, no SQLite, no ReportLab, no clock of the
machine (time comes in through engine.Context). Imports only bank.errors and itself.
"""
