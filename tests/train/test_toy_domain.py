"""A second domain in a few lines proves the generic path has nothing GridWorld-specific left:
it trains one GRPO step, runs assistance episodes (exact and LLM reasoners) and answers through
the same code as GridWorld."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from mindzero import domains
from mindzero.core.config import from_flat  # noqa: E402
from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseResult
from mindzero.core.posterior import Posterior
from mindzero.domains.base import RewardContext, TrainData
from mindzero.domains.reward import SSRLReward
from mindzero.inference.llm import LLMReasoner, LLMSettings
from mindzero.tasks.assist import AssistSettings, run_assist

LENGTH, START = 9, 4  # cells 0..8; the person starts in the middle and walks to one end
GOALS = (0, LENGTH - 1)
MOVES = (-1, 0, 1)


def move_probs(pos: int, goal: int, human: HumanParams) -> np.ndarray:
    """Step towards the goal with prob 1 − ε, else a uniformly random move (the likelihood)."""
    probs = np.full(3, human.epsilon / 3)
    probs[MOVES.index(int(np.sign(goal - pos)))] += 1 - human.epsilon
    return probs


def logliks(moves: list[int], human: HumanParams) -> list[float]:
    out = []
    for goal in GOALS:
        pos, total = START, 0.0
        for m in moves:
            total += math.log(move_probs(pos, goal, human)[MOVES.index(m)])
            pos = min(max(pos + m, 0), LENGTH - 1)
        out.append(total)
    return out


def parse_side(text: object) -> ParseResult:
    words = str(text).lower()
    found = [g for g, word in zip(GOALS, ("left", "right")) if word in words]
    return ParseResult(True, tuple(found), (1.0,)) if len(found) == 1 else ParseResult(False, reason="no side")


@dataclass(frozen=True)
class Episode:
    goal: int
    episode_id: str


class GuessTask:
    kind = "qa"
    columns = ("moves",)
    completion_tokens = 4

    def random_completion(self, row, n_particles, rng):
        return "left" if rng.random() < 0.5 else "right"

    def rows(self, data: TrainData) -> list[dict]:
        rng = np.random.default_rng(data.seed)
        rows = []
        for _ in range(data.episodes):
            moves = [int(m) for m in rng.choice(MOVES, size=3)]
            rows.append({"prompt": f"Moves: {moves}. Which end, left or right?", "moves": moves})
        return rows

    def context(self, row, human):
        return RewardContext(logliks(row["moves"], human), (math.log(0.5),) * 2, {0: 0, LENGTH - 1: 1}, parse_side)


class Line:
    """The person walks a line; the helper pulls it one more cell towards the MAP end when sure."""

    idle = 0

    def __init__(self, episode: Episode, human: HumanParams) -> None:
        self.goal, self.human = episode.goal, human

    def initial_state(self):
        return (START, 0)

    def human_action(self, state, rng):
        return MOVES[rng.choice(3, p=move_probs(state[0], self.goal, self.human))]

    def helper_action(self, state, posterior, rng):
        return int(np.sign(posterior.map() - state[0])) if posterior.probs.max() > 0.9 else 0

    def observation(self, state, human_action):
        return (state[0], human_action)

    def step(self, state, human_action, helper_action):
        return (min(max(state[0] + human_action + helper_action, 0), LENGTH - 1), state[1] + 1)

    def done(self, state):
        return state[0] == self.goal

    def ticks(self, state):
        return state[1]

    def teleport(self, state, goal):
        return state


class ExactLine:
    name = "exact"

    def __init__(self, human: HumanParams) -> None:
        self.human = human

    def reset(self, episode):
        self.log_post = np.log(np.full(2, 0.5))
        return Posterior(GOALS, np.exp(self.log_post))

    def update(self, observation):
        pos, move = observation
        self.log_post += [math.log(move_probs(pos, g, self.human)[MOVES.index(move)]) for g in GOALS]
        w = np.exp(self.log_post - self.log_post.max())
        return Posterior(GOALS, w / w.sum())


class LineDomain:
    name = "line"
    reasoners = ("exact",)
    prompt_styles = ("compact",)
    goal_metric = "MAP-goal accuracy"
    tasks = {"guess": GuessTask()}

    def human(self, flags):
        return flags

    def reasoner(self, name, seed, human):
        return ExactLine(human)

    def simulator(self, episode, human):
        return Line(episode, human)

    def hypotheses(self, episode):
        return GOALS

    def goal(self, episode):
        return episode.goal

    def goal_record(self, episode):
        return episode.goal

    def goal_score(self, posterior, goal):
        return float(posterior.map() == goal)

    def episode_id(self, episode):
        return episode.episode_id

    def assist_prompt(self, episode, observations, n_particles, style):
        return f"Moves: {[move for _, move in observations]}. Which end, left or right?"

    def parse_particles(self, text, episode, n_particles):
        return parse_side(text)

    def qa_prompt(self, row, style):
        return row["prompt"]

    def qa_option_probs(self, row, reasoner):
        raise NotImplementedError


@pytest.fixture
def line_domain():
    domains.register("line", LineDomain)
    yield domains.get_domain("line")
    domains.unregister("line")


EPISODES = [Episode(GOALS[k % 2], f"line-{k}") for k in range(6)]


def test_reward_prefers_the_end_the_moves_point_to(line_domain) -> None:
    reward = SSRLReward(line_domain.tasks["guess"], HumanParams(epsilon=0.3))
    left, right, garbage = reward(None, ["left", "right", "???"], moves=[[1, 1, 1]] * 3)
    assert right > left > garbage


def test_assist_episodes_run_through_the_generic_benchmark(line_domain) -> None:
    settings = AssistSettings(seeds=[1, 2], human=HumanParams(epsilon=0.3), max_steps=40)
    exact = run_assist(
        line_domain, EPISODES, settings, lambda seed: line_domain.reasoner("exact", seed, settings.human)
    )
    metrics, samples, curve = exact
    assert metrics["n_runs"] == 12 and metrics["success_rate"] == 1.0
    assert metrics["speedup_mean"] > 0.2  # pulling towards the inferred end shortens the walk
    assert metrics["kl_to_exact_mean"] == pytest.approx(0.0)


def test_llm_reasoner_works_in_another_domain(line_domain, scripted) -> None:
    backend = scripted(["right", "no idea", "left"])
    reasoner = LLMReasoner(line_domain, backend, LLMSettings())
    assert reasoner.reset(EPISODES[1]).probs.tolist() == [0.5, 0.5]
    assert reasoner.update((START, 1)).map() == LENGTH - 1
    assert reasoner.update((START + 1, 1)).map() == LENGTH - 1  # unparsable: the last posterior is kept
    assert reasoner.update((START + 2, 1)).map() == 0
    assert reasoner.stats.metrics()["parse_failure_rate"] == pytest.approx(1 / 3)


def test_one_grpo_step_in_another_domain(line_domain, tiny_model_dir, tmp_path) -> None:
    pytest.importorskip("trl")
    from mindzero.train.ssrl import SSRLConfig, train_ssrl

    config = from_flat(
        SSRLConfig,
        domain="line",
        task="guess",
        model=str(tiny_model_dir),
        out=str(tmp_path / "line"),
        train_episodes=4,
        max_steps=1,
        prompts_per_step=2,
        num_generations=2,
        save_steps=1,
        eval_every=0,
    )
    summary = train_ssrl(config)
    assert summary["steps"] == 1
    assert summary["last"]["completions"] == 4
    recorded = json.loads((tmp_path / "line" / "ssrl_config.json").read_text())
    assert recorded["domain"] == "line" and recorded["max_completion_length"] == GuessTask.completion_tokens
