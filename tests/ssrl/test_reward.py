"""SSRL reward (paper Eq. 3-4) and goal-particle parsing: properties, invariants, brute force."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindzero.core.human import HumanParams
from mindzero.core.reward import RewardConfig, failure_reward, ssrl_reward
from mindzero.domains.gridworld.hypotheses import (
    format_goal_particles,
    format_letter_particles,
    parse_goal_particles,
    particles_schema,
)
from mindzero.domains.gridworld.ssrl import STEP_PROB_FLOOR, AssistTask, QATask, goal_logliks
from mindzero.domains.reward import SSRLReward, compute_score
from mindzero.envs.gridworld.episodes import generate_episode, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import ACTION_NAMES, goal_pairs
from mindzero.train.ssrl import ABLATIONS

HUMAN = HumanParams()  # ε = 0.15, the evaluation human


def particles_reward(config: RewardConfig = RewardConfig(), human: HumanParams = HUMAN) -> SSRLReward:
    """Paper Eq. 4 on the assist task's rows (the old ``ParticlesReward``)."""
    return SSRLReward(AssistTask(), human, config)


def particles_json(layout, goals, probs) -> str:
    return format_goal_particles(goals, probs, [(o.color, o.shape) for o in layout.objects])


def mid_episode(seed: int, epsilon: float = 0.15):
    ep = generate_episode(np.random.default_rng(seed))
    states, actions = rollout_alone(ep, HumanModel(ep.layout, epsilon=epsilon), np.random.default_rng(seed))
    t = max(1, len(actions) // 2)
    return ep, states[: t + 1], [ACTION_NAMES[a] for a in actions[:t]]


def brute_force_loglik(ep, states, actions, goal, epsilon=0.15) -> float:
    """Replay the prefix step by step, computing the policy from scratch (no caches)."""
    model = HumanModel(ep.layout, epsilon=epsilon)
    total = 0.0
    for s, a in zip(states, actions):
        p = model.reference_policy(s, np.array([goal]))[0, ACTION_NAMES.index(a)]
        total += np.log(max(p, STEP_PROB_FLOOR))
    return total


def test_schema_matches_paper_figure_7():
    schema = json.loads(particles_schema())
    assert schema["title"] == "GoalParticles"
    assert set(schema["$defs"]) == {"GoalParticle", "Object"}
    assert schema["$defs"]["GoalParticle"]["properties"]["p"]["description"] == "Probability of the goal proposal"


@pytest.mark.parametrize("seed", range(5))
def test_reward_equals_brute_force(seed):
    ep, states, actions = mid_episode(seed)
    goals = goal_pairs(8)
    rng = np.random.default_rng(seed)
    chosen = [goals[i] for i in rng.choice(len(goals), size=3, replace=False)]
    q = rng.dirichlet(np.ones(3))
    text = particles_json(ep.layout, chosen, q)
    got = particles_reward().score(text, layout=ep.layout.to_text(), actions=actions)
    q = np.round(q, 4) / np.round(q, 4).sum()  # the JSON carries 4 decimals
    ll = np.array([brute_force_loglik(ep, states, actions, g) for g in chosen])
    expected = float(q @ (ll - np.log(28)) - q @ np.log(q))
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n", [1, 2, 8])
def test_exact_top_n_beats_uniform_and_random_on_same_support(seed, n):
    ep, _, actions = mid_episode(seed)
    ll = goal_logliks(ep.layout.to_text(), actions, HUMAN)
    post = np.exp(ll - ll.max())
    post /= post.sum()
    top = np.argsort(-post)[:n]
    goals = goal_pairs(8)
    support = [goals[i] for i in top]
    reward = particles_reward()
    row = {"layout": ep.layout.to_text(), "actions": actions}
    exact = reward.score(particles_json(ep.layout, support, post[top] / post[top].sum()), **row)
    uniform = reward.score(particles_json(ep.layout, support, np.full(n, 1 / n)), **row)
    assert exact >= uniform - 1e-9
    rng = np.random.default_rng(seed)
    for _ in range(20):
        q = rng.dirichlet(np.ones(n))
        assert exact >= reward.score(particles_json(ep.layout, support, q), **row) - 1e-9


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 5), k=st.integers(1, 8), data=st.data())
def test_malformed_output_below_every_valid_output(seed, k, data):
    ep, _, actions = mid_episode(seed)
    layout = ep.layout.to_text()
    goals = goal_pairs(8)
    idx = data.draw(st.lists(st.integers(0, 27), min_size=k, max_size=k))
    q = np.array(data.draw(st.lists(st.floats(0, 1), min_size=k, max_size=k)))
    valid = particles_json(ep.layout, [goals[i] for i in idx], q)
    garbage = data.draw(st.one_of(st.text(max_size=80), st.just(valid[:-3]), st.just("{}")))
    reward = particles_reward()
    assert reward.score(garbage, layout=layout, actions=actions) < reward.score(valid, layout=layout, actions=actions)


def test_failure_reward_below_worst_vertex_for_every_config():
    ll = np.array([-3.0, -40.0, -7.0])
    lp = np.log(np.array([0.5, 0.25, 0.25]))
    for cfg in (RewardConfig(), RewardConfig(use_prior=False), RewardConfig(entropy_weight=0.0)):
        fail = failure_reward(ll, lp, cfg)
        for i in range(3):
            assert fail < ssrl_reward(np.eye(3)[i], ll, lp, cfg)


def test_ablation_switches_change_exactly_one_term():
    q = np.array([0.6, 0.3, 0.1])
    ll = np.array([-2.0, -5.0, -9.0])
    lp = np.log(np.array([0.2, 0.3, 0.5]))
    full = ssrl_reward(q, ll, lp)
    entropy = float(-(q * np.log(q)).sum())
    assert full == pytest.approx(q @ ll + q @ lp + entropy)
    assert ssrl_reward(q, ll, lp, RewardConfig(use_prior=False)) == pytest.approx(full - q @ lp)
    assert ssrl_reward(q, ll, lp, RewardConfig(entropy_weight=0.0)) == pytest.approx(full - entropy)
    assert ssrl_reward(q, ll, lp, RewardConfig(single_hypothesis=True)) == pytest.approx(ll[0] + lp[0])


def test_parser_merges_floors_and_validates():
    objects = [("red", "square"), ("blue", "circle"), ("green", "star")]
    p = {"color": "red", "shape": "square"}
    b = {"color": "Blue ", "shape": "CIRCLE"}
    g = {"color": "green", "shape": "star"}
    text = (
        "Here you go:\n```json\n"
        + json.dumps(
            {
                "particles": [
                    {"object1": p, "object2": b, "p": 0.5},
                    {"object1": b, "object2": p, "p": 0.3},
                    {"object1": g, "object2": b, "p": 0.0},
                ]
            }
        )
        + "\n```"
    )
    r = parse_goal_particles(text, objects)
    assert r.ok and r.merged == 1 and r.n_particles == 3
    assert r.posterior.hypotheses == ((0, 1), (1, 2))
    assert r.posterior.probs[1] > 0 and r.posterior.probs.sum() == pytest.approx(1)
    assert r.posterior.probs[0] == pytest.approx(0.8 / 0.801)
    bad = parse_goal_particles(json.dumps({"particles": [{"object1": p, "object2": p, "p": 1}]}), objects)
    assert not bad.ok and "same object" in bad.reason
    unknown = parse_goal_particles(
        json.dumps({"particles": [{"object1": p, "object2": {"color": "x", "shape": "y"}, "p": 1}]}), objects
    )
    assert not unknown.ok and "unknown object x y" in unknown.reason
    assert not parse_goal_particles(text, objects, n_particles=2).ok
    assert parse_goal_particles(text, objects, n_particles=3).ok


def test_letter_form_names_objects_by_their_prompt_letter():
    objects = [("red", "square"), ("blue", "circle"), ("green", "star")]
    text = format_letter_particles([(2, 0), (1, 2)], [0.25, 0.75])
    assert text == "C A 0.25 ; B C 0.75"
    r = parse_goal_particles(text, objects, n_particles=2)
    assert r.ok and r.hypotheses == ((0, 2), (1, 2)) and r.probs == (0.25, 0.75)
    assert parse_goal_particles("A C .5;A C 0.5;", objects, n_particles=2).merged == 1
    assert r.canonical  # the one spelling the warm start teaches; looser ones parse, but are not canonical
    for loose in [" C A 0.25 ; B C 0.75", "C A 0.25 ;B C 0.75", "C A 0.25 ; B C 0.7", "C A  0.25 ; B C 0.75"]:
        result = parse_goal_particles(loose, objects, n_particles=2)
        assert result.ok and not result.canonical, loose
    as_json = format_goal_particles([(0, 2)], [1.0], objects)
    assert parse_goal_particles(as_json, objects).canonical
    assert not parse_goal_particles("Sure: " + as_json, objects).canonical
    for bad, reason in [
        ("A D 0.5 ; B C 0.5", "unknown object D"),
        ("A A 0.5 ; B C 0.5", "same object"),
        ("A B 1.5 ; B C 0.5", "above 1"),
        ("A B 0.5", "1 particles, asked for 2"),
        ("A B 0.5 ; B C", "invalid JSON"),
        # the junk a policy paid for its own entropy wrote before every answer (docs/ssrl.md): Python's
        # \s takes these control characters as whitespace, the letter form takes plain spaces only
        ("\x1f\x0b\x0c\t\rA B 0.5 ; B C 0.5", "invalid JSON"),
        ("A\tB 0.5 ; B C 0.5", "invalid JSON"),
    ]:
        result = parse_goal_particles(bad, objects, n_particles=2)
        assert not result.ok and reason in result.reason, (bad, result.reason)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.binary().map(lambda b: b.decode("latin-1")), st.integers(), st.none()))
def test_parser_never_raises(text):
    result = parse_goal_particles(text, [("red", "square"), ("blue", "circle")])
    assert result.ok == (result.posterior is not None)
    assert result.ok or result.reason


def test_qa_reward_and_trl_signature():
    ep, _, actions = mid_episode(3)
    layout = ep.layout.to_text()
    goals = [list(goal_pairs(8)[0]), list(goal_pairs(8)[5])]
    reward = SSRLReward(QATask(), HUMAN)
    row = {"layout": layout, "actions": actions, "choice_goals": goals}
    a, b = reward.score("(a)", **row), reward.score("Answer: b", **row)
    junk = reward.score("I cannot tell", **row)
    assert junk < min(a, b)
    ll = goal_logliks(layout, actions, HUMAN)
    assert a == pytest.approx(ll[0]) and b == pytest.approx(ll[5])
    assert junk == pytest.approx(min(ll[0], ll[5]) - RewardConfig().failure_margin)
    out = reward(
        ["p", "p"],
        [[{"role": "assistant", "content": "(b)"}], "(a)"],
        layout=[layout] * 2,
        actions=[actions] * 2,
        choice_goals=[goals] * 2,
        extra_column=[1, 2],
    )
    assert out == [pytest.approx(b), pytest.approx(a)]
    assert [r.answer for r in reward.results] == [1, 0]  # the option each completion chose
    # two prompts in one call: each failure sits a margin below its own prompt's worst valid answer
    other = goal_logliks(layout, actions[:-1], HUMAN)
    mixed = reward(
        ["p"] * 5,
        ["(a)", "junk", "(b)", "junk", "(a)"],
        layout=[layout] * 5,
        actions=[actions] * 3 + [actions[:-1]] * 2,
        choice_goals=[goals] * 5,
    )
    margin = RewardConfig().failure_margin
    assert mixed[1] == pytest.approx(min(a, b) - margin) and mixed[3] == pytest.approx(other[0] - margin)
    info = {"layout": layout, "actions": actions, "choice_goals": goals}
    assert compute_score("gridworld/qa", "(a)", None, info) == pytest.approx(a)
    # the human travels in extra_info; without it the reward's default human is used
    noisy = {**info, "human": {"epsilon": 0.5}}
    noisy_ll = goal_logliks(layout, actions, HumanParams(epsilon=0.5))
    assert compute_score("gridworld/qa", "(a)", None, noisy) == pytest.approx(noisy_ll[0])
    assert noisy_ll[0] != pytest.approx(ll[0])
    with pytest.raises(ValueError, match="data_source"):
        compute_score("gridworld/nope", "(a)", None, info)


def test_particles_reward_logs_failures_and_entropy():
    ep, _, actions = mid_episode(1)
    layout = ep.layout.to_text()
    reward = particles_reward()
    valid = particles_json(ep.layout, [(0, 1), (2, 3)], [0.5, 0.5])
    scores = reward(["p"] * 3, [valid, "nope", valid], layout=[layout] * 3, actions=[actions] * 3)
    assert scores[1] < scores[0] == scores[2]
    answers = [r.answer for r in reward.results]
    assert answers[1] is None and answers[0] == answers[2] in {(0, 1), (2, 3)}
    assert [r.ok for r in reward.results] == [True, False, True]
    assert reward.results[0].entropy == pytest.approx(np.log(2))
    reward(["p"], [valid], layout=[layout], actions=[actions])
    assert [r.ok for r in reward.results] == [True]  # each call keeps only its own results
    info = {"layout": layout, "actions": actions, "n_particles": 2}
    assert compute_score("gridworld/assist", valid, None, info) == pytest.approx(scores[0])
    floor = compute_score("gridworld/assist", "nope", None, info)  # alone: below every valid answer
    assert floor < scores[1] == pytest.approx(scores[0] - RewardConfig().failure_margin)
    # n_particles is the number of particles a completion must write
    assert compute_score("gridworld/assist", valid, None, {**info, "n_particles": 1}) == pytest.approx(floor)


@pytest.mark.parametrize("ablation", ["none", "no-prior", "single", "no-entropy"])
def test_ablation_rewards_are_eq4_with_that_config(ablation):
    """``--ablation`` configs in SSRLReward give exactly ssrl_reward / failure_reward with that config."""
    config = ABLATIONS[ablation]
    ep, states, actions = mid_episode(2)
    layout = ep.layout.to_text()
    goals = goal_pairs(8)
    ll_all = goal_logliks(layout, actions, HUMAN)
    order = np.argsort(-ll_all)
    chosen = [goals[order[5]], goals[order[0]], goals[order[12]]]  # the top particle is not the likeliest goal
    q = np.array([0.5, 0.3, 0.2])
    text = particles_json(ep.layout, chosen, q)
    ll = np.array([brute_force_loglik(ep, states, actions, g) for g in chosen])
    lp = np.full(3, -np.log(28))
    reward = SSRLReward(AssistTask(), HUMAN, config)
    got = reward.score(text, layout=layout, actions=actions)
    assert got == pytest.approx(ssrl_reward(q, ll, lp, config), rel=1e-9, abs=1e-9)
    entropy = float(-(q * np.log(q)).sum())
    full = float(q @ (ll + lp)) + entropy
    expected = {
        "none": full,
        "no-prior": float(q @ ll) + entropy,
        "single": float(ll[0] + lp[0]),  # only the most probable particle counts, with q = 1
        "no-entropy": full - entropy,
    }[ablation]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    if ablation == "single":
        # moving mass among the other particles or swapping which goal they name changes nothing
        other = particles_json(ep.layout, [chosen[0], goals[order[20]], goals[order[1]]], [0.4, 0.35, 0.25])
        assert reward.score(other, layout=layout, actions=actions) == pytest.approx(got, rel=1e-9, abs=1e-12)
        assert got != pytest.approx(SSRLReward(AssistTask(), HUMAN).score(text, layout=layout, actions=actions))
    # through the TRL entry point too: a malformed output sits a margin below the worst valid
    # completion of its prompt in the call, or, with none valid, below the worst vertex of this config
    trl = reward(["p"] * 2, [text, "{}"], layout=[layout] * 2, actions=[actions] * 2)
    assert trl[0] == pytest.approx(got)
    assert trl[1] == pytest.approx(got - config.failure_margin)
    alone = reward(["p"], ["{}"], layout=[layout], actions=[actions])[0]
    assert alone == pytest.approx(failure_reward(ll_all, np.full(28, -np.log(28)), config))
    vertices = [ssrl_reward([1.0], [ll_all[k]], [-np.log(28)], config) for k in range(28)]
    assert alone < min(vertices)


def test_no_prior_ablation_is_the_full_reward_shifted_under_a_uniform_prior():
    """GridWorld's prior is uniform (paper §5.1), so dropping log P(m) shifts every reward of a group by
    the same log 28 — failures included — and GRPO's group advantages do not change: Table 2's row II
    trains exactly as row I here (the paper measures it on Household, whose prior is an LLM's)."""
    ep, _, actions = mid_episode(3)
    layout = ep.layout.to_text()
    goals = goal_pairs(8)
    texts = [
        particles_json(ep.layout, [goals[0], goals[5]], [0.7, 0.3]),
        particles_json(ep.layout, [goals[9], goals[17], goals[2]], [0.2, 0.2, 0.6]),
        particles_json(ep.layout, [goals[27]], [1.0]),
        "{}",
    ]
    rows = {"layout": [layout] * len(texts), "actions": [actions] * len(texts)}
    full = np.array(SSRLReward(AssistTask(), HUMAN, ABLATIONS["none"])(["p"] * len(texts), texts, **rows))
    no_prior = np.array(SSRLReward(AssistTask(), HUMAN, ABLATIONS["no-prior"])(["p"] * len(texts), texts, **rows))
    assert np.allclose(no_prior - full, np.log(28), rtol=0, atol=1e-9)
    advantage = lambda r: (r - r.mean()) / r.std()  # noqa: E731 (GRPO's group normalisation)
    assert np.allclose(advantage(full), advantage(no_prior), rtol=0, atol=1e-9)
