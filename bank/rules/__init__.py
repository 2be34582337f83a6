"""The rules of RULES.md, one module per part; each handler decides one command type."""
