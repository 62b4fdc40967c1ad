"""GRPO mechanics on a tiny random model: per-step log, resume, both tasks, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("trl")

from mindzero.core.config import from_flat  # noqa: E402
from mindzero.core.errors import UserError  # noqa: E402
from mindzero.core.human import HumanParams  # noqa: E402
from mindzero.core.reward import failure_reward  # noqa: E402
from mindzero.domains.reward import SSRLReward  # noqa: E402
from mindzero.train import ssrl  # noqa: E402
from mindzero.train.base import ScratchSpec, resume_checkpoint  # noqa: E402
from mindzero.train.ssrl import (  # noqa: E402
    ABLATIONS,
    PRESETS,
    SSRLConfig,
    TrackedReward,
    resolve_config,
    train_ssrl,
)

LOG_FIELDS = {
    "step",
    "reward_mean",
    "parse_failure_rate",
    "hypothesis_entropy",
    "answer_entropy",
    "frac_zero_variance_groups",
}


def _config(model: Path, out: Path, **overrides) -> SSRLConfig:
    base = dict(
        model=str(model),
        out=str(out),
        train_episodes=2,
        max_steps=2,
        prompts_per_step=2,
        num_generations=2,
        max_completion_length=8,
        save_steps=1,
    )
    return from_flat(SSRLConfig, **{**base, **overrides})


def _log(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def qa_run(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("ssrl") / "qa"
    return out, train_ssrl(_config(tiny_model_dir, out, task="qa"))


def test_two_steps_write_the_log(qa_run) -> None:
    out, summary = qa_run
    assert summary["steps"] == 2
    rows = _log(out)
    assert [r["step"] for r in rows] == [1, 2]
    for row in rows:
        assert LOG_FIELDS <= set(row)
        assert 0.0 <= row["parse_failure_rate"] <= 1.0
        assert 0.0 <= row["frac_zero_variance_groups"] <= 1.0
        assert row["completions"] == 4  # 2 prompts x 2 rollouts
    assert (out / "final" / "config.json").is_file()
    assert (out / "checkpoint-2").is_dir()


def test_resume_continues_the_step_count(qa_run, tiny_model_dir: Path) -> None:
    out, _ = qa_run
    with (out / "train_log.jsonl").open("a") as fh:  # a step logged after the last checkpoint, then killed
        fh.write(json.dumps({"step": 3, "reward_mean": 0.0}) + "\n")
    summary = train_ssrl(_config(tiny_model_dir, out, task="qa", max_steps=3, resume=True))
    assert summary["resumed_from"].endswith("checkpoint-2")
    assert summary["steps"] == 3
    assert [r["step"] for r in _log(out)] == [1, 2, 3]
    assert LOG_FIELDS <= set(_log(out)[-1])  # the stale line was replaced by the resumed step


def test_assist_task_with_lora_ablation_and_human(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reward trains with the --ablation's RewardConfig and the config's human."""
    built: list[SSRLReward] = []
    expected: list[float] = []

    class Recording(SSRLReward):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

        def score_in(self, completion, context):
            expected.append(failure_reward(context.logliks, context.logprior, ABLATIONS["no-prior"]))
            return super().score_in(completion, context)

    monkeypatch.setattr(ssrl, "SSRLReward", Recording)
    out = tmp_path / "assist"
    human = HumanParams(epsilon=0.3, tau=0.05)
    config = _config(
        tiny_model_dir, out, task="assist", max_steps=1, lora=True, lora_r=2, every=8, ablation="no-prior", human=human
    )
    summary = train_ssrl(config)
    assert summary["steps"] == 1
    (row,) = _log(out)
    assert row["parse_failure_rate"] == 1.0  # a random model writes no particles: failure reward
    assert row["hypothesis_entropy"] is None  # no valid particle set: null, not NaN
    assert row["answer_entropy"] == 0.0  # every rollout of a group failed: one answer
    assert (out / "final" / "config.json").is_file()  # LoRA merged into a plain model
    (reward,) = built
    assert reward.config == ABLATIONS["no-prior"] and reward.human == human
    assert row["reward_mean"] == pytest.approx(sum(expected) / len(expected)) and len(expected) == 4
    recorded = json.loads((out / "ssrl_config.json").read_text())
    assert recorded["ablation"] == "no-prior" and recorded["domain"] == "gridworld"
    assert recorded["human"] == {"epsilon": 0.3, "tau": 0.05, "c": 0.1, "gamma": 0.95}


def test_tracked_reward_groups_and_failures() -> None:
    from mindzero.domains.gridworld.qa import build_split
    from mindzero.domains.gridworld.ssrl import QATask

    row = build_split("train", 1, 0, progress=False)[0]
    reward = TrackedReward(SSRLReward(QATask(), HumanParams(epsilon=0.15)), num_generations=2)
    kwargs = {"layout": [row["layout"]] * 4, "actions": [row["actions"]] * 4, "choice_goals": [row["choice_goals"]] * 4}
    values = reward([None] * 4, ["(a)", "(a)", "(b)", "nothing"], **kwargs)
    assert values[3] < min(values[:3])  # a malformed answer scores below both options
    stats = reward.pop()
    assert stats["parse_failure_rate"] == 0.25
    assert stats["frac_zero_variance_groups"] == 0.5  # group 1 agrees, group 2 differs
    # per-group entropy of the answers, the failure counted as one more answer: {a, a} and {b, failure}
    assert stats["answer_entropy"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.6931471805599453)
    assert stats["hypothesis_entropy"] == 0.0  # a letter is a single hypothesis: H(q) = 0
    assert reward.pop() is None


def test_policy_entropy_bonus_goes_to_valid_canonical_answers_only() -> None:
    from mindzero.domains.gridworld.qa import build_split
    from mindzero.domains.gridworld.ssrl import QATask

    class FixedSurprise:  # -log pi of each completion, as PolicySurprise would compute it
        def __call__(self, prompts: list, completion_ids: list) -> list[float]:
            time.sleep(0.05)  # the forward pass's time, logged apart from the planner's
            return [float(len(ids)) for ids in completion_ids]

    row = build_split("train", 1, 0, progress=False)[0]
    kwargs = {"layout": [row["layout"]] * 4, "actions": [row["actions"]] * 4, "choice_goals": [row["choice_goals"]] * 4}
    answers = ["(a)", "(b)", "Answer: (a)", "noise noise noise"]  # the third valid, loosely spelled
    plain = TrackedReward(SSRLReward(QATask(), HumanParams()), num_generations=4)(
        [None] * 4, answers, completion_ids=[[0]] * 4, **kwargs
    )
    tracked = TrackedReward(SSRLReward(QATask(), HumanParams()), 4, FixedSurprise(), policy_entropy=0.5)
    ids = [[0] * 3, [0] * 3, [0] * 5, [0] * 40]
    totals = tracked([None] * 4, answers, completion_ids=ids, **kwargs)
    # a loose spelling of an answer earns no bonus (else the policy buys entropy by varying spellings)
    assert totals[:3] == pytest.approx([plain[0] + 1.5, plain[1] + 1.5, plain[2]])
    assert totals[3] < min(totals[:3])  # the failure's 40 tokens of surprise earn it nothing
    stats = tracked.pop()
    assert stats["loose_spelling_rate"] == 0.25
    assert stats["reward_mean"] == pytest.approx(sum(plain[:3]) / 4 + (min(totals[:3]) - 1.0) / 4)
    assert stats["policy_surprise"] == pytest.approx((3 + 3 + 5 + 40) / 4)
    assert 0.05 <= stats["surprise_seconds"] < stats["reward_seconds"]


def test_policy_surprise_is_the_sampling_log_probability(tiny_model_dir: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    from mindzero.train.base import load_tokenizer
    from mindzero.train.ssrl import PolicySurprise

    tokenizer = load_tokenizer(tiny_model_dir, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(str(tiny_model_dir))
    trainer = SimpleNamespace(
        processing_class=tokenizer, model=model, temperature=1.5, args=SimpleNamespace(per_device_train_batch_size=2)
    )
    prompts = [[{"role": "user", "content": text}] for text in ("where is the key now", "x", "a b c")]
    completions = [tokenizer.encode(text, add_special_tokens=False) for text in ("A B", "C", "D E F G")]
    surprise = PolicySurprise().bind(trainer)(prompts, completions)
    for prompt, completion, value in zip(prompts, completions, surprise):  # one unpadded sequence at a time
        head = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True, return_dict=True)
        ids = torch.tensor([list(head["input_ids"]) + completion])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1] / 1.5, -1)
        expected = -sum(logp[len(ids[0]) - len(completion) - 1 + k, token] for k, token in enumerate(completion))
        assert value == pytest.approx(float(expected), rel=1e-4)


def test_presets_fill_only_unset_options() -> None:
    cfg = resolve_config(from_flat(SSRLConfig, preset="gpu-paper", learning_rate=3e-6))
    assert cfg.learning_rate == 3e-6 and cfg.beta == 1e-2 and cfg.num_generations == 32 and cfg.use_vllm
    assert cfg.prompts_per_step == 32 and cfg.bf16 and cfg.weight_decay == 1e-2 and cfg.max_grad_norm == 1.0
    small = resolve_config(from_flat(SSRLConfig, task="assist"))
    assert small.model == "smollm2-135m" and small.data.prompt_style == "compact"
    assert small.max_completion_length == 64 and set(PRESETS) == {"cpu-small", "cpu-tiny", "gpu-paper"}
    tiny = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", task="qa"))
    assert tiny.model == "scratch" and tiny.data.prompt_style == "anchored" and tiny.warm_start.steps > 0
    assert tiny.warm_start.choice_balance and not small.warm_start.choice_balance
    with pytest.raises(UserError, match="format-steps"):
        resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", format_steps=0))
    assert tiny.policy_entropy == 0.0 and tiny.scale_rewards == "group"
    # A nested section is filled field by field: the preset's number code, the user's size kept.
    assert tiny.scratch.number_features == 8 and small.scratch.number_features is None
    own = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", scratch=ScratchSpec(hidden=64, number_features=0)))
    assert own.scratch == ScratchSpec(hidden=64, number_features=0)
    sized = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", scratch=ScratchSpec(hidden=64)))
    assert sized.scratch.number_features == 8


def test_advantage_scaling_reaches_trl(tmp_path: Path) -> None:
    from mindzero.train.ssrl import grpo_args

    config = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", scale_rewards="none", policy_entropy=1.0))
    assert grpo_args(config, tmp_path).scale_rewards == "none"
    assert grpo_args(resolve_config(from_flat(SSRLConfig, preset="cpu-tiny")), tmp_path).scale_rewards == "group"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"preset": "tpu"}, "--preset must be one of"),
        ({"task": "chess"}, "unknown task"),
        ({"domain": "chess"}, "unknown domain"),
        ({"ablation": "no-likelihood"}, "--ablation must be one of"),
        ({"num_generations": 1}, r"--num-generations must be in \[2, 1024\]"),
        ({"scale_rewards": "mean"}, "--scale-rewards must be one of"),
        ({"data": "/no/such.jsonl"}, "no such training file"),
    ],
)
def test_bad_options_are_user_errors(overrides: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        resolve_config(from_flat(SSRLConfig, **overrides))


def test_resume_before_the_first_checkpoint_starts_at_step_zero(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # A run stopped during its warm-up stages has no checkpoint yet: --resume starts training at 0
    # (keeping the finished stages) instead of refusing, which left only --overwrite.
    assert resume_checkpoint(tmp_path, resume=True) is None
    assert "no checkpoint-* folder" in capsys.readouterr().err
    for step in (2, 10):
        (tmp_path / f"checkpoint-{step}").mkdir()
    assert resume_checkpoint(tmp_path, resume=True) == tmp_path / "checkpoint-10"
    assert resume_checkpoint(tmp_path, resume=False) is None


def test_missing_model(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        train_ssrl(from_flat(SSRLConfig, model=str(tmp_path / "nope"), out=str(tmp_path)))


def test_missing_optional_package_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "peft", None)  # import peft now raises ImportError
    with pytest.raises(UserError, match=r'needs peft: pip install "mindzero\[llm\]"'):
        train_ssrl(from_flat(SSRLConfig, out=str(tmp_path), lora=True))


def test_cli_help_and_errors(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "mindzero"]
    help_ = subprocess.run([*run, "train", "ssrl", "--help"], capture_output=True, text=True)
    assert help_.returncode == 0 and "--preset" in help_.stdout and "--resume" in help_.stdout
    assert "--ablation" in help_.stdout and "--human-epsilon" in help_.stdout and "--human-tau" in help_.stdout
    bad = subprocess.run([*run, "train", "ssrl", "--model", str(tmp_path / "x")], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "does not exist" in bad.stderr
    no_model = subprocess.run(
        [*run, "gridworld", "assist", "--reasoner", "llm", "--episodes", "1", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert no_model.returncode == 2 and "--model" in no_model.stderr


def _tiny_qwen3_vl(tiny_model_dir: Path, path: Path) -> Path:
    """A random Qwen3-VL (the paper's GridWorld backbone architecture) of ~100 k parameters."""
    import torch
    from transformers import AutoTokenizer, Qwen3VLConfig, Qwen3VLForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    ids = {k: getattr(tokenizer, f"{k}_token_id") for k in ("bos", "eos", "pad")}
    text = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, head_dim=16)
    text |= dict(vocab_size=len(tokenizer), num_key_value_heads=2, **{f"{k}_token_id": v for k, v in ids.items()})
    text["rope_scaling"] = {"rope_type": "default", "mrope_section": [2, 3, 3]}
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=32)
    torch.manual_seed(0)
    model = Qwen3VLForConditionalGeneration(Qwen3VLConfig(text_config=text, vision_config=vision))
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_gpu_paper_preset_checks_and_runs_a_vision_language_backbone(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gpu-paper path with a local Qwen3-VL folder: its batch arithmetic over processes, the
    one-line error without vLLM, and (vLLM and bf16 off, as on this CPU) a GRPO step."""
    vl = _tiny_qwen3_vl(tiny_model_dir, tmp_path / "qwen3-vl")
    config = resolve_config(from_flat(SSRLConfig, preset="gpu-paper", model=str(vl), out=str(tmp_path / "run")))
    with pytest.raises(UserError, match="--bf16 needs a CUDA GPU"):
        ssrl.grpo_args(config, tmp_path / "run")
    config = replace(config, bf16=False)  # this CPU; the arithmetic below is the GPU run's
    monkeypatch.setenv("WORLD_SIZE", "4")
    args = ssrl.grpo_args(config, tmp_path / "run")
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (8, 32)  # 32 x 32 / (8 x 4)
    with pytest.raises(UserError, match="micro batches of 7 on 4"):
        ssrl.grpo_args(replace(config, micro_batch=7), tmp_path / "run")
    monkeypatch.delenv("WORLD_SIZE")
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(UserError, match="needs vllm"):
        train_ssrl(config)
    cpu = dict(use_vllm=False, gradient_checkpointing=False, num_generations=2, prompts_per_step=2)
    cpu |= dict(micro_batch=2, max_steps=1, max_completion_length=4, eval_every=0, task="qa")
    summary = train_ssrl(replace(config, data=replace(config.data, episodes=2, prompt_style="compact"), **cpu))
    assert summary["steps"] == 1 and (Path(summary["final_model"]) / "config.json").is_file()
    saved = json.loads((Path(summary["final_model"]) / "config.json").read_text())
    assert saved["architectures"] == ["Qwen3VLForConditionalGeneration"]


def test_household_qa_trains_on_generated_questions(tiny_model_dir: Path, tmp_path: Path) -> None:
    """MMToM-style questions through the same trainer and the held-out curve (test-apartment
    questions scored against the model's labels)."""
    out = tmp_path / "hh-qa"
    config = _config(tiny_model_dir, out, domain="household", task="qa", train_episodes=4, max_steps=1)
    summary = train_ssrl(replace(config, eval_every=1, eval_questions=7, max_completion_length=4))
    assert summary["steps"] == 1
    (row,) = _log(out)
    assert LOG_FIELDS <= set(row) and row["completions"] == 4
    curve = [json.loads(line) for line in (out / "curves.jsonl").read_text().splitlines()]
    assert [c["step"] for c in curve] == [0, 1] and all(c["n"] == 7 for c in curve)


def test_ablation_trains_every_row_from_the_recipe_and_evaluates_it(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`train ablation --train-config`: each row x seed is the recipe with that row's reward switch and
    particle count, trained and then evaluated on assistance; a finished run and its evaluation are reused
    (a new read-out evaluates again)."""
    from mindzero.cli import main

    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"model: {tiny_model_dir}\ntrain_episodes: 2\nprompts_per_step: 2\nnum_generations: 2\n"
        "max_completion_length: 8\nsave_steps: 1\neval_every: 0\nlearning_rate: 0.0003\npolicy_entropy: 0.5\n"
    )
    out = tmp_path / "ablation"
    flags = ["--train-config", str(recipe), "--rows", "no-entropy,single", "--seeds", "3", "--max-steps", "1"]
    flags += ["--n-particles", "2", "--episodes", "1", "--eval-seeds", "10,20", "--out", str(out)]
    assert main(["train", "ablation", *flags]) == 0
    table = capsys.readouterr().out
    assert "no-entropy" in table and "single" in table
    for row, particles in (("no-entropy", 2), ("single", 1)):
        trained = json.loads((out / row / "seed3" / "ssrl_config.json").read_text())
        assert trained["ablation"] == row and trained["data"]["n_particles"] == particles and trained["seed"] == 3
        assert trained["learning_rate"] == 0.0003 and trained["policy_entropy"] == 0.5  # the recipe's
        assert trained["max_steps"] == 1 and trained["task"] == "assist"
    results = json.loads((out / "results.json").read_text())
    assert set(results["metrics"]) == {"no-entropy", "single"}
    references = results["references"]  # random and exact inference on the same episodes
    assert set(references) == {"random", "exact"} and "(exact)" in table
    assert references["exact"]["kl_to_exact_mean"] < 0.01 < references["random"]["kl_to_exact_mean"]  # KL floor
    assert references["exact"]["true_goal_prob_mean"] > references["random"]["true_goal_prob_mean"]
    assert all(0.0 <= m["parse_failure_rate"] <= 1.0 for m in results["metrics"].values())
    single = [r["speedup"] for r in json.loads((out / "single" / "seed3" / "assist-eval.json").read_text())["rows"]]
    share = results["metrics"]["single"]["share_of_exact"]  # paired with exact's speedup on the same two runs
    assert len(single) == 2 and share == pytest.approx(sum(single) / 2 / references["exact"]["speedup_mean"])
    assert references["exact"]["share_of_exact"] == 1.0 and f"{share:.2f} ± " in table
    stamp = (out / "single" / "seed3" / "final" / "config.json").stat().st_mtime_ns
    evaluation = out / "single" / "seed3" / "assist-eval.json"
    kept = json.loads(evaluation.read_text())
    kept["metrics"]["kl_to_exact_mean"] = 123.0  # marks the kept evaluation: reused, it shows in the table
    evaluation.write_text(json.dumps(kept))
    assert main(["train", "ablation", *flags, "--resume"]) == 0  # finished runs are neither retrained
    assert (out / "single" / "seed3" / "final" / "config.json").stat().st_mtime_ns == stamp
    reused = json.loads((out / "results.json").read_text())["metrics"]["single"]
    assert reused["kl_to_exact_mean"] == 123.0  # nor re-evaluated

    sampled = tmp_path / "sampled"  # the same trained run, read out with two sampled answers per decision
    shutil.copytree(out / "single", sampled / "single")
    flags[flags.index("--out") + 1] = str(sampled)
    reread = ["--rows", "single", "--temperature", "0.7", "--samples", "2", "--resume"]  # reuses the copied run
    assert main(["train", "ablation", *flags, *reread]) == 0
    greedy = results["metrics"]["single"]["tflops_per_decision"]
    assert json.loads((sampled / "results.json").read_text())["metrics"]["single"]["tflops_per_decision"] > 1.5 * greedy

    kept = tmp_path / "kept" / "single" / "seed3"  # a run kept without its model: its config and evaluation
    kept.mkdir(parents=True)
    for name in ("ssrl_config.json", "assist-eval.json"):
        shutil.copy(out / "single" / "seed3" / name, kept / name)
    flags[flags.index("--out") + 1] = str(kept.parent.parent)
    assert main(["train", "ablation", *flags, "--rows", "single", "--resume"]) == 0  # merged, not retrained
    assert not (kept / "final").exists()
    merged = json.loads((kept.parent.parent / "results.json").read_text())["metrics"]["single"]
    assert merged["kl_to_exact_mean"] == 123.0


def test_ablation_trains_runs_side_by_side_as_one_after_another(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`train ablation --jobs 2`: the runs train in two spawned processes, each one's output in its own
    log, into the same models as one after another (one torch thread each); --jobs is not part of the
    run, so a run cut under --jobs 2 resumes with --jobs 1. Each run is evaluated in its own process as
    it finishes (the same numbers as one after another)."""
    from mindzero.cli import main

    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"model: {tiny_model_dir}\ntrain_episodes: 2\nprompts_per_step: 2\nnum_generations: 2\n"
        "max_completion_length: 8\nsave_steps: 1\neval_every: 0\n"
    )
    flags = ["--train-config", str(recipe), "--rows", "none,single", "--seeds", "1", "--max-steps", "1"]
    flags += ["--n-particles", "2", "--episodes", "1", "--eval-seeds", "10"]
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each of the two side-by-side runs on this 2-core machine
    try:
        assert main(["train", "ablation", *flags, "--out", str(tmp_path / "serial")]) == 0
    finally:
        torch.set_num_threads(threads)
    capsys.readouterr()
    assert main(["train", "ablation", *flags, "--jobs", "2", "--out", str(tmp_path / "side")]) == 0
    printed = capsys.readouterr().out
    assert "training 2 runs, 2 at a time" in printed and "trained single/seed1 (" in printed
    for row in ("none", "single"):
        log = (tmp_path / "side" / row / "seed1.log").read_text()
        assert "'train_runtime'" in log and "'train_runtime'" not in printed  # the run's own output, not ours
        assert f"{row}/seed1" in log  # its evaluation ran in the same process, as it finished training
        weights = [
            (tmp_path / run / row / "seed1" / "final" / "model.safetensors").read_bytes() for run in ("serial", "side")
        ]
        assert weights[0] == weights[1]
    serial, side = (json.loads((tmp_path / run / "results.json").read_text())["metrics"] for run in ("serial", "side"))
    assert serial == side
    assert main(["train", "ablation", *flags, "--out", str(tmp_path / "side"), "--resume"]) == 0


def test_a_run_failing_side_by_side_stops_the_ablation_naming_its_log(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A run that fails in its process (weights that do not load) is a one-line error naming the run
    and its log; the other run is stopped with it."""
    from mindzero.cli import main

    broken = tmp_path / "broken"
    shutil.copytree(tiny_model_dir, broken)
    for weights in broken.glob("*.safetensors"):
        weights.write_bytes(b"not a safetensors file")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"model: {broken}\ndata:\n  episodes: 2\nprompts_per_step: 2\nnum_generations: 2\n")
    flags = ["--train-config", str(recipe), "--rows", "none,single", "--seeds", "1", "--max-steps", "1"]
    assert main(["train", "ablation", *flags, "--jobs", "2", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "/seed1 failed (" in err and "its output: " in err and err.count("\n") == 1
    log = err.rsplit("its output: ", 1)[1].strip()
    assert Path(log).is_file() and Path(log).read_text()


@pytest.fixture(scope="module")
def household_ablation(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`train ablation --domain household`, 2 rows x 1 seed, one GRPO step each on the tiny model, read out
    on two episodes of each test apartment: (its --out, what it printed)."""
    import contextlib
    import io

    from mindzero.cli import main

    root = tmp_path_factory.mktemp("hh-ablation")
    recipe = root / "recipe.yaml"  # no prompt style: cpu-tiny's anchored, which household asks as compact
    recipe.write_text(
        f"model: {tiny_model_dir}\ntrain_episodes: 2\nprompts_per_step: 2\nnum_generations: 2\n"
        "max_completion_length: 8\nsave_steps: 1\neval_every: 0\n"
    )
    out = root / "runs" / "household"
    flags = ["--domain", "household", "--train-config", str(recipe), "--rows", "none,single", "--seeds", "0"]
    flags += ["--max-steps", "1", "--n-particles", "2", "--episodes", "2", "--eval-seeds", "10", "--out", str(out)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["train", "ablation", *flags]) == 0
    return out, printed.getvalue()


def test_household_ablation_trains_household_assist_and_helps_on_the_test_apartments(household_ablation) -> None:
    """Each row x seed is `train ssrl --domain household --task assist` with the row's switch, read out as
    the helper's reasoner on `household assist`'s test apartments beside random and exact on the same runs."""
    from mindzero.envs.household.apartment import TEST_APARTMENTS

    out, table = household_ablation
    for row, particles in (("none", 2), ("single", 1)):
        trained = json.loads((out / row / "seed0" / "ssrl_config.json").read_text())
        assert (trained["domain"], trained["task"], trained["ablation"]) == ("household", "assist", row)
        assert trained["data"]["prompt_style"] == "compact" and trained["data"]["n_particles"] == particles
    results = json.loads((out / "results.json").read_text())
    assert results["task"] == "household/ablation" and set(results["metrics"]) == {"none", "single"}
    references = results["references"]
    assert set(references) == {"random", "exact"} and references["exact"]["share_of_exact"] == 1.0
    assert references["exact"]["kl_to_exact_mean"] < references["random"]["kl_to_exact_mean"]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 8  # 2 rows x 1 seed x two episodes of each test apartment
    assert {s["episode_id"].split("-s")[0] for s in samples} == set(TEST_APARTMENTS)
    assert all(0.0 <= m["parse_failure_rate"] <= 1.0 for m in results["metrics"].values())
    assert "household assistance on the test apartments" in table and "(exact)" in table and "single" in table


def test_report_paper_shows_each_domains_ablation_beside_table2(household_ablation, tmp_path: Path) -> None:
    """`report paper`: the Household rows (and a GridWorld ablation's, under its own heading) beside the
    paper's published Table 2."""
    from mindzero.cli import main

    out, _ = household_ablation
    gridworld = tmp_path / "gridworld"  # a GridWorld ablation's results, for the second heading
    gridworld.mkdir()
    results = json.loads((out / "results.json").read_text())
    (gridworld / "results.json").write_text(json.dumps({**results, "task": "gridworld/ablation"}))
    assert main(["report", "paper", str(out.parent), str(gridworld), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    section = report.split("## MindZero Table 2")[1].split("\n## ")[0]
    lines = section.splitlines()
    gridworld_at = lines.index("Ours, GridWorld assistance (`mindzero train ablation`):")
    household_at = next(k for k, line in enumerate(lines) if line.startswith("Ours, Household assistance"))
    published_at = next(k for k, line in enumerate(lines) if line.startswith("Published"))
    assert gridworld_at < household_at < published_at
    speedup = results["metrics"]["single"]["speedup_mean"]
    household = lines[household_at:published_at]
    assert any(line.startswith("| single |") and f"{100 * speedup:+.1f} ± " in line for line in household)
    assert any(line.startswith("| (exact) |") for line in household)
    for published in ("19.1", "17.0", "10.3", "5.2"):
        assert any(f"| {published} |" in line for line in lines[published_at:])


@pytest.mark.parametrize("path", sorted((Path(__file__).parents[2] / "configs" / "ssrl").glob("*.yaml")), ids=str)
def test_shipped_configs_are_valid(path: Path) -> None:
    from mindzero.core.config import config_from_file

    base = config_from_file(SSRLConfig, path)
    config = resolve_config(replace(base, data=replace(base.data, path=None)))  # data files are made by users
    assert config.task in ("qa", "assist") and config.max_steps >= 1
