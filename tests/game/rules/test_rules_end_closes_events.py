"""The end of the game closes open events and pays their rewards (R33, R35 Decision)."""

from play import Game

REWARDS = [{"points": 5}, {"jokers": 2}]


def _event_with_gifts(g: Game) -> str:
    event = g.do(type="open_event", title="Flora drive", accepts=["flora"], rewards=REWARDS,
                 deadline_minutes=600)[0]["event"]
    for team, n in (("blue", 3), ("red", 1)):
        g.give(team, flora=n)
        g.do(type="contribute", event=event, team=team, tokens={"flora": n})
    return event


def test_r35_end_game_closes_open_events_and_counts_their_points():
    g = Game()
    event = _event_with_gifts(g)
    g.do(type="award", team="red", points=3, reason="fair play")
    events = g.do(type="end_game")
    kinds = [e["type"] for e in events]
    assert kinds.index("event_closed") < kinds.index("game_ended")
    assert g.state.events[event]["status"] == "closed"
    assert g.rep("blue") == 5  # the event's first prize
    # Blue's 5 points beat red's award of 3: the reward counts before the winner is named.
    assert g.state.ended["winners"] == ["blue"]
    assert f"event:{event}" not in g.state.balances or not any(g.state.balances[f"event:{event}"].values())
    assert g.problems() == []


def test_r35_time_over_closes_open_events_first():
    g = Game()
    event = _event_with_gifts(g)
    g.wait(g.config.duration_seconds + 5)
    while g.state.clock["status"] != "ended":
        g.tick()
        if g.state.clock["status"] == "paused":  # between sessions
            g.do(type="resume")
        g.wait(g.config.duration_seconds)
    assert g.state.events[event]["status"] == "closed"
    assert g.state.ended["reason"] == "time" and g.state.ended["winners"] == ["blue"]
    assert g.replay() == g.state
