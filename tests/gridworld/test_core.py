"""GridWorld core: layouts, dynamics, the human model as likelihood, exact inference, helper."""

from __future__ import annotations

import numpy as np
import pytest

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.domains.gridworld.reasoners import ExactGoalInference, replay_posterior
from mindzero.envs.gridworld.episodes import Episode, generate_episode, generate_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.layout import GridObject, generate_layout, parse_layout
from mindzero.envs.gridworld.world import Action, Observation, WorldState, goal_achieved, goal_pairs, step

LAYOUT_TEXT = """\
.....
.#0#.
H...1
..#..
P.2..

0: red square
1: blue circle
2: green star
"""


def test_layout_text_roundtrip_and_coordinates():
    layout = parse_layout(LAYOUT_TEXT)
    assert (layout.width, layout.height) == (5, 5)
    assert layout.human_start == (0, 2) and layout.helper_start == (0, 0)
    assert layout.object_cells[0] == (2, 3)  # top row is y = 4
    assert (1, 3) in layout.obstacles and (2, 1) in layout.obstacles
    assert parse_layout(layout.to_text()).to_text() == layout.to_text()
    # up = +y: moving up from the human start reaches (0, 3)
    assert layout.cell(layout.next_cell[layout.index((0, 2)), Action.UP]) == (0, 3)
    # the obstacle at (1, 3) blocks a move right from (0, 3)
    assert layout.next_cell[layout.index((0, 3)), Action.RIGHT] == layout.index((0, 3))


@pytest.mark.parametrize(
    "text, fragment",
    [
        (LAYOUT_TEXT.replace("H...1", "H..?1"), "line 3, column 4"),
        (LAYOUT_TEXT.replace("..#..", "..#."), "line 4, column 5"),
        (LAYOUT_TEXT.replace("2: green star", "2: mauve star"), "line 9, column 4: unknown color"),
        (LAYOUT_TEXT.replace("2: green star", "2: green blob"), "unknown shape"),
        (LAYOUT_TEXT.replace("1: blue circle\n", ""), "must match"),
    ],
)
def test_malformed_layout_names_line_and_column(text, fragment):
    with pytest.raises(UserError, match=fragment):
        parse_layout(text)


def test_layouts_as_people_write_them_read_as_the_canonical_text():
    """Cells spaced apart, X for an obstacle, lower-case h / p, and legend lines with another
    separator, an article, capitals, a plural or "grey" are the same layout."""
    written = """\
. . . . .
. X 0 X .
h . . . 1
. . # . .
p . 2 . .

0 - a Red Square.
1) blue circles
2 = the grey star
"""
    assert parse_layout(written).to_text() == LAYOUT_TEXT.replace("green star", "gray star")
    with pytest.raises(UserError, match="line 7, column 7: unknown color"):
        parse_layout(written.replace("Red", "Mauve"))


def test_generator_invariants_and_impossible_config():
    for seed in range(30):
        layout = generate_layout(np.random.default_rng(seed), n_obstacles=20)
        assert layout.is_connected
        assert len(layout.obstacles) == 20 and len(layout.objects) == 8
        cells = layout.object_cells
        for i, a in enumerate(cells):
            assert a not in (layout.human_start, layout.helper_start)
            for b in cells[i + 1 :]:
                assert abs(a[0] - b[0]) + abs(a[1] - b[1]) > 1, "objects must not be 4-adjacent"
    with pytest.raises(UserError, match="impossible config"):
        generate_layout(np.random.default_rng(0), width=4, height=4, n_objects=8)
    with pytest.raises(UserError, match="unknown color"):
        GridObject("mauve", "square")


def test_dynamics_pick_put_and_carry():
    layout = parse_layout(LAYOUT_TEXT)
    s = WorldState.initial(layout)
    s = step(layout, s, Action.RIGHT, Action.STAY)
    s = step(layout, s, Action.RIGHT, Action.STAY)
    s = step(layout, s, Action.UP, Action.STAY)  # onto the red square at (2, 3)
    s = step(layout, s, Action.PICK, Action.STAY)
    assert s.human_carry == 0
    s = step(layout, s, Action.DOWN, Action.STAY)
    assert s.objects[0] == s.human and s.human_rest, "carried object moves; a move while carrying rests"
    # put fails on a cell holding an object on the ground: walk onto the blue circle at (4, 2)
    s = step(layout, s, Action.RIGHT, Action.STAY)
    s = step(layout, s, Action.RIGHT, Action.STAY)
    assert layout.cell(s.human) == (4, 2)
    assert step(layout, s, Action.PUT, Action.STAY).human_carry == 0
    s = step(layout, s, Action.LEFT, Action.STAY)
    s = step(layout, s, Action.PUT, Action.STAY)
    assert s.human_carry == -1 and goal_achieved(s, (0, 1), layout)


def test_human_picks_before_helper_on_same_cell():
    layout = parse_layout(LAYOUT_TEXT)
    s = WorldState.initial(layout)
    cell = layout.index((2, 3))
    s = WorldState(human=cell, helper=cell, objects=s.objects)
    s = step(layout, s, Action.PICK, Action.PICK)
    assert s.human_carry == 0 and s.helper_carry == -1


def test_same_seed_same_episode():
    a = generate_episodes(5, seed=7)
    b = generate_episodes(5, seed=7)
    assert [e.to_dict() for e in a] == [e.to_dict() for e in b]
    ep = a[0]
    model = HumanModel(ep.layout)
    run1 = rollout_alone(ep, model, np.random.default_rng(3))
    run2 = rollout_alone(ep, model, np.random.default_rng(3))
    assert run1 == run2
    assert Episode.from_dict(ep.to_dict()).to_dict() == ep.to_dict()


def test_likelihood_is_the_policy_empirically():
    """Empirical action frequencies of the simulated human match P(a | g, s) (fixed seed)."""
    ep = generate_episode(np.random.default_rng(1))
    model = HumanModel(ep.layout, epsilon=0.15, tau=0.5)  # high τ: many actions with mass
    states, _ = rollout_alone(ep, model, np.random.default_rng(0), max_steps=40)
    rng = np.random.default_rng(123)
    n = 4000
    for state in states[::8]:
        p = model.action_probs(state, np.array([ep.goal]))[0]
        counts = np.bincount([model.sample(state, ep.goal, rng) for _ in range(n)], minlength=7)
        freq = counts / n
        # 5 standard errors of a binomial proportion per action
        tol = 5 * np.sqrt(p * (1 - p) / n) + 1e-9
        assert np.all(np.abs(freq - p) <= tol), (freq, p)
        assert np.all(counts[p == 0] == 0)


def test_simulator_and_exact_reasoner_share_the_human_at_any_setting():
    """One HumanParams drives the domain's simulated human and its exact likelihood, not only the defaults."""
    from mindzero.domains import get_domain

    domain = get_domain("gridworld")
    ep = generate_episode(np.random.default_rng(4))
    for human in (HumanParams(), HumanParams(epsilon=0.3, tau=0.5, c=0.2, gamma=0.9)):
        world = domain.simulator(ep, human)
        reference = HumanModel(ep.layout, epsilon=human.epsilon, tau=human.tau, c=human.c, gamma=human.gamma)
        states, actions = rollout_alone(ep, reference, np.random.default_rng(0), max_steps=20)
        exact = domain.reasoner("exact", 0, human)
        prior = exact.reset(ep)
        goals = np.array(prior.hypotheses)
        for s, a in zip(states, actions):
            p = reference.action_probs(s, goals)[:, a]
            np.testing.assert_allclose(world.human.action_probs(s, goals)[:, a], p, atol=1e-12)
            before = exact.posterior().probs
            after = exact.update(Observation(s, a)).probs
            np.testing.assert_allclose(after, before * p / (before * p).sum(), atol=1e-10)
    with pytest.raises(UserError, match="tau"):
        HumanParams(tau=0.0)


def test_true_goal_never_zero_over_1000_episodes():
    """The guard against the reference bug (pause probability 0 reset the posterior).

    1000 episodes: 100 random layouts x 10 random goals, each with its own human random stream.
    """
    rng = np.random.default_rng(2024)
    for k in range(100):
        layout = generate_episode(np.random.default_rng([99, k])).layout
        model = HumanModel(layout, epsilon=0.15)
        goals = goal_pairs(len(layout.objects))
        for j in rng.choice(len(goals), size=10, replace=False):
            ep = Episode(layout, goals[j])
            states, actions = rollout_alone(ep, model, rng, max_steps=40)
            inference = ExactGoalInference(HumanParams(epsilon=0.15))
            inference.reset(ep)
            for t, a in enumerate(actions):
                post = inference.update(Observation(states[t], a))
                assert post.prob(ep.goal) > 0, f"layout {k} goal {ep.goal} step {t}: true goal got zero posterior"
                assert abs(post.probs.sum() - 1) < 1e-9


def test_carrying_rests_and_picks_are_likely_under_true_goal():
    ep = generate_episode(np.random.default_rng(5))
    model = HumanModel(ep.layout, epsilon=0.15)
    states, actions = rollout_alone(ep, model, np.random.default_rng(5))
    for s, a in zip(states, actions):
        p = model.action_probs(s, np.array([ep.goal]))[0]
        assert p[a] > 0
        if s.human_rest and p[Action.PUT] == 0:  # put, when possible, comes before the pause
            assert p[Action.STAY] >= 0.85 + 0.15 / 5 - 1e-12
    assert Action.PICK in actions and Action.PUT in actions


def test_online_posterior_equals_replay_and_prior_is_used():
    ep = generate_episode(np.random.default_rng(11))
    human = HumanParams(epsilon=0.15)
    model = HumanModel(ep.layout, epsilon=human.epsilon)
    states, actions = rollout_alone(ep, model, np.random.default_rng(11))
    inference = ExactGoalInference(human)
    inference.reset(ep)
    obs = [Observation(s, a) for s, a in zip(states, actions)]
    for t, o in enumerate(obs):
        online = inference.update(o)
        if t % 5 == 0:
            np.testing.assert_allclose(online.probs, replay_posterior(ep, obs[: t + 1], human).probs, atol=1e-10)
    assert online.map() == ep.goal
    prior = np.zeros(len(goal_pairs(8)))
    prior[3] = 1.0
    focused = ExactGoalInference(prior=prior)
    assert focused.reset(ep).map() == goal_pairs(8)[3]
    with pytest.raises(UserError, match="prior"):
        ExactGoalInference(prior=[1.0, 2.0]).reset(ep)
