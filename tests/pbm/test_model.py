"""The PBM on a tiny local model: training through transformers' Trainer, one-pass scoring that
matches prefix-by-prefix scoring, checkpoints that load and resume, and clear errors for wrong folders."""

from __future__ import annotations

import json
import random

import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.core.results import write_jsonl
from mindzero.train.pbm import PBMConfig, train_pbm

pytest.importorskip("transformers")


def _rows(n: int, seed: int = 0) -> list[dict]:
    """Separable toy rows: a step is correct iff it says [yes] (the training mechanics, not ToM)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        good = [rng.random() < 0.5 for _ in range(rng.randrange(1, 5))]
        steps = [f"## Step {j + 1} ##\nagent [{'yes' if g else 'no'}]" for j, g in enumerate(good)]
        rows.append(
            {
                "id": str(i),
                "story_id": str(i),
                "question_order": i % 5,
                "prompt": "Story: Sally and Anne.",
                "completions": steps,
                "labels": good,
            }
        )
    return rows


@pytest.fixture(scope="module")
def trained(tiny_model_dir, tmp_path_factory):
    # 167 stories: 33 held out, 13 for validation, 121 to train on
    out = tmp_path_factory.mktemp("pbm")
    data = out / "rows.jsonl"
    write_jsonl(data, _rows(167))
    config = PBMConfig(
        model=str(tiny_model_dir),
        out=str(out / "run"),
        data=str(data),
        max_steps=30,
        learning_rate=1e-2,
        batch_size=8,
        grad_accum=1,
        save_steps=15,
        max_length=256,
        train_layers=0,
        heldout_fraction=0.2,
    )
    return train_pbm(config), out


def test_training_learns_the_step_labels(trained) -> None:
    summary, out = trained
    acc = summary["eval"]["step_accuracy"]
    assert summary["steps"] == 30 and summary["heldout_rows"] == 33
    assert acc["micro"] > 0.9 and acc["wrong_steps"] > 0.8, acc
    assert len(summary["eval_samples"]) == 33 and not (out / "run" / "eval").exists()  # the command writes it
    log = [json.loads(x) for x in (out / "run" / "train_log.jsonl").read_text().splitlines()]
    losses = [r["loss"] for r in log if "loss" in r]
    assert losses[-1] < losses[0] / 2


def test_first_error_scope_puts_the_loss_only_up_to_a_traces_first_wrong_step(trained) -> None:
    from transformers import AutoTokenizer

    from mindzero.pbm.data import upto_first_error
    from mindzero.pbm.model import make_pbm_config, rank_auc
    from mindzero.train.pbm import StepDataset

    summary, out = trained
    tokenizer = AutoTokenizer.from_pretrained(out / "run" / "final")
    pbm = make_pbm_config(tokenizer, "tiny", 256)
    rows = _rows(40, seed=3)
    assert upto_first_error([True, False, True, False]) == [True, False] and upto_first_error([1, 1]) == [1, 1]
    for scope, expected in (
        ("all", [r["labels"] for r in rows]),
        ("first-error", [upto_first_error(r["labels"]) for r in rows]),
    ):
        targets = [[t for t in item["labels"] if t != -100] for item in StepDataset(rows, tokenizer, pbm, scope).items]
        assert targets == [[pbm["plus_id"] if y else pbm["minus_id"] for y in e] for e in expected if e]
    # the held-out metric over the same steps, recomputed from the per-trace scores
    hits, threshold = {}, summary["eval"]["threshold"]
    for sample in summary["eval_samples"]:
        scoped = upto_first_error(sample["labels"])
        hits.setdefault(str(sample["question_order"]), []).extend(
            int((x > threshold) == bool(y)) for x, y in zip(sample["scores"], scoped)
        )
    by_order = summary["eval"]["to_first_error"]["by_order"]
    assert by_order == pytest.approx({k: sum(v) / len(v) for k, v in hits.items()})
    # the AUC is the share of (right, wrong) step pairs ranked right, ties half
    steps = [(x, bool(y)) for t in summary["eval_samples"] for x, y in zip(t["scores"], upto_first_error(t["labels"]))]
    pairs = [(a, b) for a, ya in steps if ya for b, yb in steps if not yb]
    expected = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs) / len(pairs)
    assert summary["eval"]["to_first_error"]["auc"] == pytest.approx(expected)
    shares = {}
    for t in summary["eval_samples"]:
        shares.setdefault(t["question_order"], []).extend(map(bool, upto_first_error(t["labels"])))
    always_plus = sum(sum(v) / len(v) for v in shares.values()) / len(shares)
    assert summary["eval"]["to_first_error"]["always_plus"] == pytest.approx(always_plus) and always_plus < 1
    assert rank_auc([(0.9, True), (0.1, False), (0.5, True), (0.5, False)]) == pytest.approx(0.875)
    assert rank_auc([(0.3, True)]) is None and rank_auc([]) is None


def test_threshold_is_the_best_cut_on_validation_stories_and_ties_go_nearest_half() -> None:
    from mindzero.pbm.model import choose_threshold, step_accuracy

    rows = [{"id": str(i), "question_order": i % 5, "labels": [True, False]} for i in range(10)]
    low = [[0.03, 0.004]] * 10  # a value readout: right steps score low, wrong ones lower still
    assert choose_threshold(rows, low) == 0.02  # 0.005, 0.01 and 0.02 separate them; 0.02 is nearest 0.5
    assert step_accuracy(rows, low, 0.02)[0]["step_accuracy"]["avg"] == 1.0
    assert step_accuracy(rows, low)[0]["step_accuracy"]["avg"] == 0.5
    assert choose_threshold(rows, [[0.9, 0.1]] * 10) == 0.5
    assert choose_threshold(rows, [[0.95, 0.85]] * 10) == 0.9


def test_step_accuracy_by_kind_of_trace() -> None:
    from mindzero.pbm.model import step_accuracy
    from mindzero.report.tables import step_accuracy_table

    rows = [
        {"id": "a", "question_order": 1, "source": "gold", "labels": [True, True]},
        {"id": "b", "question_order": 1, "source": "corrupt:missed_exit", "labels": [True, False, False]},
    ]
    scores = [[0.9, 0.2], [0.9, 0.8, 0.1]]  # gold: one step missed; corrupted: its first error passes
    metrics = step_accuracy(rows, scores)[0]
    assert metrics["step_accuracy"]["by_source"] == {"corrupt:missed_exit": pytest.approx(2 / 3), "gold": 0.5}
    assert "by kind of trace: corrupt:missed_exit 0.6667, gold 0.5000" in step_accuracy_table(metrics)


def test_training_stores_thresholds_chosen_on_validation_stories(trained, tmp_path) -> None:
    from mindzero.cli import main
    from mindzero.pbm.model import READOUTS, THRESHOLDS, ProcessBeliefModel, step_accuracy

    summary, out = trained
    run = out / "run"
    read = lambda name: [json.loads(x) for x in (run / name).read_text().splitlines()]  # noqa: E731
    validation, held = read("validation.jsonl"), read("heldout.jsonl")
    assert summary["validation_rows"] == len(validation) == 13  # 10 % of the 134 stories left after held-out
    assert not {r["story_id"] for r in validation} & {r["story_id"] for r in held}
    thresholds = summary["thresholds"]
    assert set(thresholds) == set(READOUTS) and set(thresholds.values()) <= set(THRESHOLDS)
    assert json.loads((run / "final" / "pbm_config.json").read_text())["thresholds"] == thresholds
    pbm = ProcessBeliefModel(run / "final")
    assert pbm.threshold == thresholds[pbm.readout] == summary["eval"]["threshold"]
    scores = pbm.score([r["prompt"] for r in validation], [r["completions"] for r in validation])
    best = step_accuracy(validation, scores, pbm.threshold)[0]["step_accuracy"]["avg"]
    assert all(best >= step_accuracy(validation, scores, t)[0]["step_accuracy"]["avg"] for t in THRESHOLDS)
    assert (
        summary["eval"]["at_half"]
        == step_accuracy(held, pbm.score([r["prompt"] for r in held], [r["completions"] for r in held]))[0][
            "step_accuracy"
        ]
    )
    # pbm-eval cuts at the PBM's own threshold unless told otherwise; a checkpoint has none: 0.5
    args = ["stories", "pbm-eval", "--pbm", str(run / "final"), "--data", str(run / "heldout.jsonl"), "--out"]
    assert main([*args, str(tmp_path / "own")]) == 0
    assert main([*args, str(tmp_path / "half"), "--threshold", "0.5"]) == 0
    metrics = {k: json.loads((tmp_path / k / "results.json").read_text())["metrics"] for k in ("own", "half")}
    assert metrics["own"]["threshold"] == pbm.threshold and metrics["half"]["threshold"] == 0.5
    assert metrics["own"]["step_accuracy"] == summary["eval"]["step_accuracy"]
    assert ProcessBeliefModel(run / "checkpoint-15").threshold == 0.5


def test_one_pass_scores_equal_prefix_scores_and_bad_input_is_scored(trained) -> None:
    from mindzero.pbm.model import ProcessBeliefModel

    _, out = trained
    pbm = ProcessBeliefModel(out / "run" / "checkpoint-15", batch_size=3)
    steps = ["## Step 1 ##\nagent [yes]", "## Step 2 ##\nagent [no]", "## Step 3 ##\nagent [yes]"]
    full = pbm.score(["Story: Sally and Anne."], [steps])[0]
    prefixes = pbm.score(["Story: Sally and Anne."] * 3, [steps[:1], steps[:2], steps])
    assert full == pytest.approx([p[-1] for p in prefixes], abs=1e-5)
    assert full[0] > 0.5 > full[1]
    weird = pbm.score(["", "x", "\x00"], [[], ["garbage"] * 3, ["[" * 500]])
    assert weird[0] == [] and len(weird[1]) == 3 and len(weird[2]) == 1
    assert all(0.0 <= s <= 1.0 for row in weird for s in row)
    assert pbm.usage.total.calls == 3 and pbm.usage.total.tokens > 0


def test_resume_continues_from_the_last_checkpoint(trained, capsys) -> None:
    summary, out = trained
    config = {**summary["config"], "max_steps": 33, "resume": True, "save_steps": 100}
    nested = {f"{k}_{sub}": v for k, group in config.items() if isinstance(group, dict) for sub, v in group.items()}
    flat = {k: v for k, v in config.items() if not isinstance(v, dict)} | nested
    as_flag = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in flat.items()}
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in as_flag.items() if v is not None]  # unset: no flag
    assert main(["train", "pbm", *flags]) == 0
    assert "trained 33 steps" in capsys.readouterr().out  # 30 done before, 3 more
    results = json.loads((out / "run" / "eval" / "results.json").read_text())
    assert results["task"] == "stories/pbm-eval" and results["metrics"]["n_traces"] == 33
    steps = [json.loads(x)["step"] for x in (out / "run" / "train_log.jsonl").read_text().splitlines()]
    assert steps == sorted(steps) and steps[-1] == 33


def test_resume_without_a_checkpoint_starts_at_step_zero(tmp_path, capsys) -> None:
    # Nothing to resume is not an error (a run stopped in its copy warm-up has no checkpoint yet):
    # the note is printed and the run goes on to its next check, here the missing model.
    with pytest.raises(UserError, match="model path 'unused' does not exist"):
        train_pbm(PBMConfig(model="unused", out=str(tmp_path / "empty"), stories=1, resume=True))
    assert "--resume: no checkpoint-* folder" in capsys.readouterr().err


def test_wrong_checkpoints_give_clear_errors(tiny_model_dir, tmp_path) -> None:
    from mindzero.pbm.model import ProcessBeliefModel

    with pytest.raises(UserError, match="not a PBM checkpoint.*causal language model"):
        ProcessBeliefModel(tiny_model_dir)
    (tmp_path / "pbm_config.json").write_text(json.dumps({"kind": "grpo-policy"}))
    with pytest.raises(UserError, match="kind 'grpo-policy', not a PBM"):
        ProcessBeliefModel(tmp_path)
    with pytest.raises(UserError, match="not a folder"):
        ProcessBeliefModel(tmp_path / "missing")


def test_cli_pbm_eval_and_bad_folder(trained, tiny_model_dir, tmp_path, capsys) -> None:
    _, out = trained
    assert main(["stories", "pbm-eval", "--pbm", str(tiny_model_dir), "--out", str(tmp_path / "e")]) == 2
    assert "not a PBM checkpoint" in capsys.readouterr().err
    code = main(
        [
            "stories",
            "pbm-eval",
            "--pbm",
            str(out / "run" / "final"),
            "--data",
            str(out / "run" / "heldout.jsonl"),
            "--out",
            str(tmp_path / "e"),
        ]
    )
    assert code == 0
    results = json.loads((tmp_path / "e" / "results.json").read_text())
    assert set(results["metrics"]["step_accuracy"]["by_order"]) == {"0", "1", "2", "3", "4"}
