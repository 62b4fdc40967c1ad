"""GridWorld benchmarks: QA dataset invariants, QA evaluation, assistance, CLI and results files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.results import read_jsonl
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.domains.gridworld.qa import (
    DATA_HUMAN,
    HELDOUT_COLORS,
    HELDOUT_SHAPES,
    LIKELY,
    UNLIKELY,
    build_split,
    replay,
)
from mindzero.domains.gridworld.reasoners import ExactGoalInference, role_joint
from mindzero.domains.gridworld.ssrl import goal_logliks
from mindzero.envs.gridworld.episodes import generate_episode, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import ACTION_NAMES, Observation
from mindzero.tasks.assist import AssistSettings, run_assist, run_episode, share_of
from mindzero.tasks.qa import evaluate_qa

DOMAIN = get_domain("gridworld")


@pytest.fixture(scope="module")
def qa_rows():
    rows = build_split("train", 12, seed=3, progress=False)
    for split in ("unseen_layout", "unseen_color", "unseen_shape"):
        rows += build_split(split, 4, seed=3, progress=False)
    return rows


def test_plan_length_matches_noise_free_run():
    for k in range(20):
        ep = generate_episode(np.random.default_rng(k))
        _, actions = rollout_alone(ep, HumanModel(ep.layout, epsilon=0.0, tau=1e-4), np.random.default_rng(0))
        assert len(actions) == ep.plan_length()


def test_qa_label_invariants(qa_rows):
    assert len(qa_rows) == 3 * (12 + 3 * 4)
    for row in qa_rows:
        episode, states, actions = replay(row)
        inference = ExactGoalInference(HumanParams(epsilon=0.0))
        posterior = inference.reset(episode)
        for t, a in enumerate(actions):
            posterior = inference.update(Observation(states[t], a))
        joint = role_joint(posterior, states[-1], episode.layout)
        given = row["given_object"]
        cond = joint[:, given] if row["question_type"] == 1 else joint[given, :]
        cond = cond / cond.sum()
        others = [g[0] if g[1] == given else g[1] for g in row["choice_goals"]]
        right = others["ab".index(row["answer"])]
        wrong = others[1 - "ab".index(row["answer"])]
        assert cond[right] >= LIKELY and cond[wrong] < UNLIKELY
        holding = states[-1].human_carry >= 0
        assert holding == (row["question_type"] == 3), "types 1-2 before the pick, type 3 while holding"
        assert given in row["goal"]
        words = {w for g in row["goal"] for w in (episode.layout.objects[g].color, episode.layout.objects[g].shape)}
        if row["split"] == "unseen_color":
            assert words & set(HELDOUT_COLORS)
        elif row["split"] == "unseen_shape":
            assert words & set(HELDOUT_SHAPES)
        else:
            names = {w for o in episode.layout.objects for w in (o.color, o.shape)}
            assert not names & (set(HELDOUT_COLORS) | set(HELDOUT_SHAPES))
    assert {r["answer"] for r in qa_rows} == {"a", "b"}


def test_exact_scores_100_and_random_about_half(qa_rows):
    metrics, samples = evaluate_qa(DOMAIN, qa_rows, "exact", DATA_HUMAN, progress=False)
    assert metrics["accuracy"] == 1.0
    assert all(s["correct"] for s in samples)
    many = qa_rows * 4
    random_metrics, _ = evaluate_qa(DOMAIN, many, "random", DATA_HUMAN, seed=1, progress=False)
    assert 0.35 <= random_metrics["accuracy"] <= 0.65


def test_assistance_ordering_oracle_exact_random():
    """Oracle > exact > random on the paper's protocol (fixed seeds, 20 episodes x 3 seeds)."""
    settings = AssistSettings()
    runs = episodes(EpisodeConfig())
    speed = {}
    for name in ("random", "exact", "oracle"):
        metrics, samples, curve = run_assist(
            DOMAIN, runs, settings, lambda s, n=name: DOMAIN.reasoner(n, s, settings.human), progress=False
        )
        speed[name] = metrics["speedup_mean"]
        assert len(samples) == 60 and len(curve) == 10
    assert speed["oracle"] > speed["exact"] > speed["random"]
    assert speed["exact"] > 0.05


def test_cli_assist_writes_results_and_is_deterministic(tmp_path, capsys):
    args = ["gridworld", "assist", "--reasoner", "exact", "--episodes", "3", "--seeds", "1,2"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "speedup" in out and "results:" in out
    a, b = (tmp_path / "a" / "samples.jsonl").read_bytes(), (tmp_path / "b" / "samples.jsonl").read_bytes()
    assert a == b and len(read_jsonl(tmp_path / "a" / "samples.jsonl")) == 6
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    assert results["task"] == "gridworld/assist"
    assert {"speedup_mean", "speedup_stderr", "success_rate"} <= set(results["metrics"])
    assert results["config"]["seeds"] == [1, 2] and results["mindzero_version"]
    assert len(results["goal_accuracy_curve"]) == 10
    assert (tmp_path / "a" / "goal_accuracy.png").stat().st_size > 1000


def test_share_of_exact_is_paired_and_matches_a_bootstrap():
    """The share's delta-method stderr agrees with a paired bootstrap, and pairing removes the
    difficulty both reasoners share: far below the stderr the two means would have apart."""
    rng = np.random.default_rng(0)
    difficulty = rng.gamma(2.0, 0.1, size=400)
    exact = difficulty + rng.normal(0, 0.02, 400)
    model = 0.6 * difficulty + rng.normal(0, 0.02, 400)
    share, err = share_of(model, exact)
    assert abs(share - 0.6) < 0.02
    boots = [model[i].mean() / exact[i].mean() for i in rng.integers(0, 400, size=(2000, 400))]
    assert abs(err - np.std(boots)) < 0.15 * err
    unpaired = share * np.hypot(model.std() / model.mean(), exact.std() / exact.mean()) / np.sqrt(400)
    assert err < unpaired / 3
    with pytest.raises(UserError, match="same runs"):
        share_of(model[:3], exact[:4])
    assert share_of(model[:1], exact[:1]) is None and share_of(model[:5], np.zeros(5)) is None


def test_cli_assist_reports_each_reasoners_share_of_exact(tmp_path, capsys):
    out = tmp_path / "a"
    args = ["gridworld", "assist", "--reasoner", "random,exact,oracle", "--episodes", "4", "--seeds", "1,2"]
    assert main([*args, "--out", str(out)]) == 0
    table = capsys.readouterr().out
    shares = json.loads((out / "share_of_exact.json").read_text())
    assert set(shares) == {"random", "oracle"} and shares["oracle"]["runs"] == 8
    speedups = {n: [r["speedup"] for r in read_jsonl(out / n / "samples.jsonl")] for n in ("oracle", "exact")}
    assert shares["oracle"]["share"] == pytest.approx(np.mean(speedups["oracle"]) / np.mean(speedups["exact"]))
    assert "of_exact" in table and f"{shares['oracle']['share']:.2f} ± " in table


def test_cli_config_file_and_flag_precedence(tmp_path):
    cfg = tmp_path / "assist.yaml"
    cfg.write_text("episodes: 2\nseeds: [5]\nreasoner: oracle\nhuman:\n  epsilon: 0.3\n  tau: 0.2\n")
    argv = ["gridworld", "assist", "--config", str(cfg), "--episodes", "1", "--human-tau", "0.05"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["config"]["episodes"] == 1 and results["config"]["seeds"] == [5]
    assert results["config"]["reasoner"] == "oracle"
    assert results["config"]["human"] == {"epsilon": 0.3, "tau": 0.05, "c": 0.1, "gamma": 0.95}
    assert "epsilon" not in results["config"]


def test_cli_human_tau_changes_simulation_and_likelihood(tmp_path):
    """--human-tau reaches both the simulated human (T_alone) and the exact reasoner's likelihood."""
    argv = ["gridworld", "assist", "--reasoner", "exact", "--episodes", "2", "--seeds", "1"]
    assert main([*argv, "--out", str(tmp_path / "default")]) == 0
    assert main([*argv, "--human-tau", "0.5", "--out", str(tmp_path / "hot")]) == 0
    default, hot = (read_jsonl(tmp_path / name / "samples.jsonl") for name in ("default", "hot"))
    assert [s["episode_id"] for s in default] == [s["episode_id"] for s in hot]
    assert [s["t_alone"] for s in default] != [s["t_alone"] for s in hot]
    config = json.loads((tmp_path / "hot" / "results.json").read_text())["config"]
    assert config["human"]["tau"] == 0.5
    human = HumanParams(**config["human"])
    assert human != HumanParams() and human.epsilon == HumanParams().epsilon

    runs = episodes(EpisodeConfig(episodes=2))
    episode = runs[0]
    states, actions = rollout_alone(episode, HumanModel(episode.layout, tau=0.5), np.random.default_rng(0))
    prefix = [ACTION_NAMES[a] for a in actions[:6]]
    hot_ll = goal_logliks(episode.layout.to_text(), prefix, human)
    assert not np.allclose(hot_ll, goal_logliks(episode.layout.to_text(), prefix, HumanParams()))
    # the exact reasoner built for the config's human infers with exactly that likelihood
    exact = DOMAIN.reasoner("exact", 0, human)
    exact.reset(episode)
    for t in range(len(prefix)):
        posterior = exact.update(Observation(states[t], actions[t]))
    expected = np.exp(hot_ll - hot_ll.max())
    np.testing.assert_allclose(posterior.probs, expected / expected.sum(), atol=1e-9)
    # and the CLI's run used it: replaying with the config's human reproduces every sample,
    # while an exact reasoner under the default human would not
    settings = AssistSettings(seeds=[1], human=human)
    for sample, run in zip(hot, runs):
        replayed = run_episode(DOMAIN, run, DOMAIN.reasoner("exact", 1, human), 1, settings)
        assert replayed.ticks == sample["t_helped"]
        assert float(np.mean(replayed.true_goal_prob)) == pytest.approx(sample["true_goal_prob_mean"], abs=1e-12)
    mismatched = [
        float(np.mean(run_episode(DOMAIN, run, DOMAIN.reasoner("exact", 1, HumanParams()), 1, settings).true_goal_prob))
        for run in runs
    ]
    assert mismatched != pytest.approx([s["true_goal_prob_mean"] for s in hot], abs=1e-9)


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["gridworld", "assist", "--reasoner", "psychic"],
            "--reasoner must be one of none, random, random-episode, oracle",
        ),
        (["gridworld", "assist", "--family", "mountains"], "--family must be one of empty, obstacles10"),
        (["gridworld", "qa-eval", "--data", "/nonexistent.jsonl"], "/nonexistent.jsonl: file not found"),
        (["gridworld", "assist", "--n-objects", "10", "--size", "5", "--protocol", "quick"], "impossible config"),
        (["gridworld", "assist", "--n-objects", "10"], "the reference protocol has 8 colours; got --n-objects 10"),
        (["gridworld", "assist", "--layouts", "BAD"], "line 5, column 4: unknown color 'mauve'"),
        (["gridworld", "assist", "--layouts", "/nonexistent-dir"], "/nonexistent-dir: file not found"),
    ],
)
def test_cli_bad_input_is_one_line_error(argv, message, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("..H\n.P0\n...\n\n0: mauve star\n")
    argv = [str(bad) if a == "BAD" else a for a in argv]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_assist_on_layout_files(tmp_path):
    for k in range(2):
        layout = generate_episode(np.random.default_rng(k)).layout
        (tmp_path / f"room{k}.txt").write_text(layout.to_text())
    out = tmp_path / "out"
    argv = ["gridworld", "assist", "--layouts", str(tmp_path), "--episodes", "4", "--seeds", "1"]
    argv += ["--reasoner", "oracle"]
    assert main([*argv, "--out", str(out)]) == 0
    rows = read_jsonl(out / "samples.jsonl")
    assert [r["episode_id"].split("-")[0] for r in rows] == ["room0", "room1", "room0", "room1"]


def test_qa_data_cli_small(tmp_path):
    out = tmp_path / "qa"
    assert main(["gridworld", "qa-data", "--train-episodes", "2", "--test-episodes", "3", "--out", str(out)]) == 0
    train, test = read_jsonl(out / "train.jsonl"), read_jsonl(out / "test.jsonl")
    assert len(train) == 6 and len(test) == 9
    assert {r["split"] for r in test} == {"unseen_layout", "unseen_color", "unseen_shape"}
    assert all("Answer with (a) or (b)" in r["prompt"] and r["question"] in r["prompt"] for r in train)
    assert all((out / r["image"]).is_file() for r in train + test)
    evaluated = tmp_path / "eval"
    assert main(["gridworld", "qa-eval", "--data", str(out / "test.jsonl"), "--out", str(evaluated)]) == 0
    results = json.loads((evaluated / "results.json").read_text())
    assert results["task"] == "gridworld/qa" and results["metrics"]["accuracy"] == 1.0
    assert results["config"]["human"]["epsilon"] == 0.0  # the questions' noise-free human
    pytest.importorskip("datasets")
    import datasets

    assert datasets.load_from_disk(str(out / "hf"))["test"].num_rows == 9
    assert (out / "train.parquet").is_file()
