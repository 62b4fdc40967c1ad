"""Generic parse outcomes: ParseResult, the one parse-failure counter, option answers, and HumanParams."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import (
    ParseCounter,
    ParseResult,
    completion_text,
    json_candidates,
    parse_option,
)


def failure(reason: str) -> ParseResult:
    return ParseResult(False, reason=reason)


def test_parse_result_answer_and_posterior_hold_any_hashable():
    result = ParseResult(True, ("left", (1, 2), 7), (0.2, 0.5, 0.3), n_particles=3)
    assert result.answer == (1, 2)
    assert result.posterior.map() == (1, 2) and result.posterior.probs.sum() == pytest.approx(1)
    assert ParseResult(True, ("x", "y"), (0.5, 0.5)).answer == "x"  # first on ties
    bad = failure("schema: particles: missing")
    assert not bad.ok and bad.answer is None and bad.posterior is None and bad.hypotheses == ()


def test_parse_counter_counts_reasons_entropy_merge_and_pop():
    counter = ParseCounter()
    counter.add(ParseResult(True, ("a", "b"), (0.5, 0.5), entropy=float(np.log(2))))
    counter.add(ParseResult(True, ("a",), (1.0,), entropy=0.0))
    counter.add(failure("schema: particles.0.p: too big"))
    counter.add(failure("invalid JSON: EOF"))
    other = ParseCounter()
    other.n += 1
    other.add_failure("schema: x")
    other.add_failure("")  # counted as unknown, n untouched by add_failure
    merged = counter.merge(other)
    assert (merged.n, merged.failures) == (5, 4)
    assert merged.metrics()["parse_failure_reasons"] == {"invalid JSON": 1, "schema": 2, "unknown": 1}
    metrics = counter.pop()
    assert metrics["parse_failure_rate"] == pytest.approx(0.5)
    assert metrics["hypothesis_entropy"] == pytest.approx(np.log(2) / 2)  # mean over the 2 valid outputs
    assert metrics["parse_failure_reasons"] == {"invalid JSON": 1, "schema": 1}
    assert counter.pop() == {"parse_failure_rate": 0.0, "hypothesis_entropy": 0.0, "parse_failure_reasons": {}}


@pytest.mark.parametrize(
    "text, index",
    [
        ("(a)", 0),
        ("( B )", 1),
        ("Answer: b", 1),
        ("the answer is a", 0),
        ("option B.", 1),
        ("I think\nb.\n", 1),
        ("a", 0),
        ("I cannot tell", None),
        ("banana", None),
        ("", None),
        (None, None),
        (3, None),
    ],
)
def test_parse_option(text, index):
    assert parse_option(text) == index


def test_completion_text_and_json_candidates():
    assert completion_text("(a)") == "(a)"
    assert completion_text([{"role": "assistant", "content": "(b)"}]) == "(b)"
    text = 'Sure:\n```json\n{"x": 1}\n```\nbye'
    assert list(json_candidates(text)) == [text.strip(), '{"x": 1}', '{"x": 1}']
    assert list(json_candidates("no braces")) == ["no braces"]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=40), st.none(), st.integers()))
def test_parse_option_never_raises(text):
    assert parse_option(text) in (None, 0, 1)


def test_human_params_validated_and_frozen():
    human = HumanParams()
    assert dataclasses.asdict(human) == {"epsilon": 0.15, "tau": 0.01, "c": 0.1, "gamma": 0.95}
    for bad in ({"epsilon": -0.1}, {"epsilon": 1.5}, {"tau": 0.0}, {"tau": float("inf")}, {"c": 0}, {"gamma": 1.0}):
        with pytest.raises(UserError, match=next(iter(bad))):
            HumanParams(**bad)
    with pytest.raises(dataclasses.FrozenInstanceError):
        human.tau = 0.5  # type: ignore[misc]
    assert HumanParams(epsilon=0.0, tau=0.5) == HumanParams(epsilon=0.0, tau=0.5)  # hashable cache keys
    assert hash(HumanParams(tau=0.5)) == hash(HumanParams(tau=0.5))
