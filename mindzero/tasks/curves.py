"""Held-out measurements of a model while it trains (the SSRL learning curve), for any domain.

- QA: accuracy on the domain's held-out two-option questions, greedy answers; the reference
  lines are exact inference (it made the labels: 1.0) and chance (0.5).
- Assistance: at decision points of held-out episodes (the human acting alone, every ``every``
  actions), the model's particles as a posterior: mean KL(exact ‖ model), mean p(true goal) and
  parse failures; references are the exact posterior's p(true goal) and the uniform posterior's
  KL and p(true goal). A decision none of whose completions parse counts as the uniform posterior.

Only evaluation reads goals and labels; nothing here reaches a trainer's batches.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.domains.base import Domain
from mindzero.inference.llm import LLMQAAnswerer, LLMSettings, mixture, scored_posterior
from mindzero.llm.base import Backend
from mindzero.tasks.assist import kl_to_exact
from mindzero.tasks.qa import evaluate_qa_llm


@dataclass(frozen=True)
class Decision:
    """One moment of a held-out episode: what the model is shown and what exact inference says."""

    episode: Any
    observations: tuple[Any, ...]
    exact: Posterior
    goal: Hashable


def assist_decisions(
    domain: Domain, episodes: Sequence[Any], human: HumanParams, seed: int, every: int = 2, max_steps: int = 50
) -> list[Decision]:
    """Every ``every``-th moment of each episode played by the human alone (seeded)."""
    decisions = []
    for k, episode in enumerate(episodes):
        world = domain.simulator(episode, human)
        exact = domain.reasoner("exact", seed, human)
        exact.reset(episode)
        rng = np.random.default_rng([seed, k])
        state, observations = world.initial_state(), []
        for t in range(1, max_steps + 1):
            action = world.human_action(state, rng)
            observations.append(world.observation(state, action))
            posterior = exact.update(observations[-1])
            state = world.step(state, action, world.idle)
            if t % every == 0:
                decisions.append(Decision(episode, tuple(observations), posterior, world.goal))
            if world.done(state):
                break
    return decisions


def score_assist(
    domain: Domain,
    backend: Backend,
    decisions: Sequence[Decision],
    n_particles: int,
    style: str,
    max_new_tokens: int,
    samples: int = 1,
    temperature: float = 1.0,
    seed: int = 0,
    answer_mode: str = "generate",
) -> dict[str, float]:
    """The model's particles at every decision, compared with exact inference (KL in nats): greedy,
    or with ``samples`` > 1 the mixture of that many completions drawn at ``temperature``, or with
    ``answer_mode="score"`` (one particle) the model's probability of naming each goal."""
    prompts = [
        [{"role": "user", "content": domain.assist_prompt(d.episode, d.observations, n_particles, style)}]
        for d in decisions
    ]
    if answer_mode == "score":
        read = [scored_posterior(domain, backend, d.episode, p, style) for d, p in zip(decisions, prompts)]
        samples, failures = 1, 0
    else:
        generations = backend.generate(
            prompts,
            n=samples,
            temperature=temperature if samples > 1 else 0.0,
            max_new_tokens=max_new_tokens,
            seed=seed,
        )
        parsed = [
            [domain.parse_particles(c.text, d.episode, n_particles) for c in g] for d, g in zip(decisions, generations)
        ]
        read = [mixture(results) for results in parsed]
        failures = sum(not r.ok for results in parsed for r in results)
    kls, p_true, exact_p, uniform_kl, uniform_p = [], [], [], [], []
    for decision, posterior in zip(decisions, read):
        uniform = Posterior.uniform(decision.exact.hypotheses)
        model = posterior or uniform
        kls.append(kl_to_exact(decision.exact, model))
        p_true.append(model.prob(decision.goal))
        exact_p.append(decision.exact.prob(decision.goal))
        uniform_kl.append(kl_to_exact(decision.exact, uniform))
        uniform_p.append(uniform.prob(decision.goal))
    return {
        "kl_to_exact": float(np.mean(kls)),
        "true_goal_prob": float(np.mean(p_true)),
        "parse_failure_rate": failures / (len(decisions) * samples),
        "exact_true_goal_prob": float(np.mean(exact_p)),
        "uniform_kl_to_exact": float(np.mean(uniform_kl)),
        "uniform_true_goal_prob": float(np.mean(uniform_p)),
        "decisions": len(decisions),
    }


def score_qa(
    domain: Domain, backend: Backend, rows: Sequence[dict], style: str, max_new_tokens: int
) -> dict[str, float]:
    """Greedy answers to held-out questions: accuracy against exact inference's labels."""
    answerer = LLMQAAnswerer(
        domain, backend, "generate", LLMSettings(prompt_style=style, max_new_tokens=max_new_tokens)
    )
    metrics, _ = evaluate_qa_llm(rows, answerer)
    keep = ("accuracy", "parse_failure_rate", "n")
    return {k: metrics[k] for k in keep} | {k: v for k, v in metrics.items() if k.startswith("accuracy_question_type")}
