"""The exchange rate's refusals say their numbers, and a change that changes nothing is refused (R32).

A rate "change" from 6 to 6 was accepted, printed in the end-of-game report and flashed on the TV;
"the number of tokens must be a multiple of the rate" did not say the rate.
"""

import pytest

from bank.errors import BankError
from bank.web.i18n import translate
from play import Game


def test_r32_a_rate_change_to_the_same_rate_is_refused_and_changes_nothing():
    g = Game()
    g.do(type="set_rate", tokens=6, points=1)
    before, entries = g.state.copy(), len(g.rows)
    with pytest.raises(BankError) as err:
        g.do(type="set_rate", tokens=6, points=1)
    assert err.value.code == "rate_unchanged" and err.value.params == {"tokens": 6, "points": 1}
    assert g.state == before and len(g.rows) == entries
    g.do(type="set_rate", tokens=6, points=2)  # a real change still books
    assert g.state.rate == {"tokens": 6, "points": 2}


def test_r32_a_refused_exchange_says_the_rate_and_what_to_give_in_french():
    g = Game()
    g.do(type="set_rate", tokens=6, points=1)
    g.give("blue", water=8)
    with pytest.raises(BankError) as err:
        g.do(type="exchange", team="blue", tokens={"water": 8})
    params = err.value.params
    assert (params["total"], params["tokens"], params["points"], params["lower"], params["upper"]) == (8, 6, 1, 6, 12)
    sentence = translate("fr", "An exchange of %(total)s is not a multiple of the rate (%(tokens)s tokens = %(points)s "
                         "reputation): give %(lower)s or %(upper)s.", **params)
    assert "(6 jetons = 1 de réputation)" in sentence and "donnez-en 6 ou 12" in sentence
