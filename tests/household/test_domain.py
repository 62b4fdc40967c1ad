"""Household through the domain interface: generic assistance, the Fig. 9 particle parser, the
SSRL task's rows and reward."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from mindzero.domains import get_domain
from mindzero.domains.base import TrainData
from mindzero.domains.household.hypotheses import (
    TASK_OF_TARGET,
    format_household_particles,
    parse_household_particles,
)
from mindzero.domains.reward import SSRLReward
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import TASKS, all_goals, make_episode, sample_goal
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.inference.llm import LLMReasoner, LLMSettings
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter
from mindzero.tasks.assist import AssistSettings, run_assist, run_episode


def test_generic_assist_runs_household() -> None:
    domain = get_domain("household")
    episodes = domain.heldout_episodes(2, 0)
    assert {e.apartment.name for e in episodes} == {"apt5", "apt6"}
    settings = AssistSettings(seeds=[1], human=HOUSEHOLD_HUMAN, max_steps=250)
    metrics, samples, _ = run_assist(
        domain, episodes, settings, lambda s: domain.reasoner("oracle", s, HOUSEHOLD_HUMAN), progress=False
    )
    assert metrics["success_rate"] == 1.0 and metrics["speedup_mean"] > 0
    assert metrics["kl_to_exact_mean"] > 0  # the exact reasoner ran beside as the reference
    assert len(samples) == 2


def test_particles_round_trip_and_failures_are_data() -> None:
    apt = bundled_apartment("apt5")
    rng = np.random.default_rng(0)
    goals = [sample_goal(apt, rng) for _ in range(3)]
    goals = list(dict.fromkeys(goals))
    text = format_household_particles(goals, [0.5, 0.3, 0.2][: len(goals)], apt)
    result = parse_household_particles(text, apt, len(goals))
    assert result.ok and set(result.hypotheses) == set(goals) and abs(sum(result.probs) - 1) < 1e-9
    assert set(result.hypotheses) <= set(all_goals(apt))
    assert result.canonical and not parse_household_particles(f"Goals: {text}", apt, len(goals)).canonical
    bad = {
        "no json here": "invalid JSON",
        '{"particles": []}': "no particles",
        text.replace('"p":0.5', '"p":1.5'): "schema",
        text.replace(goals[0][0], "do_laundry", 1): "schema",
        '{"particles":[{"task_name":"setup_table","objects":[{"type":"plate","count":2}],'
        '"target":{"type":"fridge"},"p":1}]}': "puts things at the kitchentable",
        '{"particles":[{"task_name":"setup_table","objects":[{"type":"salmon","count":2}],'
        '"target":{"type":"kitchentable"},"p":1}]}': "not a goal of this apartment",
    }
    for completion, reason in bad.items():
        result = parse_household_particles(completion, apt, None)
        assert not result.ok and reason in result.reason
    assert not parse_household_particles(text, apt, len(goals) + 1).ok  # count asked for
    assert not parse_household_particles(None, apt).ok


def test_ssrl_rows_have_no_goal_and_the_reward_prefers_the_true_goal() -> None:
    domain = get_domain("household")
    task = domain.tasks["assist"]
    rows = task.rows(TrainData(episodes=2, seed=0, every=5, n_particles=1, prompt_style="compact"))
    assert rows and all("goal" not in r for r in rows)
    row = max(rows, key=lambda r: r["t"])  # late in an episode: the actions say a lot
    episode = make_episode(bundled_apartment(row["apartment"]), row["episode_seed"])
    apt = episode.apartment
    reward = SSRLReward(task, HOUSEHOLD_HUMAN)
    other = next(g for g in all_goals(apt) if g[1] != episode.goal[1])
    completions = [format_household_particles([g], [1.0], apt) for g in (episode.goal, other)] + ["nonsense"]
    scores = reward([row["prompt"]] * 3, completions, **{k: [row[k]] * 3 for k in task.columns})
    assert scores[0] > scores[1] > scores[2]
    rng = np.random.default_rng(1)
    assert parse_household_particles(task.random_completion(row, 3, rng), apt, 3).ok


def test_the_format_warm_start_writes_every_task_as_often_as_episodes_pose_it() -> None:
    """Goals drawn uniformly would make watch_tv (the task with the fewest goals) 5 % of the warm
    start's answers; episodes pose it 20 % of the time."""
    task = get_domain("household").tasks["assist"]
    row = task.rows(TrainData(episodes=1, seed=0, every=5, n_particles=1, prompt_style="facts"))[0]
    apt = bundled_apartment(row["apartment"])
    rng = np.random.default_rng(0)
    answers = [task.random_completion(row, 1, rng) for _ in range(1000)]
    assert all(parse_household_particles(a, apt, 1).ok for a in answers)
    tasks = Counter(TASK_OF_TARGET[a.split()[0]] for a in answers)  # the word form names the target first
    assert set(tasks) == set(TASKS)
    assert all(0.15 < n / 1000 < 0.25 for n in tasks.values()), tasks


def test_prompts() -> None:
    domain = get_domain("household")
    episode = domain.heldout_episodes(1, 0)[0]
    full = domain.assist_prompt(episode, [], 10, "full")
    for part in (
        "[current state]",
        "[key action history]",
        "Human has not taken any key action yet.",
        "n=10 hypotheses",
        '"GoalParticle"',
        "The apartment has 4 rooms",
    ):
        assert part in full
    assert "Give 10 goal(s)" in domain.assist_prompt(episode, [], 10, "compact")


class ScriptedBackend(Backend):
    """Always writes the same completion (a stand-in model: no weights, exact costs)."""

    def __init__(self, text: str) -> None:
        self.name, self.text, self.usage, self.prompts = "scripted", text, UsageMeter(1000), []

    def sample(self, prompts: Sequence[Prompt], n=1, temperature=1.0, max_new_tokens=256, seed=None):
        self.prompts += prompts
        return [[Generation(self.text, 10, len(self.text.split()))] * n for _ in prompts]

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        return [0.0] * len(continuations)


def test_llm_reasoner_acts_through_the_domain() -> None:
    domain = get_domain("household")
    episode = domain.heldout_episodes(1, 3)[0]
    settings = AssistSettings(max_steps=250, human=HOUSEHOLD_HUMAN, calibrate=False)
    alone = run_episode(domain, episode, None, 5, settings)
    truth = ScriptedBackend(format_household_particles([episode.goal], [1.0], episode.apartment))
    helped = run_episode(domain, episode, LLMReasoner(domain, truth, LLMSettings(prompt_style="full")), 5, settings)
    oracle = run_episode(domain, episode, domain.reasoner("oracle", 5, HOUSEHOLD_HUMAN), 5, settings)
    assert helped.ticks == oracle.ticks < alone.ticks  # the true goal from the first decision on
    assert "[human's next action]" in truth.prompts[0][0]["content"]
    garbage = LLMReasoner(domain, ScriptedBackend("no idea"), LLMSettings())
    assert run_episode(domain, episode, garbage, 5, settings).ticks == alone.ticks  # uniform belief: it waits
    assert garbage.stats.metrics()["parse_failure_rate"] == 1.0


def test_word_form_particles_round_trip_and_failures_are_data() -> None:
    """The word form of ``facts`` prompts names the same goals as the JSON; a bad word answer
    is a failed parse with its reason, never an exception."""
    apt = bundled_apartment("apt5")
    rng = np.random.default_rng(2)
    goals = list(dict.fromkeys(sample_goal(apt, rng) for _ in range(3)))
    probs = [0.5, 0.3, 0.2][: len(goals)]
    words = format_household_particles(goals, probs, apt, "words")
    assert "{" not in words and words.count(";") == len(goals) - 1
    parsed, from_json = (
        parse_household_particles(t, apt, len(goals)) for t in (words, format_household_particles(goals, probs, apt))
    )
    assert (
        parsed.ok and parsed.canonical and parsed.hypotheses == from_json.hypotheses and parsed.probs == from_json.probs
    )
    loose = parse_household_particles("  " + words.replace(" ; ", ";").replace(" ", "  ") + " ;", apt, len(goals))
    assert loose.ok and not loose.canonical and loose.hypotheses == parsed.hypotheses
    bad = {
        "kitchentable plate 2": "not the word form",
        "garden plate 2 1.00": "garden is no task's target",
        "setup_table plate 2 1.00": "setup_table is no task's target",
        "kitchentable rock 2 1.00": "rock",
        "kitchentable plate 2 1.50": "less than or equal to 1",
        "kitchentable salmon 2 1.00": "not a goal of this apartment",
        "kitchentable plate 9 1.00": "not a goal of this apartment",
    }
    for completion, reason in bad.items():
        result = parse_household_particles(completion, apt, None)
        assert not result.ok and reason in result.reason, (completion, result.reason)
    assert not parse_household_particles(words, apt, len(goals) + 1).ok


def test_facts_prompts_say_what_was_put_where_and_rows_answer_in_words() -> None:
    domain = get_domain("household")
    task = domain.tasks["assist"]
    rows = task.rows(TrainData(episodes=2, seed=0, every=3, n_particles=2, prompt_style="facts"))
    assert {r["particle_form"] for r in rows} == {"words"}
    assert all(r["prompt"].startswith("in ") and r["prompt"].endswith("| n2") for r in rows)
    last = max(rows, key=lambda r: r["t"])
    episode = make_episode(bundled_apartment(last["apartment"]), last["episode_seed"])
    target = episode.apartment.furniture[episode.goal[1]]
    assert f"put {target} " in last["prompt"]  # late in an episode the human has put goal objects there
    completion = task.random_completion(last, 2, np.random.default_rng(0))
    assert parse_household_particles(completion, episode.apartment, 2).ok and "{" not in completion
    texts = domain.hypothesis_texts(episode, "facts")
    assert len(texts) == len(all_goals(episode.apartment)) and all(t.endswith(" 1.00") for _, t in texts)
