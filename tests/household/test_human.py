"""The simulated human is the likelihood: sampled frequencies match its probabilities, the true goal
never gets probability zero, invalid actions get zero."""

from __future__ import annotations

import numpy as np

from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import make_episode, sample_goal, world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman, HouseholdHumanParams
from mindzero.envs.household.world import HUMAN, NOOP_ACTION, WALK


def visited_states(name: str, seed: int, ticks: int) -> tuple:
    apt = bundled_apartment(name)
    world = world_of(apt)
    ep = make_episode(apt, seed)
    human = HouseholdHuman(world)
    rng = np.random.default_rng(seed)
    s, states = ep.initial_state(), []
    for _ in range(ticks):
        states.append(s)
        s = world.step(s, human.sample(s, ep.goal, rng), NOOP_ACTION)
    return world, human, ep, states


def test_sampled_frequencies_match_the_likelihood() -> None:
    world, human, ep, states = visited_states("apt1", 3, 30)
    rng = np.random.default_rng(0)
    n = 6000
    for s in states[::6]:
        actions, probs = human.action_probs(s, ep.goal)
        assert abs(probs.sum() - 1) < 1e-9
        counts = dict.fromkeys(actions, 0)
        for _ in range(n):
            counts[human.sample(s, ep.goal, rng)] += 1
        freq = np.array([counts[a] for a in actions]) / n
        tol = 4.5 * np.sqrt(probs * (1 - probs) / n) + 1e-3
        assert (np.abs(freq - probs) <= tol).all()
        # the scoring path gives the same numbers as the sampling path, for every action
        assert np.allclose(human.likelihoods(s, actions[0], [ep.goal]), probs[0])
        liks = np.array([human.likelihoods(s, a, [ep.goal])[0] for a in actions])
        assert np.allclose(liks, probs)


def test_true_goal_never_gets_zero_and_invalid_actions_do() -> None:
    apt = bundled_apartment("apt3")
    world = world_of(apt)
    human = HouseholdHuman(world, HouseholdHumanParams(epsilon=0.3))
    rng = np.random.default_rng(1)
    for seed in range(30):
        ep = make_episode(apt, seed)
        others = [sample_goal(apt, rng) for _ in range(5)]
        s = ep.initial_state()
        for _ in range(40):
            a = human.sample(s, ep.goal, rng)
            liks = human.likelihoods(s, a, [ep.goal, *others])
            n_valid = len(world.valid_actions(s, HUMAN))
            assert (liks >= human.epsilon / n_valid - 1e-12).all()  # every goal keeps the ε floor
            s = world.step(s, a, NOOP_ACTION)
    here = world.apartment.node_cell.index(s[1]) if s[1] in world.apartment.node_cell else None
    if here is not None:
        assert human.likelihoods(s, (WALK, here, 0), [ep.goal])[0] == 0.0  # walking where one stands


def test_planner_prefers_the_goal_direction() -> None:
    """With ε = 0 and a cold Boltzmann choice the human's first action serves its goal."""
    apt = bundled_apartment("apt0")
    world = world_of(apt)
    human = HouseholdHuman(world, HouseholdHumanParams(epsilon=0.0, tau=0.001))
    for seed in range(10):
        ep = make_episode(apt, seed)
        s = ep.initial_state()
        action = human.sample(s, ep.goal, np.random.default_rng(seed))
        assert action in human.costs(s, ep.goal)
        assert action != NOOP_ACTION


def test_household_defaults() -> None:
    assert HOUSEHOLD_HUMAN.epsilon == 0.1 and HOUSEHOLD_HUMAN.tau == 0.05
