"""Hypothesis posts arbitrary JSON commands as the lead: never a 500, always a sentence, refusals change nothing.

Bounded for CI (max_examples); `bench/web/field/fuzz_api.py --examples 20000` is the long run.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_kit import Fuzzer, commands


@pytest.fixture(scope="module")
def fuzzer():
    f = Fuzzer()
    yield f
    f.close()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=commands)
def test_any_json_command_gets_a_clear_answer_and_refusals_change_nothing(fuzzer, command):
    fuzzer.check(command)


@pytest.mark.slow  # it reads what the fuzzing test above found (the module's fuzzer): selected with it
def test_the_fuzzer_reaches_every_kind_of_answer(fuzzer):
    """Not only refusals: some random commands must have been booked, and some refused by the rules."""
    assert fuzzer.statuses.get(200, 0) > 0 and fuzzer.statuses.get(400, 0) > 0 and fuzzer.statuses.get(409, 0) > 0, fuzzer.statuses
