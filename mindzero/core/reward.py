"""The self-supervised (SSRL) reward of MindZero, paper Eq. 3–4, domain-independent.

    R(q) = Σ_i q_i [log P(a_1:t | m_i, s_1:t) + log P(m_i)] + λ · H(q),   H(q) = −Σ_i q_i log q_i

It is the evidence lower bound: R(q) ≤ log P(a_1:t) with equality at the exact posterior, so the
exact posterior's hypotheses score at least as high as any other q over the same support.
A malformed output gets :func:`failure_reward`, strictly below the worst valid reward for the same
prompt: R is linear in q plus H ≥ 0, so its minimum over the simplex is a vertex,
min_m [log P(a | m) + log P(m)] (with λ ≥ 0); the failure reward sits ``margin`` below that.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class RewardConfig:
    """Switches of the paper's Table 2 ablations and the failure margin."""

    use_prior: bool = field(default=True, metadata={"help": "include log P(m) (ablation: no prior)"})
    entropy_weight: float = field(default=1.0, metadata={"help": "λ on H(q) (ablation: 0 = no entropy bonus)"})
    single_hypothesis: bool = field(
        default=False, metadata={"help": "score only the most probable particle, q = 1 (ablation)"}
    )
    failure_margin: float = field(default=1.0, metadata={"help": "failure reward = worst valid reward − margin"})


def ssrl_reward(
    q: np.ndarray, loglik: np.ndarray, logprior: np.ndarray, config: RewardConfig = RewardConfig()
) -> float:
    """R(q) for particles with weights ``q`` (sum 1), log-likelihoods and log-priors (nats)."""
    q = np.asarray(q, dtype=np.float64)
    loglik, logprior = np.asarray(loglik, dtype=np.float64), np.asarray(logprior, dtype=np.float64)
    if config.single_hypothesis:
        best = int(np.argmax(q))
        q, loglik, logprior = np.ones(1), loglik[best : best + 1], logprior[best : best + 1]
    score = loglik + logprior if config.use_prior else loglik
    value = float(q @ score)
    if config.entropy_weight:
        nz = q[q > 0]
        value -= config.entropy_weight * float(nz @ np.log(nz))
    return value


def failure_reward(
    all_loglik: np.ndarray, all_logprior: np.ndarray, config: RewardConfig = RewardConfig()
) -> float:
    """Reward of a malformed output: ``margin`` below the worst valid reward for this prompt.

    ``all_loglik``/``all_logprior`` cover the whole hypothesis space of the prompt."""
    score = np.asarray(all_loglik, dtype=np.float64)
    if config.use_prior:
        score = score + np.asarray(all_logprior, dtype=np.float64)
    return float(score.min()) - config.failure_margin
