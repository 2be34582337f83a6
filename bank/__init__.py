"""Terrabank: the central bank of the terraforming field game."""
