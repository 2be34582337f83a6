"""Facilitators' events: open, contribute, close with ranked rewards (R33)."""


from play import Game, refused

REWARDS = [{"points": 5}, {"jokers": 2}, {"points": 1}]



def open_event(g, accepts=("flora",), rewards=REWARDS, **extra):
    """Open an event and return its id."""
    events = g.do(type="open_event", title="Flora drive", accepts=list(accepts), rewards=rewards, **extra)
    return events[0]["event"]


def give(g, event, team, **tokens):
    """A team contributes tokens (put in its box first) to an event."""
    g.give(team, **tokens)
    return g.do(type="contribute", event=event, team=team, tokens=tokens)


def test_r33_open_event_records_its_terms():
    g = Game()
    g.wait(60)
    event = open_event(g, accepts=["flora", "water"], target=20, deadline_minutes=10)
    assert g.state.events[event] == {
        "title": "Flora drive", "accepts": ["water", "flora"], "target": 20, "deadline": 660.0,
        "rewards": REWARDS, "given": {}, "status": "open", "ranking": None}


def test_r33_events_get_distinct_ids():
    g = Game()
    assert [open_event(g), open_event(g)] == ["ev1", "ev2"]


def test_r33_open_event_without_rewards_refused():
    g = Game()
    refused(g, "bad_rewards", "rewards", type="open_event", title="Drought", accepts=[], rewards=[])


def test_r33_open_event_accepting_jokers_refused():
    """A joker always stands in; listing it as an accepted kind is a mistake."""
    g = Game()
    refused(g, "unknown_resource", "accepts", "water", type="open_event", title="Drought", accepts=["joker"],
            rewards=REWARDS)


def test_r33_contribution_moves_tokens_into_the_pot():
    g = Game()
    event = open_event(g)
    give(g, event, "blue", flora=3)
    assert g.stock("blue") == {"water": 5}
    assert g.state.balances[f"event:{event}"] == {"flora": 3}
    assert g.state.events[event]["given"] == {"blue": 3}


def test_r33_contributions_add_up():
    g = Game()
    event = open_event(g)
    give(g, event, "blue", flora=3)
    give(g, event, "blue", flora=2)
    assert g.state.events[event]["given"] == {"blue": 5}


def test_r33_kind_not_accepted_refused():
    g = Game()
    event = open_event(g)
    err = refused(g, "resource_not_accepted", "water", "flora", type="contribute", event=event, team="blue",
                  tokens={"water": 2})
    assert err.params["refused"] == ["water"]


def test_r33_jokers_stand_in_for_an_accepted_kind():
    g = Game()
    event = open_event(g)
    give(g, event, "red", joker=2, flora=1)
    assert g.state.events[event]["given"] == {"red": 3}
    assert g.state.balances[f"event:{event}"] == {"joker": 2, "flora": 1}


def test_r33_an_event_with_no_kinds_listed_accepts_any():
    g = Game()
    event = open_event(g, accepts=[])
    g.do(type="contribute", event=event, team="blue", tokens={"water": 2})
    give(g, event, "blue", fauna=1, energy=1)
    assert g.state.events[event]["given"] == {"blue": 4}


def test_r33_contributing_tokens_not_held_refused():
    g = Game()
    event = open_event(g)
    refused(g, "not_enough_tokens", "blue", "missing 2 flora", type="contribute", event=event, team="blue",
            tokens={"flora": 2})


def test_r33_contributing_to_an_unknown_event_refused():
    g = Game()
    open_event(g)
    refused(g, "unknown_event", "ev9", "ev1", type="contribute", event="ev9", team="blue", tokens={"water": 1})


def test_r33_ranking_by_tokens_given_with_rewards_by_rank():
    g = Game()
    event = open_event(g)
    give(g, event, "red", flora=2)
    give(g, event, "blue", flora=6)
    give(g, event, "yellow", flora=4)
    g.do(type="close_event", event=event)
    ranking = g.state.events[event]["ranking"]
    assert [(e["team"], e["given"], e["rank"], e["reward"]) for e in ranking] == [
        ("blue", 6, 1, {"points": 5}), ("yellow", 4, 2, {"jokers": 2}), ("red", 2, 3, {"points": 1})]
    assert (g.rep("blue"), g.rep("yellow"), g.rep("red")) == (5, 0, 1)
    assert g.stock("yellow") == {"energy": 5, "joker": 2}


def test_r33_equal_givers_share_a_rank_and_the_next_rank_is_skipped():
    """Ranks 1, 1, 3: both first teams get the first reward, the third gets the third."""
    g = Game()
    event = open_event(g)
    give(g, event, "blue", flora=4)
    give(g, event, "red", flora=4)
    give(g, event, "green", flora=1)
    g.do(type="close_event", event=event)
    ranks = {e["team"]: e["rank"] for e in g.state.events[event]["ranking"]}
    assert ranks == {"blue": 1, "red": 1, "green": 3}
    assert (g.rep("blue"), g.rep("red"), g.rep("green")) == (5, 5, 1)
    assert "joker" not in g.stock("blue") and "joker" not in g.stock("red") and "joker" not in g.stock("green")


def test_r33_joker_rewards_come_from_the_reserve():
    g = Game()
    event = open_event(g, rewards=[{"jokers": 3}])
    give(g, event, "blue", flora=1)
    reserve = g.state.balance("reserve", "joker")
    g.do(type="close_event", event=event)
    assert g.stock("blue")["joker"] == 3
    assert g.state.balance("reserve", "joker") == reserve - 3


def test_r33_ranks_beyond_the_rewards_get_nothing():
    g = Game()
    event = open_event(g, rewards=[{"points": 5}])
    give(g, event, "blue", flora=3)
    give(g, event, "red", flora=1)
    g.do(type="close_event", event=event)
    assert (g.rep("blue"), g.rep("red")) == (5, 0)
    assert g.state.events[event]["ranking"][1]["reward"] == {}


def test_r33_teams_that_gave_nothing_get_nothing():
    g = Game()
    event = open_event(g)
    give(g, event, "blue", flora=3)
    before = g.stock("yellow")
    g.do(type="close_event", event=event)
    assert [e["team"] for e in g.state.events[event]["ranking"]] == ["blue"]
    assert g.rep("yellow") == 0 and g.stock("yellow") == before


def test_r33_the_pot_returns_to_the_reserve_at_closing():
    g = Game()
    event = open_event(g)
    reserve = g.state.balances["reserve"].copy()
    give(g, event, "blue", flora=3, joker=1)
    g.do(type="close_event", event=event)
    assert g.state.balances.get(f"event:{event}", {}) == {}
    assert g.state.balances["reserve"] == reserve


def test_r33_deadline_closes_the_event_on_tick():
    g = Game()
    event = open_event(g, deadline_minutes=10)
    give(g, event, "blue", flora=2)
    g.wait(599)
    g.tick()
    assert g.state.events[event]["status"] == "open"
    g.wait(1)
    events = g.tick()
    assert g.state.events[event]["status"] == "closed"
    assert {"type": "reputation", "team": "blue", "points": 5, "reason": f"event:{event}"} in events


def test_r33_deadline_counts_game_time_not_pauses():
    g = Game()
    event = open_event(g, deadline_minutes=10)
    g.wait(300)
    g.do(type="pause")
    g.wait(3600)
    g.tick()
    g.do(type="resume")
    g.tick()
    assert g.state.events[event]["status"] == "open"
    g.wait(300)
    g.tick()
    assert g.state.events[event]["status"] == "closed"


def test_r33_a_late_tick_keeps_an_event_whose_deadline_falls_in_the_next_session():
    """Game time stops at the session's end: a deadline 50 s later is 50 s into session 2."""
    g = Game()
    g.wait(90 * 60 - 10 * 60)
    event = open_event(g, deadline_minutes=10 + 1)
    g.wait(20 * 60)
    g.tick()
    assert g.state.clock["session_over"] and g.state.events[event]["status"] == "open"
    g.do(type="resume")
    g.wait(59)
    g.tick()
    assert g.state.events[event]["status"] == "open"
    g.wait(1)
    g.tick()
    assert g.state.events[event]["status"] == "closed"


def test_r33_closed_event_refuses_contributions():
    g = Game()
    event = open_event(g)
    g.do(type="close_event", event=event)
    g.give("blue", flora=1)
    refused(g, "event_closed", "Flora drive", "closed", type="contribute", event=event, team="blue",
            tokens={"flora": 1})


def test_r33_closing_twice_refused():
    g = Game()
    event = open_event(g)
    g.do(type="close_event", event=event)
    refused(g, "event_closed", "already closed", type="close_event", event=event)


def test_r33_events_keep_the_invariants_and_replay():
    g = Game()
    first = open_event(g)
    second = open_event(g, accepts=[], rewards=[{"jokers": 1}], deadline_minutes=1)
    give(g, first, "blue", flora=2, joker=1)
    give(g, first, "red", flora=3)
    g.do(type="contribute", event=second, team="yellow", tokens={"energy": 4})
    g.do(type="close_event", event=first)
    g.wait(60)
    g.tick()
    assert g.state.events[second]["status"] == "closed"
    assert g.problems() == []
    assert g.replay() == g.state


def test_r33_board_shows_open_events_and_only_the_latest_closed_ones():
    """Every page gets the board on every command: a long game's closed events stay out of it."""
    from bank.game.views import RECENT_CLOSED_EVENTS, board

    g = Game()
    g.wait(60)
    ids = [open_event(g) for _ in range(RECENT_CLOSED_EVENTS + 4)]
    still_open = ids[2]
    for event in ids:
        if event != still_open:
            g.do(type="close_event", event=event)
    shown = board(g.state, g.config, g.now)["events"]
    closed = [e for e in ids if e != still_open]
    assert list(shown) == sorted([still_open, *closed[-RECENT_CLOSED_EVENTS:]], key=ids.index)
    assert shown[still_open]["status"] == "open"
    assert len(g.state.events) == len(ids)  # the game keeps them all (report, exports)
