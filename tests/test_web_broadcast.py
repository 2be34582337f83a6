"""Live updates when several consoles book at once: newest picture last, every journal entry once."""

import threading

from bank.web.extensions import socketio

TEAMS = ("blue", "yellow", "red", "green")


def _book_together(web, per_console: int = 8) -> None:
    """Three consoles harvesting at the same moment, one team each (and the fourth by all)."""
    consoles = [web("lead") for _ in range(3)]
    start = threading.Barrier(3)

    def work(console, team):
        start.wait()
        for i in range(per_console):
            reply = console.command(type="harvest", team=team if i % 2 else "green", card="harvester-1",
                                    resource="water")
            assert reply.status_code == 200, reply.get_json()

    threads = [threading.Thread(target=work, args=(c, t)) for c, t in zip(consoles, TEAMS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)


def test_phones_end_on_the_newest_stock_when_three_consoles_book_at_once(app, web, tokens):
    web("lead").command(type="start_clock")
    phones = {team: socketio.test_client(app, auth={"team": tokens[team]}) for team in TEAMS}
    for phone in phones.values():
        phone.get_received()
    _book_together(web)
    bank = app.extensions["terrabank"].bank
    for team, phone in phones.items():
        updates = [m["args"][0] for m in phone.get_received() if m["name"] == "team"]
        seqs = [u["seq"] for u in updates]
        assert seqs == sorted(seqs), f"{team}'s phone got an older picture after a newer one: {seqs}"
        assert seqs[-1] == bank.last_seq
        assert updates[-1]["view"]["stock"]["water"] == bank.state.balance(f"team:{team}", "water")


def test_the_console_gets_every_journal_entry_once_when_commands_arrive_together(app, web):
    lead = web("lead")
    console = socketio.test_client(app, flask_test_client=lead.client)
    console.get_received()
    lead.command(type="start_clock")
    _book_together(web)
    rows = [row["seq"] for m in console.get_received() if m["name"] == "journal" for row in m["args"][0]["rows"]]
    last = app.extensions["terrabank"].bank.last_seq
    assert rows == list(range(rows[0], last + 1))
