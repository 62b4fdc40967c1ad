"""SMC goal inference, the helper and the assistance command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mindzero.cli import main
from mindzero.domains import get_domain
from mindzero.domains.household.metrics import goal_f1
from mindzero.domains.household.smc import Observation, SMCGoalInference, SMCSettings, make_reasoner
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import make_episode, world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman, HouseholdHumanParams
from mindzero.envs.household.world import NOOP_ACTION
from mindzero.tasks.assist import AssistSettings, run_episode


def test_true_goal_keeps_nonzero_weight_over_500_noisy_episodes() -> None:
    """Under a very noisy human (ε = 0.5) the true goal's history likelihood stays > 0 and, while it
    is a particle, its posterior weight stays > 0."""
    human = HouseholdHumanParams(epsilon=0.5)
    names = ("apt0", "apt1", "apt2", "apt3", "apt4")
    for k in range(500):
        apt = bundled_apartment(names[k % 5])
        world = world_of(apt)
        ep = make_episode(apt, k)
        model = HouseholdHuman(world, human)
        smc = SMCGoalInference(k, human, SMCSettings(particles=4, moves=1))
        smc.reset(ep)
        smc.particles[0] = ep.goal
        smc.cache[ep.goal] = (0, 0.0)
        rng = np.random.default_rng(k)
        s = ep.initial_state()
        for _ in range(4):
            a = model.sample(s, ep.goal, rng)
            posterior = smc.update(Observation(s, a))
            if ep.goal in smc.particles:
                assert posterior.prob(ep.goal) > 0
            s = world.step(s, a, NOOP_ACTION)
        assert np.isfinite(smc.loglik(ep.goal))


def test_smc_finds_the_target_and_is_deterministic() -> None:
    apt = bundled_apartment("apt5")
    world = world_of(apt)
    model = HouseholdHuman(world)
    hits = 0
    for seed in range(8):
        ep = make_episode(apt, seed)
        runs = []
        for _ in range(2):
            smc = make_reasoner("smc", seed)
            smc.reset(ep)
            rng, s = np.random.default_rng(seed), ep.initial_state()
            for _ in range(30):
                a = model.sample(s, ep.goal, rng)
                posterior = smc.update(Observation(s, a))
                s = world.step(s, a, NOOP_ACTION)
            runs.append(posterior)
        assert runs[0].hypotheses == runs[1].hypotheses and np.array_equal(runs[0].probs, runs[1].probs)
        hits += runs[0].map()[1] == ep.goal[1]
    assert hits >= 6  # the MAP goal's target is right after 30 ticks in most episodes


def test_goal_f1() -> None:
    true = ("setup_table", 3, (("cutleryfork", 1), ("plate", 2)))
    assert goal_f1(true, true) == 1.0
    assert goal_f1(("put_dishwasher", 4, (("plate", 2),)), true) == 0.0  # another target
    assert abs(goal_f1(("setup_table", 3, (("plate", 3),)), true) - 2 * (2 / 3) * (2 / 3) / (4 / 3)) < 1e-12


def test_oracle_helper_speeds_up_and_none_changes_nothing() -> None:
    """Through the generic assistance runner, as every domain."""
    domain, settings = get_domain("household"), AssistSettings(max_steps=250, human=HOUSEHOLD_HUMAN, calibrate=False)
    apt = bundled_apartment("apt6")
    oracle, alone, none = [], [], []
    for seed in range(6):
        ep = make_episode(apt, seed)
        alone.append(run_episode(domain, ep, None, seed, settings).ticks)
        none.append(run_episode(domain, ep, make_reasoner("none", seed), seed, settings).ticks)
        oracle.append(run_episode(domain, ep, make_reasoner("oracle", seed), seed, settings).ticks)
    assert none == alone
    assert np.mean(np.array(alone) / np.array(oracle) - 1) > 0.2


def test_assist_command_writes_results(tmp_path: Path, capsys) -> None:
    out = tmp_path / "assist"
    args = ["household", "assist", "--out", str(out), "--episodes", "1", "--seeds", "1", "--smc-particles", "8"]
    assert main([*args, "--reasoner", "oracle,smc"]) == 0
    for name in ("oracle", "smc"):
        results = json.loads((out / name / "results.json").read_text())
        assert results["task"] == "household/assist" and results["metrics"]["n_runs"] == 2
        rows = [json.loads(line) for line in (out / name / "samples.jsonl").read_text().splitlines()]
        assert {r["episode_id"].split("-")[0] for r in rows} == {"apt5", "apt6"}
        assert all(r["t_helped"] > 0 and r["success"] in (True, False) for r in rows)
    assert (out / "goal_accuracy.png").stat().st_size > 0
    assert results["goal_metric"] == "goal F1" and 0 <= results["metrics"]["goal_accuracy_mean"] <= 1
    assert "smc" in capsys.readouterr().out


def test_assist_command_resumes_a_finished_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "assist"
    args = ["household", "assist", "--out", str(out), "--episodes", "1", "--seeds", "2", "--reasoner", "random,oracle"]
    assert main(args) == 0
    first = (out / "oracle" / "samples.jsonl").read_bytes()
    table = capsys.readouterr().out.splitlines()[1:5]
    assert main([*args, "--resume"]) == 0
    assert capsys.readouterr().out.splitlines()[1:5] == table
    assert main(args) == 0  # a finished run is redone from scratch, byte for byte
    assert (out / "oracle" / "samples.jsonl").read_bytes() == first
