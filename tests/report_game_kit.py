"""Games the end-of-game report must tell whole: 2 to 6 teams with long, accented, emoji names,
corrections whose reasons run long, a batch typed in from the paper ledgers with duplicates
undone, and the measures of the report's pages a parent reads (tests/printables/test_report_parent.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st
from print_names_kit import GAME_DAY_NAMES

T0 = 1_800_000_000.0
LONG_REASONS = [
    "un jeton trouvé sous la table de la banque par l'arbitre du terrain nord, rendu à l'équipe après vérification 🌱",
    "tokens counted again at the base after the storm: two bowls had been swapped by the wind, the referee saw it",
    "aide à une autre équipe",
    "Ève a rapporté la carte perdue — merci ✨ — et l'équipe a aidé à ranger le matériel de tous les ateliers du "
    "village avant la pluie",
]
PAPER_UNDO_REASON = "doublon : ligne du registre papier saisie deux fois"


@dataclass
class Plan:
    """What a generated game does; `names` are (fr, en) pairs, one per team."""

    names: list
    reasons: list                 # one award per reason, to teams in turn
    inventory_reason: str
    paper_moves: int              # harvests typed in from the paper ledgers after an outage
    paper_undone: int             # of those, the duplicates undone afterwards
    lang: str
    tie: bool = False             # every team ends level: the winner line names them all
    undo_reason: str = PAPER_UNDO_REASON
    seqs: dict = field(default_factory=dict)


@st.composite
def plans(draw) -> Plan:
    n = draw(st.integers(2, 6))
    names = draw(st.permutations(GAME_DAY_NAMES))[:n]
    reasons = draw(st.lists(st.sampled_from(LONG_REASONS), min_size=1, max_size=4))
    paper = draw(st.integers(1, 12))
    return Plan(names=names, reasons=reasons, inventory_reason=draw(st.sampled_from(LONG_REASONS)),
                paper_moves=paper, paper_undone=draw(st.integers(0, min(2, paper))), lang=draw(st.sampled_from(["fr", "en"])),
                tie=draw(st.booleans()))


def play(bank, config, plan: Plan) -> None:
    """The plan on a created bank, ended by the lead; `plan.seqs` gets what was booked."""
    teams = list(config.teams)
    ids = iter(range(1, 10_000))

    def do(minute: float, prefix: str = "c", **command):
        return bank.execute({"id": f"{prefix}{next(ids)}", **command}, now=T0 + minute * 60)

    do(0, type="start_clock")
    do(1, type="inventory", team=teams[0], counted={"water": 30}, reason=plan.inventory_reason)
    for i, reason in enumerate(plan.reasons):
        do(2 + i, type="award", team=teams[i % len(teams)], points=2 + i, reason=reason)
    do(8, type="inventory", team=teams[-1], counted={"flora": 40})
    do(9, type="raise_tracks", team=teams[-1], steps={"phytosphere": 2})
    paper = [do(20, prefix="paper:m", type="harvest", team=teams[i % len(teams)], card=f"harvester-{1 + i % 2}",
                resource="water", actor="lead") for i in range(plan.paper_moves)]
    for row in paper[:plan.paper_undone]:
        do(21, type="reverse", seq=row.seq, reason=plan.undo_reason, actor="lead")
    plan.seqs["paper"] = [row.seq for row in paper]
    if plan.tie:
        best = max(bank.state.reputation.values())
        for team in teams:
            if bank.state.reputation[team] < best:
                do(25, type="award", team=team, points=best - bank.state.reputation[team], reason="fair play")
    do(30, type="end_game")
