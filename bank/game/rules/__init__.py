"""The rules of docs/rules/field-game.md, one module per part; each handler decides one command type."""
