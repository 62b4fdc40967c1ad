"""Best-of-N, weighted BoN, majority vote and beam search with the oracle verifier and a synthetic
policy of known quality: the paper's qualitative claims hold as seeded, deterministic tests."""

from __future__ import annotations

import random

import pytest

from mindzero.inference.belief_search import (
    OracleVerifier,
    ScoredTrace,
    SyntheticPolicy,
    aggregate,
    beam_search,
    bon_accuracy,
    score_pool,
    select,
    trace_answer,
)
from mindzero.stories.traces import render_gold_trace


def _curve(questions, policy, ns=(1, 2, 4, 8, 16), trials=30, seed=0) -> dict[str, list[float]]:
    pools = score_pool(OracleVerifier(), questions, policy.sample(questions, max(ns), seed))
    rng = random.Random(seed)
    out: dict[str, list[float]] = {}
    for n in ns:
        accs = [bon_accuracy(p, q.answer, n, trials, rng) for p, q in zip(pools, questions)]
        for name in accs[0]:
            out.setdefault(name, []).append(sum(a[name] for a in accs) / len(accs))
    return out


def test_aggregations() -> None:
    s = [0.9, 0.2, 0.8]
    assert aggregate(s, "last") == 0.8 and aggregate(s, "min") == 0.2
    assert aggregate(s, "avg") == pytest.approx(19 / 30) and aggregate(s, "prod") == pytest.approx(0.144)
    assert all(aggregate([], how) == 0.0 for how in ("last", "min", "avg", "prod"))


def test_selection_rules() -> None:
    t = [
        ScoredTrace("", "a", (0.9, 0.1)),
        ScoredTrace("", "b", (0.6, 0.6)),
        ScoredTrace("", "b", (0.5, 0.5)),
        ScoredTrace("", "a", (0.2, 0.2)),
        ScoredTrace("", None, (1.0, 1.0)),
    ]
    assert select(t[:4], "vanilla", "last") == "b"  # 0.6 beats the others' last step
    assert select(t[:4], "vanilla", "avg") == "b"
    assert select(t, "vanilla", "min") is None  # the best trace gave no answer
    assert select(t, "weighted", "min") == "b"  # 0.6 + 0.5 against 0.1 + 0.2; None abstains
    assert select(t, "majority") == "a"  # 2-2 tie: the first answer seen wins
    assert select([ScoredTrace("", None, ())], "majority") is None
    assert select([], "vanilla") is None and select([], "weighted") is None


def test_bon_with_min_and_prod_rises_with_n(questions) -> None:
    curve = _curve(questions, SyntheticPolicy(error_rate=0.6, cluster=0.5))
    for name in ("vanilla-min", "vanilla-prod", "weighted-min", "weighted-prod"):
        c = curve[name]
        assert all(b >= a - 1e-9 for a, b in zip(c, c[1:])), (name, c)
        assert c[-1] > c[0] + 0.3, (name, c)
    assert curve["weighted-min"][-1] > 0.95


def test_majority_vote_dilution_when_wrong_traces_cluster(questions) -> None:
    curve = _curve(questions, SyntheticPolicy(error_rate=0.7, cluster=0.9))
    assert curve["majority"][-1] < curve["majority"][0] - 0.1, curve["majority"]  # more votes, worse
    assert curve["weighted-min"][-1] > 0.9
    assert curve["weighted-avg"][-1] < curve["weighted-min"][-1] - 0.2  # avg overlooks early errors


def test_oracle_scores_gold_and_bad_traces_without_raising(questions) -> None:
    q = questions[3]
    gold = render_gold_trace(q.events, q.question, q.labels)
    bad = ["", "Final Answer: [x]", "\x00garbage ## Step ## [[", "## Step 1 ##\n[no_such_box]", None, 17]
    scores = OracleVerifier().score([q] * (1 + len(bad)), [gold, *bad])
    assert scores[0] == [1.0] * len(q.labels)
    assert scores[1:3] == [[], []] and all(all(x == 0.0 for x in s) for s in scores[1:])
    assert trace_answer(gold) == q.answer and trace_answer(None) is None


def test_beam_search_with_oracle(questions) -> None:
    qs = questions[:15]
    exact = beam_search(SyntheticPolicy(error_rate=0.0), OracleVerifier(), qs, k=2, b=2)
    assert [t.answer for t in exact] == [q.answer for q in qs] and all(all(t.step_scores) for t in exact)
    noisy = SyntheticPolicy(error_rate=0.5)
    beams = beam_search(noisy, OracleVerifier(), qs, k=2, b=4, seed=1)
    one = beam_search(noisy, OracleVerifier(), qs, k=1, b=1, seed=1)
    acc = lambda ts: sum(t.answer == q.answer for t, q in zip(ts, qs)) / len(qs)  # noqa: E731
    assert acc(beams) > acc(one) + 0.3
