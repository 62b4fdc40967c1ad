"""Self-supervised RL (paper §3–4, App. A.1): GRPO via TRL on unlabeled GridWorld data.

Two tasks share one trainer: ``qa`` (answer (a) or (b); reward = log-likelihood of the observed
actions under the goal the answer implies, :class:`QAReward`) and ``assist`` (write goal particles
at a timestep of an unlabeled episode; reward = paper Eq. 4, :class:`ParticlesReward`). Neither
reward reads a goal label.

Presets fill every option left unset (precedence: dataclass default < preset < ``--config`` YAML
< explicit flags):

- ``gpu-paper``: App. A.1 — lr 1e-6, KL β 1e-2, weight decay 1e-2, max grad norm 1.0, bf16,
  16 rollouts per prompt, batch 32 (prompts per step), vLLM generation; full paper prompts.
- ``cpu-small``: SmolLM2-135M-Instruct on CPU — compact prompts, 4 rollouts of ≤ 8 (QA) or
  ≤ 64 (assist) tokens, 2 prompts per step, 40 steps, lr 2e-5 (high enough that 40 Adam steps
  visibly change a 135 M model; one step takes about a minute on 2 shared cores), fp32.

Every step appends one JSON line to ``OUT/train_log.jsonl`` (see :class:`StepLogger`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mindzero.core.config import apply_preset
from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text

TASKS = ("qa", "assist")

PRESETS: dict[str, dict[str, Any]] = {
    "gpu-paper": {
        "model": "Qwen/Qwen2.5-VL-7B-Instruct",
        "prompt_style": "full",
        "learning_rate": 1e-6,
        "beta": 1e-2,
        "weight_decay": 1e-2,
        "max_grad_norm": 1.0,
        "bf16": True,
        "num_generations": 16,
        "prompts_per_step": 32,
        "micro_batch": 8,
        "max_completion_length": 512,
        "temperature": 1.0,
        "use_vllm": True,
        "gradient_checkpointing": True,
        "max_steps": 500,
        "train_episodes": 800,
        "save_steps": 50,
    },
    "cpu-small": {
        "model": "smollm2-135m",
        "prompt_style": "compact",
        "learning_rate": 2e-5,
        "beta": 1e-2,
        "weight_decay": 1e-2,
        "max_grad_norm": 1.0,
        "bf16": False,
        "num_generations": 4,
        "prompts_per_step": 2,
        "micro_batch": 0,
        "max_completion_length": None,  # task-dependent, see TASK_COMPLETION_TOKENS
        "temperature": 1.0,
        "use_vllm": False,
        "gradient_checkpointing": False,
        "max_steps": 40,
        "train_episodes": 200,
        "save_steps": 10,
    },
}

#: cpu-small completion budget per task: "(a)" needs 3 tokens, one particle about 45.
TASK_COMPLETION_TOKENS = {"qa": 8, "assist": 64}


@dataclass
class SSRLConfig:
    """Options of ``mindzero train ssrl``; ``None`` means "take the preset's value"."""

    task: str = field(default="qa", metadata={"help": "qa (answer a letter) | assist (goal particles per timestep)"})
    preset: str = field(default="cpu-small", metadata={"help": "cpu-small | gpu-paper (fills unset options)"})
    model: str | None = field(default=None, metadata={"help": "model spec or folder (preset: smollm2-135m on CPU)"})
    out: str = field(default="runs/ssrl", metadata={"help": "output folder: checkpoints, train_log.jsonl, final/"})
    data: str | None = field(
        default=None, metadata={"help": "QA training JSONL (qa-data train.jsonl); None = generate --train-episodes"}
    )
    train_episodes: int | None = field(default=None, metadata={"help": "episodes to generate training rows from"})
    data_seed: int = field(default=0, metadata={"help": "seed of the generated training episodes"})
    every: int = field(default=2, metadata={"help": "assist: keep every k-th timestep of each episode"})
    n_particles: int = field(default=1, metadata={"help": "assist: particles requested per prompt"})
    prompt_style: str | None = field(default=None, metadata={"help": "full (paper transcript) | compact (CPU)"})
    max_steps: int | None = field(default=None, metadata={"help": "optimizer steps"})
    prompts_per_step: int | None = field(default=None, metadata={"help": "distinct prompts per optimizer step"})
    num_generations: int | None = field(default=None, metadata={"help": "rollouts per prompt (GRPO group size)"})
    micro_batch: int | None = field(
        default=None,
        metadata={"help": "completions per device per forward/backward (0 = the whole step; rest accumulated)"},
    )
    max_completion_length: int | None = field(default=None, metadata={"help": "completion tokens per rollout"})
    temperature: float | None = field(default=None, metadata={"help": "sampling temperature of rollouts"})
    learning_rate: float | None = field(default=None, metadata={"help": "AdamW learning rate"})
    beta: float | None = field(default=None, metadata={"help": "KL coefficient against the reference model"})
    weight_decay: float | None = field(default=None, metadata={"help": "AdamW weight decay"})
    max_grad_norm: float | None = field(default=None, metadata={"help": "gradient clipping norm"})
    bf16: bool | None = field(default=None, metadata={"help": "bfloat16 mixed precision"})
    use_vllm: bool | None = field(default=None, metadata={"help": "generate rollouts with vLLM (GPU)"})
    gradient_checkpointing: bool | None = field(default=None, metadata={"help": "trade compute for memory"})
    lora: bool = field(default=False, metadata={"help": "train a LoRA adapter (peft) instead of all weights"})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank"})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha"})
    save_steps: int | None = field(default=None, metadata={"help": "checkpoint every N steps"})
    resume: bool = field(default=False, metadata={"help": "continue from the last checkpoint in --out"})
    epsilon: float = field(default=0.15, metadata={"help": "human noise assumed by the reward's likelihood"})
    seed: int = field(default=0, metadata={"help": "training seed (sampling, shuffling, init of LoRA)"})


def resolve_config(config: SSRLConfig) -> SSRLConfig:
    """Fill unset options from the preset and check the values a user can get wrong."""
    config = apply_preset(config, PRESETS)
    if config.task not in TASKS:
        raise UserError(f"unknown task {config.task!r}; choose from {', '.join(TASKS)}")
    if config.max_completion_length is None:
        config = dataclasses.replace(config, max_completion_length=TASK_COMPLETION_TOKENS[config.task])
    if config.prompt_style not in ("full", "compact"):
        raise UserError(f"unknown prompt style {config.prompt_style!r}; use full or compact")
    if config.num_generations < 2:
        raise UserError("GRPO needs at least 2 rollouts per prompt (--num-generations)")
    if config.data is not None and not Path(config.data).is_file():
        raise UserError(f"no such training file: {config.data} (make one with `mindzero gridworld qa-data`)")
    return config


# --- data -------------------------------------------------------------------------------------


def training_rows(config: SSRLConfig) -> list[dict]:
    """Chat-formatted rows with the columns the task's reward reads (no goal labels used)."""
    from mindzero.core.results import read_jsonl
    from mindzero.tasks.gridworld_qa import build_split, qa_prompt
    from mindzero.tasks.gridworld_ssrl import AssistDataConfig, assist_rows

    if config.task == "qa":
        raw = (
            read_jsonl(Path(config.data))
            if config.data
            else build_split("train", config.train_episodes, config.data_seed)
        )
        keep = ("layout", "actions", "choice_goals", "id")
        rows = [{"prompt": qa_prompt(r, config.prompt_style), **{k: r[k] for k in keep}} for r in raw]
    else:
        data = AssistDataConfig(
            episodes=config.train_episodes,
            seed=config.data_seed,
            every=config.every,
            n_particles=config.n_particles,
            prompt_style=config.prompt_style,
        )
        keep = ("layout", "actions", "n_particles", "episode_id", "t")
        rows = [{"prompt": r["prompt"], **{k: r[k] for k in keep}} for r in assist_rows(data)]
    for row in rows:
        row["prompt"] = [{"role": "user", "content": row["prompt"]}]
    return rows


# --- rewards with per-step statistics -----------------------------------------------------------


def _entropy(counts: Sequence[int]) -> float:
    total = sum(counts)
    probs = np.array([c / total for c in counts if c])
    return float(-(probs * np.log(probs)).sum())


@dataclass
class StepStats:
    """What one generation batch looked like: rewards, failures, entropy, flat groups."""

    rewards: list[float] = field(default_factory=list)
    failures: int = 0
    entropies: list[float] = field(default_factory=list)
    groups: int = 0
    flat_groups: int = 0

    def summary(self) -> dict[str, float]:
        n = len(self.rewards)
        return {
            "reward_mean": float(np.mean(self.rewards)) if n else math.nan,
            "parse_failure_rate": self.failures / n if n else math.nan,
            "hypothesis_entropy": float(np.mean(self.entropies)) if self.entropies else math.nan,
            "frac_zero_variance_groups": self.flat_groups / self.groups if self.groups else math.nan,
            "completions": n,
        }


class TrackedReward:
    """Wraps :class:`ParticlesReward` / :class:`QAReward` and records per-step statistics.

    TRL calls a reward function once per generation batch with prompts repeated
    ``num_generations`` times consecutively, so consecutive blocks are GRPO groups.
    ``hypothesis_entropy`` (nats): assist — mean entropy H(q) of the valid particle sets;
    QA — mean entropy of the options chosen within each group (0 = the group always agrees).
    """

    def __init__(self, task: str, num_generations: int, epsilon: float) -> None:
        from mindzero.tasks.gridworld_ssrl import ParticlesReward, QAReward

        self.task = task
        self.group = num_generations
        self.inner = ParticlesReward(epsilon=epsilon) if task == "assist" else QAReward(epsilon=epsilon)
        self.pending = StepStats()
        self.__name__ = self.inner.__name__

    def __call__(self, prompts: list, completions: list, **kwargs: Any) -> list[float]:
        from mindzero.tasks.gridworld_ssrl import completion_text, parse_option

        rewards = self.inner(prompts, completions, **kwargs)
        stats = self.pending
        stats.rewards.extend(rewards)
        if self.task == "assist":
            popped = self.inner.stats.n, self.inner.stats.failures, self.inner.stats.pop()
            n, failures, summary = popped
            stats.failures += failures
            if n > failures:
                stats.entropies.append(summary["hypothesis_entropy"])
        else:
            choices = [parse_option(completion_text(c)) for c in completions]
            stats.failures += sum(c is None for c in choices)
            for lo in range(0, len(choices), self.group):
                block = choices[lo : lo + self.group]
                stats.entropies.append(_entropy([block.count(0), block.count(1), block.count(None)]))
        for lo in range(0, len(rewards), self.group):
            block = rewards[lo : lo + self.group]
            stats.groups += 1
            stats.flat_groups += float(np.std(block)) < 1e-6
        return rewards

    def pop(self) -> dict[str, float] | None:
        """Statistics since the last call, or None if no batch was scored since."""
        if not self.pending.rewards:
            return None
        out, self.pending = self.pending.summary(), StepStats()
        return out


def _step_logger(path: Path, reward: TrackedReward, started: float) -> Any:
    """A TrainerCallback appending one JSON line per logged step to ``path``."""
    from transformers import TrainerCallback

    class StepLogger(TrainerCallback):
        """Writes step, our reward statistics and TRL's loss/KL/lr to ``train_log.jsonl``.

        Our statistics cover the completions scored by this process (all of them on one device);
        TRL's ``frac_reward_zero_std`` is computed over all processes."""

        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001 (TRL signature)
            if not state.is_world_process_zero or logs is None or "loss" not in logs:
                return
            stats = reward.pop()
            if stats is None:
                return
            # NaN (e.g. no valid particle set in a step) is written as null: strict JSON.
            row = {"step": state.global_step, **{k: None if v != v else v for k, v in stats.items()}}
            for key in (
                "loss",
                "kl",
                "learning_rate",
                "grad_norm",
                "entropy",
                "completions/mean_length",
                "frac_reward_zero_std",
            ):
                if key in logs:
                    row[key.replace("/", "_")] = logs[key]
            row["seconds"] = time.perf_counter() - started
            with path.open("a") as fh:
                fh.write(json.dumps(row) + "\n")

    return StepLogger()


# --- training ---------------------------------------------------------------------------------


def _require(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise UserError(f'training needs {err.name}: pip install "mindzero[{extra}]"') from None


def grpo_args(config: SSRLConfig, out: Path) -> Any:
    """The TRL :class:`GRPOConfig` of a resolved config (one optimizer step = one generation batch)."""
    import os

    trl = _require("trl", "llm")
    per_step = config.prompts_per_step * config.num_generations
    world = int(os.environ.get("WORLD_SIZE", "1"))
    micro = config.micro_batch or per_step // world
    if per_step % (micro * world):
        raise UserError(
            f"prompts_per_step x num_generations = {per_step} must split into micro batches of {micro} "
            f"on {world} process(es); change --micro-batch"
        )
    return trl.GRPOConfig(
        output_dir=str(out),
        learning_rate=config.learning_rate,
        beta=config.beta,
        weight_decay=config.weight_decay,
        max_grad_norm=config.max_grad_norm,
        bf16=config.bf16,
        num_generations=config.num_generations,
        per_device_train_batch_size=micro,
        gradient_accumulation_steps=per_step // (micro * world),
        max_completion_length=config.max_completion_length,
        temperature=config.temperature,
        use_vllm=config.use_vllm,
        activation_checkpointing=bool(config.gradient_checkpointing),
        max_steps=config.max_steps,
        save_steps=config.save_steps,
        save_total_limit=2,
        logging_steps=1,
        seed=config.seed,
        data_seed=config.seed,
        report_to=[],
        disable_tqdm=False,
        use_cpu=not config.use_vllm and not _cuda(),
        remove_unused_columns=False,
    )


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def resume_checkpoint(out: Path, resume: bool) -> Path | None:
    """With ``resume``, the ``checkpoint-N`` folder in ``out`` with the largest N (a one-line error
    if there is none); else None."""
    if not resume:
        return None
    found = [p for p in out.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()]
    if not found:
        raise UserError(f"--resume: no checkpoint-* folder in {out}; train without --resume first")
    return max(found, key=lambda p: int(p.name.split("-")[-1]))


def _checkpoint_step(checkpoint: Path) -> int:
    return int(json.loads((checkpoint / "trainer_state.json").read_text())["global_step"])


def _trim_log(path: Path, step: int) -> None:
    """Keep the log lines of steps ≤ ``step``: a resumed run re-logs the steps after its checkpoint."""
    if not path.is_file():
        return
    kept = [line for line in path.read_text().splitlines() if json.loads(line)["step"] <= step]
    atomic_write_text(path, "".join(f"{line}\n" for line in kept))


def train_ssrl(config: SSRLConfig) -> dict[str, Any]:
    """Run GRPO; returns a summary (steps, seconds, final model folder, last logged statistics)."""
    config = resolve_config(config)
    out = Path(config.out)
    checkpoint = resume_checkpoint(out, config.resume)
    if config.use_vllm:
        _require("vllm", "vllm")
    if config.lora:
        _require("peft", "llm")
    from mindzero.llm.models import resolve_model

    model_path = resolve_model(config.model)  # a wrong path fails here, before the slow imports
    _require("trl", "llm")
    import datasets
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOTrainer

    out.mkdir(parents=True, exist_ok=True)
    rows = training_rows(config)
    if not rows:
        raise UserError("no training rows; raise --train-episodes")
    dtype = torch.bfloat16 if config.bf16 else torch.float32
    tokenizer = AutoTokenizer.from_pretrained(str(model_path))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(str(model_path), dtype=dtype)
    peft_config = None
    if config.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=config.lora_r, lora_alpha=config.lora_alpha, task_type="CAUSAL_LM", target_modules="all-linear"
        )
    reward = TrackedReward(config.task, config.num_generations, config.epsilon)
    started = time.perf_counter()
    log_path = out / "train_log.jsonl"
    _trim_log(log_path, _checkpoint_step(checkpoint) if checkpoint else 0)
    atomic_write_text(
        out / "ssrl_config.json", json.dumps({**dataclasses.asdict(config), "model_path": str(model_path)}, indent=2)
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=grpo_args(config, out),
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer,
        callbacks=[_step_logger(log_path, reward, started)],
        peft_config=peft_config,
    )
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = out / "final"
    trained = trainer.model
    if config.lora:
        trained = trained.merge_and_unload()
    trained.save_pretrained(final)
    tokenizer.save_pretrained(final)
    last = {}
    if log_path.is_file():
        lines = log_path.read_text().splitlines()
        last = json.loads(lines[-1]) if lines else {}
    return {
        "steps": trainer.state.global_step,
        "seconds": time.perf_counter() - started,
        "rows": len(rows),
        "final_model": str(final),
        "log": str(log_path),
        "last": last,
        "resumed_from": str(checkpoint) if checkpoint else None,
    }
