"""The plain-Python SSRL reward equals paper Eq. 4 written with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindzero.core.reward import RewardConfig, entropy, ssrl_reward


@settings(max_examples=200, deadline=None)
@given(k=st.integers(1, 8), zeros=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_reward_matches_numpy_formula(k, zeros, seed):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(k))
    q[: min(zeros, k - 1)] = 0.0  # 0 log 0 = 0
    q /= q.sum()
    ll, lp = rng.normal(-20, 10, k), np.log(rng.dirichlet(np.ones(k)))
    nz = q[q > 0]
    expected = float(q @ (ll + lp) - nz @ np.log(nz))
    assert ssrl_reward(q.tolist(), ll.tolist(), lp.tolist()) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert entropy(q.tolist()) == pytest.approx(float(-(nz @ np.log(nz))), abs=1e-12)


def test_mismatched_lengths_raise():
    with pytest.raises(ValueError):
        ssrl_reward([0.5, 0.5], [-1.0], [-1.0, -1.0])
    with pytest.raises(ValueError):
        ssrl_reward([0.5, 0.5], [-1.0], [-1.0, -1.0], RewardConfig(use_prior=False))
