"""Fights refereed at the bank: rounds to win, tokens moved, cooldowns (R18-R20)."""

from __future__ import annotations

from bank.game import fields
from bank.game.config_model import FightPair, GameConfig
from bank.errors import RuleError
from bank.game.state import team_account
from bank.game.turn import Turn
from bank.game.rules.common import card, check_not_cooling_down, require_tokens, role_of, two_teams


def rounds_to_win(config: GameConfig, role_a: str, role_b: str, everyone_fights: bool) -> tuple[int, int] | None:
    """Rounds each side must win (R18), or None if these roles may not fight now."""
    for pair in config.fight_pairs:
        if pair.everyone_fights_only and not everyone_fights:
            continue
        rounds = _match(pair, role_a, role_b)
        if rounds:
            return rounds
    return None


def _match(pair: FightPair, a: str, b: str) -> tuple[int, int] | None:
    if pair.roles == (a, b):
        return pair.rounds
    if pair.roles == (b, a):
        return pair.rounds[1], pair.rounds[0]
    return None


def fight(turn: Turn, cmd: dict) -> None:
    """Record a fight's outcome: tokens from loser to winner, then both cooldowns (R18-R20)."""
    config, state = turn.config, turn.state
    attacker, defender = two_teams(turn, cmd, "attacker_team", "defender_team")
    a_card, d_card = card(turn, cmd, attacker, "attacker_card"), card(turn, cmd, defender, "defender_card")
    a_role, d_role = role_of(turn, a_card), role_of(turn, d_card)
    everyone = bool(state.options.get("everyone_fights"))
    if not a_role.pirate and not everyone:
        raise RuleError("only_pirates_attack", f"only a pirate may start a fight; {a_card} may fight only under the 'everyone fights' option (R18)")
    rounds = rounds_to_win(config, a_role.id, d_role.id, everyone)
    if rounds is None:
        raise RuleError("no_such_fight", f"a {a_role.id} and a {d_role.id} do not fight under the current rules (R18)")
    check_not_cooling_down(turn, attacker, a_card)
    check_not_cooling_down(turn, defender, d_card)
    winner_side = fields.choice(cmd, "winner", ["attacker", "defender"], "side")
    sides = {"attacker": (attacker, a_card, a_role), "defender": (defender, d_card, d_role)}
    loser_side = "defender" if winner_side == "attacker" else "attacker"
    (w_team, w_card, w_role), (l_team, l_card, l_role) = sides[winner_side], sides[loser_side]
    tokens = fields.amounts(cmd, "tokens", list(config.resources), allow_empty=True)
    if tokens and l_role.pirate and not config.losing_pirate_gives_tokens:
        raise RuleError("losing_pirate_keeps_tokens", "when a pirate loses, no tokens move (R20; config fights.losing_pirate_gives_tokens); record the fight with no tokens")
    _move_tokens(turn, l_team, w_team, tokens)
    turn.emit({"type": "fight", "attacker_team": attacker, "attacker_card": a_card, "defender_team": defender,
               "defender_card": d_card, "winner": winner_side, "rounds": list(rounds), "tokens": tokens})
    rules = config.cooldowns["everyone_fights" if everyone else "base"]
    for team, card_id, role, won in ((w_team, w_card, w_role, True), (l_team, l_card, l_role, False)):
        seconds = _cooldown_seconds(rules, role.pirate, won)
        if seconds:
            turn.emit({"type": "cooldown", "team": team, "card": card_id, "seconds": seconds, "until": round(turn.clock + seconds, 3)})


def _cooldown_seconds(rules, is_pirate: bool, won: bool) -> int:
    """Seconds before a fighter may play again (R19)."""
    if is_pirate:
        return rules.pirate_wins if won else rules.pirate_loses
    return rules.other_wins if won else rules.other_loses


def _move_tokens(turn: Turn, loser: str, winner: str, tokens: dict) -> None:
    """The referee counts what the loser carries; it cannot exceed the team's stock (R20)."""
    require_tokens(turn, loser, tokens, "the referee counted")
    for resource, n in tokens.items():
        turn.transfer(team_account(loser), team_account(winner), resource, n, "fight")
