"""GridWorld for SSRL: prompts, per-goal action log-likelihoods and TRL/veRL reward functions.

Training rows carry no goal labels; a reward needs only the layout and the observed action prefix
(``layout``, ``actions`` columns). The log-likelihood of the prefix under every goal pair is
computed once per prefix — incrementally along an episode, from the same :class:`HumanModel`
that simulates the human — and cached, so scoring a completion costs a parse and a sum over its
few particles, in plain Python (numpy calls cost more than that arithmetic).

Reward functions follow TRL's signature ``f(prompts, completions, **kwargs) -> list[float]`` and
read dataset columns from ``kwargs``; :func:`compute_score` is the veRL/EasyR1 form.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from mindzero.core.hypotheses import ParseResult, parse_goal_particles, particles_schema
from mindzero.core.reward import RewardConfig, failure_reward, ssrl_reward
from mindzero.envs.gridworld.episodes import Episode, generate_episodes, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.layout import Layout, parse_layout
from mindzero.envs.gridworld.render import transcript
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, WorldState, step

#: Per-step probability floor (log ≈ −13.8): an action impossible under a goal costs a lot but
#: keeps rewards finite, as GRPO advantages need.
STEP_PROB_FLOOR = 1e-6


@lru_cache(maxsize=256)
def _layout(text: str) -> Layout:
    return parse_layout(text)


@lru_cache(maxsize=256)
def _model(layout_text: str, epsilon: float) -> HumanModel:
    return HumanModel(_layout(layout_text), epsilon=epsilon)


@lru_cache(maxsize=4096)
def _prefix_logliks(layout_text: str, actions: tuple[str, ...], epsilon: float) -> tuple[np.ndarray, WorldState]:
    """(log P(a_1:t | g) for every goal pair, state after the prefix); extends the cached t−1 prefix."""
    model = _model(layout_text, epsilon)
    if not actions:
        return np.zeros(len(model.all_goals)), WorldState.initial(model.layout)
    previous, state = _prefix_logliks(layout_text, actions[:-1], epsilon)
    action = ACTION_NAMES.index(actions[-1])
    step_probs = model.policy_table(state)[:, action]
    logliks = previous + np.log(np.maximum(step_probs, STEP_PROB_FLOOR))
    logliks.setflags(write=False)
    return logliks, step(model.layout, state, action, Action.STAY)


def goal_logliks(layout_text: str, actions: Sequence[str], epsilon: float = 0.15) -> np.ndarray:
    """log P(a_1:t | g, s_1:t) in nats for every goal pair (``goal_pairs`` order); helper still."""
    return _prefix_logliks(layout_text, tuple(actions), epsilon)[0]


@lru_cache(maxsize=64)
def _uniform_logprior(n_goals: int) -> tuple[float, ...]:
    return (-math.log(n_goals),) * n_goals


@lru_cache(maxsize=256)
def _lookups(layout_text: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[int, ...], ...]]:
    """(object names, ``pair_index`` as nested tuples): what scoring a completion looks up, per layout."""
    layout = _layout(layout_text)
    return tuple(object_names(layout)), tuple(map(tuple, HumanModel(layout).pair_index.tolist()))


def object_names(layout: Layout) -> list[tuple[str, str]]:
    return [(o.color, o.shape) for o in layout.objects]


# --- prompts -----------------------------------------------------------------------------------


def particles_instruction(n_particles: int) -> str:
    """Paper Fig. 7: the request for N goal particles in the JSON schema."""
    return (
        f"Please propose a probability distribution that includes {n_particles} candidate paired goals "
        "and their probabilities. Your response should include the probability distribution formatted "
        f"according to this JSON schema: {particles_schema()}."
    )


def compact_observation(layout: Layout, states: Sequence[WorldState], actions: Sequence[int]) -> str:
    """A short text view for small models on CPU: objects with cells, the human's path, carrying."""
    objects = "; ".join(f"{o.label} ({x},{y})" for o, (x, y) in zip(layout.objects, layout.object_cells))
    path = " ".join("({},{})".format(*layout.cell(s.human)) for s in states)
    now = states[-1]
    holding = layout.objects[now.human_carry].label if now.human_carry >= 0 else "nothing"
    picks = sum(a == Action.PICK for a in actions)
    return f"Objects: {objects}.\nHuman path: {path}.\nHuman holds: {holding} (picks so far: {picks})."


def assist_prompt(
    layout: Layout, states: Sequence[WorldState], actions: Sequence[int], n_particles: int, style: str = "full"
) -> str:
    """The assistance prompt: ``full`` = paper Figs. 7 + 11; ``compact`` = short, for CPU models."""
    if style == "full":
        body = transcript(layout, states, actions)
    elif style == "compact":
        body = "Two objects must end next to each other. " + compact_observation(layout, states, actions)
    else:
        raise ValueError(f"unknown prompt style {style!r}; use 'full' or 'compact'")
    return f"{body}\n{particles_instruction(n_particles)}"


@dataclass
class AssistDataConfig:
    """Unlabeled assistance data (paper App. B.2: episodes unrolled into timesteps)."""

    episodes: int = field(default=1000, metadata={"help": "unlabeled episodes"})
    seed: int = field(default=0, metadata={"help": "episode generator seed"})
    every: int = field(default=1, metadata={"help": "keep every k-th timestep of each episode"})
    n_particles: int = field(default=2, metadata={"help": "particles requested per prompt (paper: 2)"})
    prompt_style: str = field(default="full", metadata={"help": "full (paper) | compact (short, CPU)"})
    epsilon: float = field(default=0.0, metadata={"help": "human random-move probability while generating"})


def assist_rows(config: AssistDataConfig) -> list[dict]:
    """One row per kept timestep t ≥ 1: prompt, layout, actions so far (no goal used by rewards)."""
    rows = []
    for k, episode in enumerate(generate_episodes(config.episodes, config.seed, prefix="ssrl")):
        human = HumanModel(episode.layout, epsilon=config.epsilon)
        states, actions = rollout_alone(episode, human, np.random.default_rng([config.seed, k]))
        for t in range(1, len(actions) + 1, config.every):
            rows.append(assist_row(episode, states[: t + 1], actions[:t], config.n_particles, config.prompt_style))
    return rows


def assist_row(
    episode: Episode, states: Sequence[WorldState], actions: Sequence[int], n_particles: int, style: str
) -> dict:
    return {
        "prompt": assist_prompt(episode.layout, states, actions, n_particles, style),
        "layout": episode.layout.to_text(),
        "actions": [ACTION_NAMES[a] for a in actions],
        "t": len(actions),
        "n_particles": n_particles,
        "episode_id": episode.episode_id,
        "goal": list(episode.goal),  # for evaluation metrics only; rewards never read it
    }


# --- rewards ------------------------------------------------------------------------------------


def completion_text(completion: object) -> object:
    """TRL passes strings, or chat lists ``[{"role": "assistant", "content": ...}]``."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return completion[-1].get("content", "")
    return completion


@dataclass
class RewardStats:
    """Running counts a trainer logs per step (reset after each read)."""

    n: int = 0
    failures: int = 0
    entropy_sum: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, result: ParseResult) -> None:
        self.n += 1
        if result.ok:
            self.entropy_sum += result.entropy
        else:
            self.failures += 1
            key = (result.reason or "").split(":")[0]
            self.reasons[key] = self.reasons.get(key, 0) + 1

    def pop(self) -> dict[str, float]:
        valid = self.n - self.failures
        out = {
            "parse_failure_rate": self.failures / self.n if self.n else 0.0,
            "hypothesis_entropy": self.entropy_sum / valid if valid else 0.0,
        }
        self.n, self.failures, self.entropy_sum, self.reasons = 0, 0, 0.0, {}
        return out


class ParticlesReward:
    """SSRL reward of goal-particle completions (paper Eq. 4) as a TRL reward function."""

    def __init__(self, config: RewardConfig = RewardConfig(), epsilon: float = 0.15, logprior=None) -> None:
        self.config = config
        self.epsilon = epsilon
        self.logprior = logprior  # None = uniform; else callable(layout_text) -> array over goal pairs
        self.stats = RewardStats()
        self.__name__ = "ssrl_particles"

    def score(self, completion: object, layout: str, actions: Sequence[str], n_particles: int | None = None) -> float:
        return self._score(completion, self._prompt_context(layout, actions), n_particles)

    def _prompt_context(self, layout: str, actions: Sequence[str]) -> tuple:
        """What scoring needs from a prompt, shared by all its completions: log-likelihoods and
        log-prior per goal pair (lists), the scene's objects and the pair → row index."""
        logliks = goal_logliks(layout, actions, self.epsilon).tolist()
        logprior = _uniform_logprior(len(logliks)) if self.logprior is None else self.logprior(layout)
        return (logliks, logprior, *_lookups(layout))

    def _score(self, completion: object, context: tuple, n_particles: int | None) -> float:
        logliks, logprior, objects, pair_index = context
        result = parse_goal_particles(completion_text(completion), objects, n_particles)
        self.stats.add(result)
        if not result.ok:
            return failure_reward(logliks, logprior, self.config)
        rows = [pair_index[i][j] for i, j in result.hypotheses]
        lls, lps = [logliks[r] for r in rows], [logprior[r] for r in rows]
        return ssrl_reward(result.probs, lls, lps, self.config, result.entropy)

    def __call__(self, prompts, completions, layout, actions, n_particles=None, **kwargs) -> list[float]:
        ns = n_particles if n_particles is not None else [None] * len(completions)
        contexts: dict[tuple, tuple] = {}  # GRPO groups repeat each prompt num_generations times
        rewards = []
        for completion, lay, act, n in zip(completions, layout, actions, ns):
            key = (lay, tuple(act))
            context = contexts.get(key)
            if context is None:
                context = contexts[key] = self._prompt_context(lay, act)
            rewards.append(self._score(completion, context, n))
        return rewards


_OPTION = re.compile(
    r"\(\s*([ab])\s*\)"  # "(a)"
    r"|\b(?:answer|option)\s*(?:is|:)?\s*\(?\s*([ab])\b"  # "Answer: b", "option a"
    r"|^\s*([ab])\s*[).:]?\s*$",  # a line that is just "a" or "b."
    re.I | re.M,
)


def parse_option(text: object) -> int | None:
    """Index (0 for a, 1 for b) of the first option a QA answer names; None when it names none."""
    if not isinstance(text, str):
        return None
    match = _OPTION.search(text)
    if match is None:
        return None
    letter = next(g for g in match.groups() if g)
    return "ab".index(letter.lower())


class QAReward:
    """QA variant (paper Fig. 6): log-likelihood of the action prefix under the chosen option's goal.

    An answer naming no option gets ``margin`` below the worse option's reward."""

    def __init__(self, epsilon: float = 0.15, failure_margin: float = 1.0) -> None:
        self.epsilon = epsilon
        self.failure_margin = failure_margin
        self.failures = 0
        self.n = 0
        self.__name__ = "ssrl_qa"

    def score(self, completion: object, layout: str, actions: Sequence[str], choice_goals) -> float:
        logliks = goal_logliks(layout, actions, self.epsilon)
        pair_index = _lookups(layout)[1]
        options = [float(logliks[pair_index[g[0]][g[1]]]) for g in choice_goals]
        choice = parse_option(completion_text(completion))
        self.n += 1
        if choice is None:
            self.failures += 1
            return min(options) - self.failure_margin
        return options[choice]

    def __call__(self, prompts, completions, layout, actions, choice_goals, **kwargs) -> list[float]:
        return [self.score(c, lay, act, cg) for c, lay, act, cg in zip(completions, layout, actions, choice_goals)]


def compute_score(data_source: str, solution_str: str, ground_truth=None, extra_info: dict | None = None) -> float:
    """veRL/EasyR1 reward entry point; ``extra_info`` carries the row's layout/actions (and choices)."""
    info = extra_info or {}
    if data_source == "gridworld/assist":
        return ParticlesReward().score(solution_str, info["layout"], info["actions"], info.get("n_particles"))
    if data_source == "gridworld/qa":
        return QAReward().score(solution_str, info["layout"], info["actions"], info["choice_goals"])
    raise ValueError(f"unknown data_source {data_source!r}; expected gridworld/assist or gridworld/qa")
