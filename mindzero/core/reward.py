"""The self-supervised (SSRL) reward of MindZero, paper Eq. 3–4, domain-independent.

    R(q) = Σ_i q_i [log P(a_1:t | m_i, s_1:t) + log P(m_i)] + λ · H(q),   H(q) = −Σ_i q_i log q_i

It is the evidence lower bound: R(q) ≤ log P(a_1:t) with equality at the exact posterior, so the
exact posterior's hypotheses score at least as high as any other q over the same support.
A malformed output gets :func:`failure_reward`, strictly below the worst valid reward for the same
prompt: R is linear in q plus H ≥ 0, so its minimum over the simplex is a vertex,
min_m [log P(a | m) + log P(m)] (with λ ≥ 0); the failure reward sits ``margin`` below that.

Sums run in plain Python: a completion carries a handful of particles, where each numpy call
would cost more than the arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import log
from operator import add, mul


@dataclass(frozen=True)
class RewardConfig:
    """Switches of the paper's Table 2 ablations and the failure margin."""

    use_prior: bool = field(default=True, metadata={"help": "include log P(m) (ablation: no prior)"})
    entropy_weight: float = field(default=1.0, metadata={"help": "λ on H(q) (ablation: 0 = no entropy bonus)"})
    single_hypothesis: bool = field(
        default=False, metadata={"help": "score only the most probable particle, q = 1 (ablation)"}
    )
    failure_margin: float = field(default=1.0, metadata={"help": "failure reward = worst valid reward − margin"})


def entropy(q: Sequence[float]) -> float:
    """H(q) = −Σ q log q in nats (0 log 0 = 0)."""
    try:
        return -sum(map(mul, q, map(log, q)))  # the usual case, every q > 0: no per-item test
    except ValueError:  # log of a zero weight
        return -sum([x * log(x) for x in q if x > 0])


def ssrl_reward(
    q: Sequence[float],
    loglik: Sequence[float],
    logprior: Sequence[float],
    config: RewardConfig = RewardConfig(),
    q_entropy: float | None = None,
) -> float:
    """R(q) for particles with weights ``q`` (sum 1), log-likelihoods and log-priors (nats);
    ``q_entropy``: H(q), when the caller has it already."""
    if config.single_hypothesis:
        best = max(range(len(q)), key=q.__getitem__)  # first on ties
        q, loglik, logprior, q_entropy = [1.0], [loglik[best]], [logprior[best]], 0.0
    if len(loglik) != len(q) or (config.use_prior and len(logprior) != len(q)):
        raise ValueError(f"{len(q)} weights need as many log-likelihoods (got {len(loglik)}) and log-priors")
    value = sum(map(mul, q, map(add, loglik, logprior) if config.use_prior else loglik))
    if config.entropy_weight:
        value += config.entropy_weight * (entropy(q) if q_entropy is None else q_entropy)
    return float(value)


def failure_reward(
    all_loglik: Sequence[float], all_logprior: Sequence[float], config: RewardConfig = RewardConfig()
) -> float:
    """Reward of a malformed output: ``margin`` below the worst valid reward for this prompt.

    ``all_loglik``/``all_logprior`` cover the whole hypothesis space of the prompt."""
    if config.use_prior:
        worst = min(ll + lp for ll, lp in zip(all_loglik, all_logprior, strict=True))
    else:
        worst = min(all_loglik)
    return float(worst) - config.failure_margin
