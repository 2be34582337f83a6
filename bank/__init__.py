"""Terrabank: the central bank of the terraforming field game, and the table companion of Trias.

The house has one room per layer, and imports point one way (tests/system/test_architecture.py):
- bank/game/: the field game's pure rules (commands in, events or a named refusal out);
- bank/store/: durability for any engine (journals, chain, game file, accounts' rows);
- bank/services/: the running games (the field game's Bank, Trias games, exports);
- bank/web/ and bank/cli/: the pages and the terminal, above the services.
bank/errors.py is the one module every room may import: the refusal they all raise.
The pure Trias engine is trias/, beside bank/; the print pack is printables/.
"""
