"""Household's likelihood and prior estimators (``--likelihood model|llm``, ``--prior
uniform|rules|llm``): the prompts, the rules, the disk cache of LLM scores, and their use in the
reward, exact inference and SMC; bad input is a one-line error (a corrupt cache: a rebuild)."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.domains.base import Estimators, with_estimators
from mindzero.domains.gridworld import GridWorldDomain
from mindzero.domains.household.estimators import (
    HouseholdEstimators,
    goal_phrase,
    history_text,
    likelihood_prompt,
    prior_prompt,
    rule_weight,
)
from mindzero.domains.household.smc import Observation, make_reasoner, proposal_logprobs
from mindzero.domains.household.ssrl import AssistTask, rollout
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import all_goals, make_episode, world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.envs.household.world import GRAB, NOOP_ACTION, WALK
from mindzero.llm.base import Backend, Prompt, UsageMeter
from mindzero.llm.score_cache import CachedScorer, cache_path

APT = bundled_apartment("apt0")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A model spec of a tiny random Llama (built offline in about a second)."""
    pytest.importorskip("transformers")
    from mindzero.llm.tiny import build_tiny_model

    return f"hf:{build_tiny_model(tmp_path_factory.mktemp('tiny') / 'model', seed=0)}"


def furniture(name: str) -> int:
    return APT.furniture.index(name)


def row_of(seed: int = 3, t: int = 6) -> dict:
    episode = make_episode(APT, seed)
    observations = rollout(episode, np.random.default_rng(seed))[:t]
    return {"apartment": "apt0", "episode_seed": seed, "actions": [list(o.action) for o in observations]}


# ---- rules prior -------------------------------------------------------------------------------


def test_rules_prior_fits_classes_to_targets_and_matches_counts() -> None:
    in_fridge = ("put_fridge", furniture("fridge"), (("salmon", 2),))
    in_bathroom = ("put_fridge", furniture("bathroomcabinet"), (("salmon", 2),))
    assert rule_weight(APT, in_fridge) - rule_weight(APT, in_bathroom) >= 7.0  # food goes in the fridge
    table = furniture("kitchentable")
    matched = ("setup_table", table, (("cutleryfork", 2), ("plate", 2)))
    mismatched = ("setup_table", table, (("cutleryfork", 1), ("plate", 3)))
    assert rule_weight(APT, matched) > rule_weight(APT, mismatched)
    two_remotes = ("watch_tv", furniture("coffeetable"), (("chips", 1), ("remotecontrol", 2)))
    assert rule_weight(APT, two_remotes) < rule_weight(APT, ("watch_tv", furniture("coffeetable"), (("chips", 2),)))


def test_rules_prior_is_a_normalised_non_uniform_distribution_over_the_goals() -> None:
    prior = HouseholdEstimators(Estimators(prior="rules")).logprior(APT)
    goals = all_goals(APT)
    assert prior.shape == (len(goals),) and math.isclose(np.exp(prior).sum(), 1.0, rel_tol=1e-9)
    assert prior.max() - prior.min() > 3.0
    uniform = HouseholdEstimators(Estimators()).logprior(APT)
    assert np.allclose(uniform, -math.log(len(goals)))


# ---- prompts -----------------------------------------------------------------------------------


def test_prompt_format_is_the_documented_one() -> None:
    goal = ("setup_table", furniture("kitchentable"), (("cutleryfork", 1), ("plate", 2)))
    start = make_episode(APT, 0).initial_state()
    room = APT.rooms[world_of(APT).cell_room[start[1]]]
    assert likelihood_prompt(APT, goal, start) == (
        "The person is setting up the table at home: they want to put 1 cutleryfork and 2 plates on the "
        f"kitchentable. They start in the {room}.\nWhat they do:"
    )
    assert prior_prompt(APT, goal) == (
        "The person at home is setting up the table.\nQuestion: Is it plausible that they want to put 1 "
        "cutleryfork and 2 plates on the kitchentable? Answer yes or no.\nAnswer:"
    )
    fridge = furniture("fridge")
    walks = [(WALK, fridge, 0)] * 3 + [NOOP_ACTION, (WALK, fridge, 0)]
    assert history_text(world_of(APT), walks) == (
        " The person walks towards the fridge. The person waits. The person walks towards the fridge."
    )
    assert history_text(world_of(APT), []) == ""
    chips = ("watch_tv", furniture("coffeetable"), (("chips", 2), ("remotecontrol", 1)))
    assert goal_phrase(APT, chips) == "put 2 chips and 1 remotecontrol on the coffeetable"
    doc = (Path(__file__).parents[2] / "docs" / "household.md").read_text()
    assert prior_prompt(APT, goal) in doc  # the documented format is the real one
    assert likelihood_prompt(APT, goal, start).replace(room, "bathroom") in doc


# ---- LLM estimators and their cache ------------------------------------------------------------


def test_score_pairs_batches_distinct_prompts_like_score(tiny: str) -> None:
    from mindzero.llm import load_backend

    backend = load_backend(tiny, batch_size=3)
    pairs = [("Is it plausible?", " yes"), ("A longer prompt about a plate", " no way"), ("x", " the fridge")] * 2
    pairs.append(("Another prompt", ""))
    batched = backend.score_pairs(pairs)
    alone = [backend.score(p, [c])[0] for p, c in pairs]
    assert np.allclose(batched, alone, atol=1e-4) and batched[-1] == 0.0
    assert len(set(np.round(batched[:3], 6))) == 3


def test_llm_estimators_are_cached_so_a_second_run_scores_nothing(tiny: str, tmp_path: Path) -> None:
    settings = Estimators(likelihood="llm", prior="llm", estimator_model=tiny, estimator_cache=str(tmp_path))
    row = row_of()
    start = make_episode(APT, 3).initial_state()
    goals = all_goals(APT)[:40]
    first = HouseholdEstimators(settings)
    logliks = first.text_logliks(APT, start, row["actions"], goals)
    prior = first.logprior(APT)
    calls = first.scorers["likelihood"].backend.usage.total.calls
    assert calls >= 1 and first.stats()["likelihood_scores_computed"] == 40
    assert first.stats()["prior_scores_computed"] == 2 * len(all_goals(APT))
    assert np.all(np.isfinite(logliks)) and np.all(logliks < 0) and len(set(np.round(logliks, 6))) > 1
    assert math.isclose(np.exp(prior).sum(), 1.0, rel_tol=1e-9)

    second = HouseholdEstimators(settings)  # a new run: reads the cache files
    assert np.array_equal(second.text_logliks(APT, start, row["actions"], goals), logliks)
    assert np.array_equal(second.logprior(APT), prior)
    stats = second.stats()
    assert stats["likelihood_scores_computed"] == 0 and stats["prior_scores_computed"] == 0
    assert stats["likelihood_cache_hit_rate"] == 1.0
    assert not any(isinstance(s._backend, Backend) for s in second.scorers.values())  # the model never loaded
    for kind in ("likelihood", "prior"):
        assert cache_path(tmp_path, tiny, kind).is_file()


class CountingBackend(Backend):
    """Scores a pair by its continuation's length; counts the pairs it is asked."""

    def __init__(self) -> None:
        self.name = "counting"
        self.usage = UsageMeter(None)
        self.asked = 0

    def sample(self, prompts, n, temperature, max_new_tokens, seed):
        raise NotImplementedError

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        self.asked += len(continuations)
        return [-0.5 * len(c) - 0.01 * len(prompt) for c in continuations]


def test_a_corrupt_cache_is_rebuilt_with_a_one_line_warning(tmp_path: Path, caplog) -> None:
    pairs = [(f"prompt {k}", f" answer {k}") for k in range(5)]
    backend = CountingBackend()
    expected = CachedScorer(backend, tmp_path, "m", "likelihood").scores(pairs)
    path = cache_path(tmp_path, "m", "likelihood")
    lines = path.read_text().splitlines()
    tampered = json.loads(lines[2])
    tampered["v"] = 0.0  # a changed score: its checksum fails
    lines[2] = json.dumps(tampered)
    path.write_text("\n".join(lines) + "\n{not json\n")
    again = CountingBackend()
    with caplog.at_level(logging.WARNING):
        scorer = CachedScorer(again, tmp_path, "m", "likelihood")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "corrupt" in warnings[0] and "\n" not in warnings[0] and str(path) in warnings[0]
    assert np.array_equal(scorer.scores(pairs), expected)
    assert again.asked == 1 and scorer.misses == 1  # only the tampered score is paid again
    reread = CachedScorer(CountingBackend(), tmp_path, "m", "likelihood")
    assert len(reread.cache.scores) == 5


def test_a_cache_of_another_model_is_not_used(tmp_path: Path, caplog) -> None:
    CachedScorer(CountingBackend(), tmp_path, "m", "prior").scores([("p", " yes")])
    path = cache_path(tmp_path, "m", "prior")
    lines = path.read_text().splitlines()
    lines[0] = lines[0].replace('"prior"', '"likelihood"')
    path.write_text("\n".join(lines) + "\n")
    backend = CountingBackend()
    with caplog.at_level(logging.WARNING):
        CachedScorer(backend, tmp_path, "m", "prior").scores([("p", " yes")])
    assert backend.asked == 1 and any("corrupt" in r.getMessage() for r in caplog.records)


class NoLogprobs(CountingBackend):
    def score(self, prompt, continuations):
        raise NotImplementedError


def test_a_backend_without_logprobs_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        CachedScorer(NoLogprobs(), tmp_path, "chat-only", "prior").scores([("p", " yes")])
    message = str(err.value)
    assert "log-probabilities" in message and "chat-only" in message and "\n" not in message


def test_an_endpoint_without_echoed_logprobs_is_a_one_line_error(tmp_path: Path) -> None:
    """The real case: an OpenAI-compatible server that answers /completions without logprobs."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
    import threading

    from fake_openai_server import FakeOpenAIServer

    from mindzero.llm import load_backend

    server = FakeOpenAIServer()
    server.reply = {"choices": [{"index": 0, "text": "x", "finish_reason": "stop"}]}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        backend = load_backend(f"openai:{server.url}#{FakeOpenAIServer.model}")
        with pytest.raises(UserError) as err:
            CachedScorer(backend, tmp_path, "openai", "likelihood").scores([("p", " yes")])
    finally:
        server.shutdown()
        server.server_close()
    assert "log-probabilities" in str(err.value) and "\n" not in str(err.value)


# ---- options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["household", "assist", "--prior", "bogus"], "--prior must be one of uniform, rules, llm"),
        (["household", "assist", "--likelihood", "planner"], "--likelihood must be one of model, llm"),
        (["household", "assist", "--reasoner", "exact", "--likelihood", "llm"], "needs --estimator-model"),
        (["train", "ssrl", "--domain", "gridworld", "--prior", "rules"], "uniform prior only"),
        (["train", "ssrl", "--domain", "household", "--task", "assist", "--prior", "llm"], "--estimator-model"),
    ],
)
def test_bad_estimator_options_are_one_line_errors(argv, fragment, tmp_path: Path, capsys) -> None:
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mindzero: error: ") and fragment in err[0], err
    out = tmp_path / "out"
    assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]


def test_gridworld_tasks_take_only_the_default_estimators() -> None:
    task = GridWorldDomain().tasks["assist"]
    assert with_estimators(task, Estimators()) is task
    with pytest.raises(UserError):
        with_estimators(task, Estimators(prior="rules"))


# ---- the reward and the reasoners --------------------------------------------------------------


def test_reward_context_uses_the_chosen_estimators(tiny: str, tmp_path: Path) -> None:
    row = row_of()
    default = AssistTask().context(row, HOUSEHOLD_HUMAN)
    rules = with_estimators(AssistTask(), Estimators(prior="rules")).context(row, HOUSEHOLD_HUMAN)
    assert rules.logliks == default.logliks  # the planner likelihood either way
    assert np.allclose(rules.logprior, HouseholdEstimators(Estimators(prior="rules")).logprior(APT))
    assert not np.allclose(rules.logprior, default.logprior)
    settings = Estimators(likelihood="llm", estimator_model=tiny, estimator_cache=str(tmp_path))
    llm = AssistTask().with_estimators(settings).context(row, HOUSEHOLD_HUMAN)
    assert llm.logprior == default.logprior and len(llm.logliks) == len(all_goals(APT))
    start = make_episode(APT, 3).initial_state()
    goals = all_goals(APT)[:5]
    assert np.allclose(llm.logliks[:5], HouseholdEstimators(settings).text_logliks(APT, start, row["actions"], goals))


def test_exact_inference_starts_at_the_prior_and_defaults_are_unchanged() -> None:
    episode = make_episode(APT, 5)
    rules = make_reasoner("exact", 0, HOUSEHOLD_HUMAN, estimators=Estimators(prior="rules"))
    posterior = rules.reset(episode)
    assert np.allclose(np.log(posterior.probs), HouseholdEstimators(Estimators(prior="rules")).logprior(APT))
    plain = make_reasoner("exact", 0, HOUSEHOLD_HUMAN)
    assert np.allclose(plain.reset(episode).probs, 1 / len(all_goals(APT)))
    observations = rollout(episode, np.random.default_rng(1))[:8]
    for obs in observations:
        a, b = plain.update(obs), rules.update(obs)
    ratio = np.log(b.probs) - np.log(a.probs)  # posterior ∝ likelihood × prior: the ratio is the prior's
    assert np.allclose(ratio - ratio.mean(), rules.logprior - rules.logprior.mean(), atol=1e-6)


def test_smc_weights_particles_by_prior_over_proposal() -> None:
    apartment_q = proposal_logprobs(APT)
    assert math.isclose(np.exp(apartment_q).sum(), 1.0, rel_tol=1e-9)
    smc = make_reasoner("smc", 4, HOUSEHOLD_HUMAN, estimators=Estimators(prior="rules"))
    smc.reset(make_episode(APT, 5))
    goals = all_goals(APT)
    prior = dict(zip(goals, HouseholdEstimators(Estimators(prior="rules")).logprior(APT)))
    q = dict(zip(goals, apartment_q))
    assert np.allclose(smc.logw, [prior[g] - q[g] for g in smc.particles])
    assert not np.allclose(smc.logw, smc.logw[0])


def test_sample_goal_frequencies_match_the_proposal_probabilities() -> None:
    from collections import Counter

    from mindzero.envs.household.episodes import sample_goal

    rng = np.random.default_rng(0)
    counts = Counter(sample_goal(APT, rng) for _ in range(20_000))
    goals = all_goals(APT)
    q = np.exp(proposal_logprobs(APT))
    seen = np.array([counts[g] / 20_000 for g in goals])
    assert np.abs(seen - q).max() < 0.01


def test_smc_and_exact_run_on_the_llm_likelihood(tiny: str, tmp_path: Path) -> None:
    settings = Estimators(likelihood="llm", estimator_model=tiny, estimator_cache=str(tmp_path))
    episode = make_episode(APT, 2)
    observations = rollout(episode, np.random.default_rng(2))[:4]
    smc = make_reasoner("smc", 1, HOUSEHOLD_HUMAN, estimators=settings)
    smc.reset(episode)
    for obs in observations:
        posterior = smc.update(obs)
    assert np.all(np.isfinite(posterior.probs)) and math.isclose(posterior.probs.sum(), 1.0)
    exact = make_reasoner("exact", 0, HOUSEHOLD_HUMAN, estimators=settings)
    exact.reset(episode)
    posterior = exact.update(Observation(observations[0].state, (GRAB, 0, 0)))  # any action: text has no validity
    assert np.all(np.isfinite(posterior.probs))


def test_prior_cache_command_precomputes_once(tiny: str, tmp_path: Path, capsys) -> None:
    argv = ["household", "prior-cache", "--model", tiny, "--split", "test", "--cache", str(tmp_path)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    second = capsys.readouterr().out
    assert "prior scores: 0 computed" not in first and "prior scores: 0 computed" in second
    assert cache_path(tmp_path, tiny, "prior").is_file()
