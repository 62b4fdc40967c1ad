"""Posterior construction: merging duplicate hypotheses, normalising, rejecting empty mass."""

from __future__ import annotations

import numpy as np
import pytest

from mindzero.core.posterior import Posterior, merge_weights


def test_merge_weights_sums_duplicates_in_first_seen_order():
    hypotheses, probs = merge_weights([(1, 2), (0, 1), (1, 2)], [1, 2, 1])
    assert hypotheses == ((1, 2), (0, 1))
    assert probs == pytest.approx([0.5, 0.5])


@pytest.mark.parametrize("weights", [[0.0, 0.0], [float("nan"), 1.0]])
def test_merge_weights_rejects_no_mass(weights):
    with pytest.raises(ValueError):
        merge_weights(["a", "b"], weights)


def test_from_weights_is_a_valid_posterior():
    post = Posterior.from_weights(["a", "b", "a"], [0.2, 0.6, 0.2])
    assert post.hypotheses == ("a", "b")
    np.testing.assert_allclose(post.probs, [0.4, 0.6])
    assert post.map() == "b" and post.prob("a") == pytest.approx(0.4) and post.prob("c") == 0.0
    np.testing.assert_allclose(post.dense(["c", "b", "a"]), [0.0, 0.6, 0.4])
