"""Properties over random games: conservation, no negative balance, reputation = its entries, replay = live."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bank.errors import BankError
from play import Game

CONFIG = Game(start=False).config
TEAMS = list(CONFIG.teams)
RESOURCES = list(CONFIG.resources)
PLAIN = [r for r in RESOURCES if r != CONFIG.joker]
CARDS = CONFIG.cards(("pirate-2",))

team = st.sampled_from(TEAMS)
tokens = st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 8), max_size=3)
plain_tokens = st.dictionaries(st.sampled_from(PLAIN), st.integers(0, 12), max_size=3)
pair = st.permutations(TEAMS).map(lambda teams: teams[:2])
ten_of_one = st.sampled_from(PLAIN).map(lambda r: {r: 10})
pirate = st.sampled_from(["pirate-1", "pirate-1", "pirate-2", "harvester-1", "builder-1"])

commands = st.one_of(
    st.fixed_dictionaries({"type": st.just("harvest"), "team": team, "card": st.sampled_from(CARDS), "resource": st.sampled_from(RESOURCES)}),
    st.fixed_dictionaries({"type": st.just("build"), "team": team, "building": st.sampled_from(list(CONFIG.buildings))}),
    st.fixed_dictionaries({"type": st.just("buy_animal"), "team": team, "animal": st.sampled_from(list(CONFIG.animals))}),
    st.fixed_dictionaries({"type": st.just("raise_tracks"), "team": team,
                           "steps": st.dictionaries(st.sampled_from(list(CONFIG.tracks)), st.integers(1, 3), min_size=1, max_size=2)}),
    st.fixed_dictionaries({"type": st.just("redeem_jokers"), "team": team, "jokers": st.integers(1, 3)}),
    st.fixed_dictionaries({"type": st.just("exchange"), "team": team, "tokens": st.one_of(plain_tokens, ten_of_one)}),
    pair.flatmap(lambda p: st.fixed_dictionaries({"type": st.just("trade"), "merchant_team": st.just(p[0]), "visited_team": st.just(p[1]),
                                                  "kind": st.sampled_from(["free", "forced"]), "give": tokens, "take": tokens})),
    pair.flatmap(lambda p: st.fixed_dictionaries({"type": st.just("fight"), "attacker_team": st.just(p[0]), "attacker_card": pirate,
                                                  "defender_team": st.just(p[1]), "defender_card": st.sampled_from(CARDS),
                                                  "winner": st.sampled_from(["attacker", "defender"]),
                                                  "tokens": st.one_of(st.just({}), tokens)})),
    st.fixed_dictionaries({"type": st.just("award"), "team": team, "points": st.integers(-5, 5), "reason": st.just("test")}),
    st.fixed_dictionaries({"type": st.just("inventory"), "team": team, "counted": plain_tokens}),
    st.fixed_dictionaries({"type": st.just("refill"), "resource": st.sampled_from(RESOURCES), "amount": st.integers(1, 20)}),
    st.fixed_dictionaries({"type": st.just("set_option"), "option": st.sampled_from(["team_bonus", "everyone_fights", "second_pirate"]),
                           "value": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("buy_second_pirate"), "team": team}),
    st.fixed_dictionaries({"type": st.just("set_rate"), "tokens": st.integers(1, 12), "points": st.integers(1, 3)}),
    st.fixed_dictionaries({"type": st.just("open_event"), "title": st.just("Drought"), "accepts": st.lists(st.sampled_from(PLAIN), max_size=2),
                           "rewards": st.just([{"points": 3}, {"jokers": 1}])}),
    st.fixed_dictionaries({"type": st.just("contribute"), "event": st.sampled_from(["ev1", "ev2"]), "team": team, "tokens": tokens}),
    st.fixed_dictionaries({"type": st.just("close_event"), "event": st.sampled_from(["ev1", "ev2"])}),
    st.fixed_dictionaries({"type": st.just("reverse"), "seq": st.integers(1, 80), "reason": st.just("mistake")}),
    st.fixed_dictionaries({"type": st.sampled_from(["pause", "resume", "resume", "resume", "tick", "end_session"])}),
)
steps = st.lists(st.tuples(commands, st.floats(0, 120), st.lists(st.sampled_from(CONFIG.dice_faces), max_size=12)), max_size=60)


def reputation_from_entries(game) -> dict:
    totals = {t: 0 for t in TEAMS}
    for row in game.rows:
        for event in row["events"]:
            if event["type"] == "reputation":
                totals[event["team"]] += event["points"]
    return totals



def rich_game(tracks_open: bool) -> Game:
    """Rich teams, so that purchases, trades and fights happen, not only refusals; the tracks at the animals'
    level when `tracks_open`."""
    g = Game()
    for t in TEAMS:
        g.give(t, joker=10, **{r: 30 for r in PLAIN})
    if tracks_open:
        g.set_tracks(**{t: CONFIG.animal_unlock_level for t in CONFIG.tracks})
    return g

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps, st.booleans())
def test_random_games_keep_every_invariant(plan, tracks_open):
    g = rich_game(tracks_open)
    for command, wait, faces in plan:
        g.wait(wait)
        g.dice = list(faces)
        before = g.state.copy()
        rows = len(g.rows)
        try:
            g.do(**command)
        except BankError:
            assert g.state == before, f"a refused {command['type']} changed the state"
            assert len(g.rows) == rows
        assert g.problems() == [], (command, g.problems())
    assert reputation_from_entries(g) == g.state.reputation
    assert g.replay() == g.state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plan=steps)
def test_random_games_through_the_durable_bank_reopen_to_the_live_state(plan, tmp_path_factory):
    """The SQLite journal folds back to exactly the live state, and verify() finds nothing."""
    from bank.services.bank import Bank

    path = tmp_path_factory.mktemp("prop") / "game.db"
    bank = Bank.create(path, CONFIG)
    now = 1_000_000.0
    bank.execute({"id": "start", "type": "start_clock"}, now=now)
    for t in TEAMS:
        bank.execute({"id": f"rich-{t}", "type": "inventory", "team": t, "counted": {r: 30 for r in RESOURCES}}, now=now)
    for i, (command, wait, _faces) in enumerate(plan):
        now += wait
        try:
            bank.execute({"id": f"c{i}", **command}, now=now)
        except BankError:
            pass
    live = bank.state
    assert bank.verify() == []
    bank.close()
    reopened = Bank.open(path, CONFIG)
    assert reopened.state == live
    reopened.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps, st.booleans())
def test_what_each_team_can_afford_is_what_a_fresh_look_finds_after_every_command(plan, tracks_open):
    """views.affordable keeps its last list per team while its inputs are the same (the live pages' rounds make
    every team's picture each time): after any command, for every team, the kept list is what the rules say now
    (R21-R23, R26, R28, R29): a unique animal another team bought, a building's discount, a track opening animals."""
    from bank.game import views

    g = rich_game(tracks_open)
    for command, wait, faces in plan:
        g.wait(wait)
        g.dice = list(faces)
        try:
            g.do(**command)
        except BankError:
            pass
        for t in TEAMS:
            assert views.affordable(g.state, CONFIG, t, 0.0) == views._affordable(g.state, CONFIG, t, 0.0), (command, t)


def test_a_unique_animal_bought_by_one_team_leaves_the_others_list_at_once():
    """R29: the fox is unique; once blue owns it, yellow's list no longer offers it, though nothing of yellow's
    own (stock, buildings, animals) changed: the kept list follows every team's animals."""
    from bank.game import views

    g = Game()
    for t in TEAMS:
        g.give(t, joker=10, **{r: 30 for r in PLAIN})
    g.set_tracks(**{t: CONFIG.animal_unlock_level for t in CONFIG.tracks})
    offered = lambda team: {(i["kind"], i["id"]) for i in views.affordable(g.state, CONFIG, team, 0.0)}  # noqa: E731
    assert ("animal", "fox") in offered("yellow")
    g.do(type="buy_animal", team="blue", animal="fox")
    assert ("animal", "fox") not in offered("yellow")
