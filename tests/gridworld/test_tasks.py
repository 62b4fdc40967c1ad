"""GridWorld benchmarks: QA dataset invariants, QA evaluation, assistance, CLI and results files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mindzero.cli import main
from mindzero.core.results import read_jsonl
from mindzero.envs.gridworld.episodes import generate_episode, rollout_alone
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.world import Observation
from mindzero.inference.gridworld import ExactGoalInference, role_joint
from mindzero.tasks.gridworld_assist import AssistConfig, run_assist
from mindzero.tasks.gridworld_qa import (
    HELDOUT_COLORS,
    HELDOUT_SHAPES,
    LIKELY,
    UNLIKELY,
    build_split,
    evaluate_qa,
    replay,
)


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
        inference = ExactGoalInference(epsilon=0.0)
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
    metrics, samples = evaluate_qa(qa_rows, "exact", progress=False)
    assert metrics["accuracy"] == 1.0
    assert all(s["correct"] for s in samples)
    many = qa_rows * 4
    random_metrics, _ = evaluate_qa(many, "random", seed=1, progress=False)
    assert 0.35 <= random_metrics["accuracy"] <= 0.65


def test_assistance_ordering_oracle_exact_random():
    """Oracle > exact > random on the paper's protocol (fixed seeds, 20 episodes x 3 seeds)."""
    from mindzero.inference.gridworld import make_reasoner

    speed = {}
    for name in ("random", "exact", "oracle"):
        metrics, samples, curve = run_assist(
            AssistConfig(reasoner=name), lambda s, n=name: make_reasoner(n, s), progress=False
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


def test_cli_config_file_and_flag_precedence(tmp_path):
    cfg = tmp_path / "assist.yaml"
    cfg.write_text("episodes: 2\nseeds: [5]\nreasoner: oracle\n")
    assert main(["gridworld", "assist", "--config", str(cfg), "--episodes", "1", "--out", str(tmp_path / "o")]) == 0
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["config"]["episodes"] == 1 and results["config"]["seeds"] == [5]
    assert results["config"]["reasoner"] == "oracle"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["gridworld", "assist", "--reasoner", "psychic"], "unknown reasoner 'psychic'"),
        (["gridworld", "assist", "--family", "mountains"], "unknown layout family"),
        (["gridworld", "qa-eval", "--data", "/nonexistent.jsonl"], "no such questions file"),
        (["gridworld", "assist", "--n-objects", "30", "--size", "5"], "impossible config"),
        (["gridworld", "assist", "--layouts", "BAD"], "line 5, column 4: unknown color 'mauve'"),
        (["gridworld", "assist", "--layouts", "/nonexistent-dir"], "cannot read layout"),
    ],
)
def test_cli_bad_input_is_one_line_error(argv, message, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("..H\n.P0\n...\n\n0: mauve star\n")
    argv = [str(bad) if a == "BAD" else a for a in argv]
    assert main([*argv, "--out", str(tmp_path)]) == 2
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
    pytest.importorskip("datasets")
    import datasets

    assert datasets.load_from_disk(str(out / "hf"))["test"].num_rows == 9
    assert (out / "train.parquet").is_file()
