"""Household's goal score (paper Fig. 5b): the online goal F1 of Watch-And-Help, which compares a
posterior's goals with the true one as predicate counts, averaged over the posterior."""

from __future__ import annotations

from mindzero.core.posterior import Posterior
from mindzero.envs.household.world import Goal


def goal_f1(predicted: Goal, true: Goal) -> float:
    """F1 of two goals as multisets of predicates (class, target) with counts."""
    p = {(c, predicted[1]): n for c, n in predicted[2]}
    t = {(c, true[1]): n for c, n in true[2]}
    hit = sum(min(n, t.get(k, 0)) for k, n in p.items())
    if not hit:
        return 0.0
    precision, recall = hit / sum(p.values()), hit / sum(t.values())
    return 2 * precision * recall / (precision + recall)


def expected_f1(posterior: Posterior, true: Goal) -> float:
    return float(sum(q * goal_f1(g, true) for g, q in zip(posterior.hypotheses, posterior.probs)))
