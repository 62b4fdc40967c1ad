"""LLMReasoner and LLMQAAnswerer: parse failures keep the previous posterior, costs per decision,
calibration metrics against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mindzero.core.config import from_flat  # noqa: E402
from mindzero.core.errors import UserError
from mindzero.core.posterior import Posterior
from mindzero.domains import get_domain
from mindzero.domains.gridworld.hypotheses import format_goal_particles
from mindzero.domains.gridworld.reasoners import OracleReasoner, UniformReasoner
from mindzero.domains.gridworld.ssrl import object_names
from mindzero.envs.gridworld.episodes import generate_episodes
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import Action, Observation, goal_pairs, step
from mindzero.inference.llm import DecisionStats, LLMQAAnswerer, LLMReasoner, LLMSettings
from mindzero.llm.base import Usage
from mindzero.tasks.assist import AssistSettings, kl_to_exact, run_episode

DOMAIN = get_domain("gridworld")


def _observations(episode, n: int) -> list[Observation]:
    human = HumanModel(episode.layout, epsilon=0.0)
    rng = np.random.default_rng(0)
    state, out = episode.initial_state(), []
    for _ in range(n):
        action = human.sample(state, episode.goal, rng)
        out.append(Observation(state, action))
        state = step(episode.layout, state, action, Action.STAY)
    return out


def test_parse_failure_keeps_previous_posterior_and_is_counted(scripted) -> None:
    episode = generate_episodes(1, 0)[0]
    objects = object_names(episode.layout)
    valid = format_goal_particles([episode.goal], [1.0], objects)
    backend = scripted([valid, "I think they want the red thing", valid])
    reasoner = LLMReasoner(DOMAIN, backend, LLMSettings(n_particles=1))
    prior = reasoner.reset(episode)
    assert prior.hypotheses == tuple(goal_pairs(len(objects)))
    assert np.allclose(prior.probs, 1 / len(prior.hypotheses))
    obs = _observations(episode, 3)
    first = reasoner.update(obs[0])
    assert first.hypotheses == (episode.goal,)
    second = reasoner.update(obs[1])
    assert second is first  # failure: the previous posterior is kept
    reasoner.update(obs[2])
    m = reasoner.stats.metrics()
    assert m["decisions"] == 3
    assert m["parse_failure_rate"] == pytest.approx(1 / 3)
    tokens = [10 + len(t.split()) for t in (valid, "I think they want the red thing", valid)]
    assert m["tokens_per_decision"] == pytest.approx(sum(tokens) / 3)
    assert m["tflops_per_decision"] == pytest.approx(2 * 1000 * sum(tokens) / 3 / 1e12)
    assert m["decisions_per_second"] == pytest.approx(2.0)  # 0.5 s per scripted call
    assert m["parse_failure_reasons"] == {"invalid JSON": 1}


def test_sampled_completions_are_averaged_and_failures_counted_per_completion(scripted) -> None:
    episode = generate_episodes(1, 0)[0]
    objects = object_names(episode.layout)
    pairs = goal_pairs(len(objects))
    a, b = (format_goal_particles([pair], [1.0], objects) for pair in pairs[:2])
    backend = scripted([a, "no idea", a, b])
    reasoner = LLMReasoner(DOMAIN, backend, LLMSettings(n_particles=1, temperature=1.0, samples=4))
    reasoner.reset(episode)
    posterior = reasoner.update(_observations(episode, 1)[0])
    assert dict(zip(posterior.hypotheses, posterior.probs)) == pytest.approx({pairs[0]: 2 / 3, pairs[1]: 1 / 3})
    m = reasoner.stats.metrics()
    assert m["decisions"] == 1 and m["parse_failure_rate"] == pytest.approx(1 / 4)
    assert m["tokens_per_decision"] == pytest.approx(10 + sum(len(t.split()) for t in (a, "no idea", a, b)))
    with pytest.raises(UserError, match="temperature > 0"):
        LLMSettings(samples=4)


def test_failure_at_first_decision_keeps_uniform_prior(tiny_model_dir) -> None:
    from mindzero.llm import load_backend

    episode = generate_episodes(1, 1)[0]
    reasoner = LLMReasoner(DOMAIN, load_backend(f"hf:{tiny_model_dir}"), LLMSettings(max_new_tokens=8))
    prior = reasoner.reset(episode)
    posterior = prior
    for ob in _observations(episode, 2):
        posterior = reasoner.update(ob)
    assert posterior is prior  # a random tiny model never writes valid particles
    m = reasoner.stats.metrics()
    assert m["decisions"] == 2 and m["parse_failure_rate"] == 1.0
    assert m["tokens_per_decision"] > 8 and m["tflops_per_decision"] > 0


def test_prompt_sees_the_prefix_including_the_current_action(scripted) -> None:
    episode = generate_episodes(1, 2)[0]
    backend = scripted(["{}"])
    seen: list[str] = []
    original = backend.generate

    def spy(prompts, **kwargs):
        seen.append(prompts[0][0]["content"])
        return original(prompts, **kwargs)

    backend.generate = spy
    reasoner = LLMReasoner(DOMAIN, backend)
    reasoner.reset(episode)
    obs = _observations(episode, 2)
    for ob in obs:
        reasoner.update(ob)
    cell = episode.layout.cell(step(episode.layout, obs[1].state, obs[1].human_action, Action.STAY).human)
    assert "({},{})".format(*cell) in seen[1].split("Human path:")[1].split(".")[0].split()[-1]


def test_kl_to_exact_hand_computed() -> None:
    exact = Posterior(((0, 1), (0, 2), (1, 2)), np.array([0.5, 0.25, 0.25]))
    model = Posterior(((0, 1), (1, 2)), np.array([0.8, 0.2]))
    floor = 1e-4
    z = 0.8 + floor + 0.2
    expected = 0.5 * math.log(0.5 / (0.8 / z)) + 0.25 * math.log(0.25 / (floor / z)) + 0.25 * math.log(0.25 / (0.2 / z))
    assert kl_to_exact(exact, model, floor) == pytest.approx(expected)
    assert kl_to_exact(exact, exact) == pytest.approx(0.0, abs=1e-12)


def test_true_goal_mass_and_kl_recorded_per_decision() -> None:
    episode = generate_episodes(1, 3)[0]
    oracle = run_episode(DOMAIN, episode, OracleReasoner(), 0, AssistSettings())
    assert oracle.true_goal_prob and all(p == 1.0 for p in oracle.true_goal_prob)
    uniform = run_episode(DOMAIN, episode, UniformReasoner(), 0, AssistSettings())
    assert uniform.true_goal_prob == pytest.approx([1 / 28] * len(uniform.true_goal_prob))
    assert uniform.kl_to_exact[0] == pytest.approx(0.0, abs=1e-12)  # before any action, exact = uniform
    assert len(uniform.kl_to_exact) == len(uniform.true_goal_prob)


def test_decision_stats_merge_and_metrics() -> None:
    a, b = DecisionStats(), DecisionStats()
    a.add_batch(Usage(prompt_tokens=90, completion_tokens=10, flops=2e12, seconds=1.0), [None, "invalid JSON: x"])
    b.add_batch(Usage(prompt_tokens=50, completion_tokens=0, flops=1e12, seconds=1.0), ["schema: p"])
    merged = a.merge(b)
    assert (merged.parses.n, merged.parses.failures) == (3, 2)
    assert (a.parses.n, b.parses.n) == (2, 1)  # merging leaves both operands as they were
    m = merged.metrics()
    assert m == {
        "decisions": 3,
        "parse_failure_rate": pytest.approx(2 / 3),
        "tokens_per_decision": pytest.approx(50.0),
        "tflops_per_decision": pytest.approx(1.0),
        "decisions_per_second": pytest.approx(1.5),
        "parse_failure_reasons": {"invalid JSON": 1, "schema": 1},
    }


@pytest.fixture
def qa_row() -> dict:
    from mindzero.domains.gridworld.qa import build_split

    return build_split("unseen_layout", 1, 0, progress=False)[0]


def test_qa_answerer_generate_and_score(scripted, qa_row) -> None:
    from mindzero.tasks.qa import evaluate_qa_llm

    answer = qa_row["answer"]
    other = "b" if answer == "a" else "a"
    gen = LLMQAAnswerer(DOMAIN, scripted([f"({answer})", "no idea", f"Answer: {other}"]), "generate")
    metrics, samples = evaluate_qa_llm([qa_row] * 3, gen)
    assert [s["prediction"] for s in samples] == [answer, None, other]
    assert metrics["accuracy"] == pytest.approx(1 / 3) and metrics["parse_failure_rate"] == pytest.approx(1 / 3)
    scores = (0.0, -1.0) if answer == "a" else (-1.0, 0.0)
    score = LLMQAAnswerer(DOMAIN, scripted([""], scores=scores), "score")
    metrics, samples = evaluate_qa_llm([qa_row], score)
    assert samples[0]["prediction"] == answer and metrics["parse_failure_rate"] == 0.0
    assert metrics["tokens_per_decision"] == 26  # two continuations of 3 tokens after a 10-token prompt


@pytest.mark.parametrize("style", ["relative", "anchored", "compact"])
def test_hypothesis_texts_name_their_pair_in_the_form_a_model_writes(style) -> None:
    from mindzero.domains.gridworld.ssrl import particle_form

    episode = generate_episodes(1, 3)[0]
    texts = DOMAIN.hypothesis_texts(episode, style)
    pairs = goal_pairs(len(episode.layout.objects))
    assert len(texts) == 2 * len(pairs) and {h for h, _ in texts} == set(pairs)
    for pair, text in texts:
        # the letter form is scored as the prefix before p: every "C G p" a model writes starts with it
        written = f"{text} 1.00" if particle_form(style) == "letters" else text
        parsed = DOMAIN.parse_particles(written, episode, 1)
        assert parsed.ok and parsed.hypotheses == (pair,)


def test_household_hypothesis_texts_parse_back_to_their_goal() -> None:
    domain = get_domain("household")
    episode = domain.heldout_episodes(1, 0)[0]
    texts = domain.hypothesis_texts(episode, "compact")
    assert [h for h, _ in texts] == list(domain.hypotheses(episode))
    for goal, text in texts[:: max(1, len(texts) // 25)]:
        parsed = domain.parse_particles(text, episode, 1)
        assert parsed.ok and parsed.hypotheses == (goal,)


def test_score_mode_posterior_is_the_models_probability_of_each_pair(tiny_model_dir) -> None:
    from mindzero.llm import load_backend

    backend = load_backend(f"hf:{tiny_model_dir}")
    episode = generate_episodes(1, 4)[0]
    reasoner = LLMReasoner(DOMAIN, backend, LLMSettings(prompt_style="relative", answer_mode="score"))
    reasoner.reset(episode)
    observation = _observations(episode, 1)[0]
    posterior = reasoner.update(observation)
    prompt = [{"role": "user", "content": DOMAIN.assist_prompt(episode, [observation], 1, "relative")}]
    expected = {}
    for pair, text in DOMAIN.hypothesis_texts(episode, "relative"):
        expected[pair] = expected.get(pair, 0.0) + math.exp(backend.score(prompt, [text])[0])
    total = sum(expected.values())
    assert set(posterior.hypotheses) == set(goal_pairs(len(episode.layout.objects)))  # none left out
    read = dict(zip(posterior.hypotheses, posterior.probs))
    # float32 log-probabilities scored in one padded batch vs one text at a time differ by ~1e-6
    # relative on some CPUs (seen here: 1.5e-6), so the bound is float32's, not exactness
    assert read == pytest.approx({h: w / total for h, w in expected.items()}, rel=1e-5)
    m = reasoner.stats.metrics()
    assert m["decisions"] == 1 and m["parse_failure_rate"] == 0.0 and m["tflops_per_decision"] > 0


def test_score_mode_needs_one_particle_and_one_sample() -> None:
    with pytest.raises(UserError, match="--n-particles 1 and --samples 1"):
        LLMSettings(n_particles=8, answer_mode="score")
    with pytest.raises(UserError, match="--n-particles 1 and --samples 1"):
        LLMSettings(temperature=1.0, samples=4, answer_mode="score")
    with pytest.raises(UserError, match="unknown answer mode"):
        LLMSettings(answer_mode="vote")


def test_curve_score_mode_reads_the_posterior_the_benchmark_acts_on(tiny_model_dir) -> None:
    from mindzero.core.human import HumanParams
    from mindzero.llm import load_backend
    from mindzero.tasks.curves import assist_decisions, score_assist

    backend = load_backend(f"hf:{tiny_model_dir}")
    episodes = DOMAIN.heldout_episodes(1, 0)
    decisions = assist_decisions(DOMAIN, episodes, HumanParams(), seed=0, every=4, max_steps=8)
    curve = score_assist(DOMAIN, backend, decisions, 1, "relative", 8, answer_mode="score")
    reasoner = LLMReasoner(DOMAIN, backend, LLMSettings(prompt_style="relative", answer_mode="score"))
    kls = []
    for decision in decisions:
        reasoner.reset(decision.episode)
        for observation in decision.observations:
            posterior = reasoner.update(observation)
        assert len(posterior.hypotheses) == len(decision.exact.hypotheses)  # every goal keeps mass
        kls.append(kl_to_exact(decision.exact, posterior))
    assert curve["decisions"] == len(decisions) == 2 and curve["parse_failure_rate"] == 0.0
    assert curve["kl_to_exact"] == pytest.approx(float(np.mean(kls)))


def test_ssrl_curve_score_mode_needs_one_particle() -> None:
    from mindzero.train.ssrl import SSRLConfig, resolve_config

    with pytest.raises(UserError, match="--eval-answer-mode score reads one-particle answers"):
        resolve_config(from_flat(SSRLConfig, task="assist", n_particles=8, eval_answer_mode="score", preset="cpu-tiny"))
    with pytest.raises(UserError, match="not samples; drop --eval-samples 4"):
        resolve_config(
            from_flat(
                SSRLConfig, task="assist", n_particles=1, eval_answer_mode="score", eval_samples=4, preset="cpu-tiny"
            )
        )
