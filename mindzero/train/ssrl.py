"""Self-supervised RL (paper §3–4, App. A.1): GRPO via TRL on unlabeled data of any domain.

A domain's SSRL task (:class:`~mindzero.domains.base.SSRLTask`) supplies the rows and the reward
context; the reward (:class:`~mindzero.domains.reward.SSRLReward`) is paper Eq. 4 for particle
tasks (``assist``) and the log-likelihood of the actions under the chosen option's goal for
``qa``. Neither reads a goal label. ``--ablation`` selects the paper's Table 2 rows.

Presets fill every option left unset (precedence: dataclass default < preset < ``--config`` YAML
< explicit flags):

- ``gpu-paper``: App. A.1 — Qwen3-VL-4B (GridWorld; Qwen3-VL-8B, and Qwen3-4B / Llama-3.1-8B for
  text domains, by ``--model``), lr 1e-6, KL β 1e-2, weight decay 1e-2, max grad norm 1.0, bf16,
  32 rollouts per prompt, 32 prompts per step, vLLM generation; full paper prompts (Figs. 7, 11).
- ``cpu-small``: SmolLM2-135M-Instruct on CPU — compact prompts, 4 rollouts of ≤ 8 (QA) or
  ≤ 64 (assist) tokens, 2 prompts per step, 40 steps, lr 2e-5 (high enough that 40 Adam steps
  visibly change a 135 M model; one step takes about a minute on 2 shared cores), fp32.
- ``cpu-tiny``: a 0.8 M-parameter Llama from scratch (``--model scratch``) with its own tokenizer,
  ``anchored`` prompts and a label-free format warm start (:func:`format_warm_start`); 16 rollouts
  of 32 prompts per step at temperature 1.5 (lower lets the policy turn deterministic, and groups
  with one answer have no gradient), lr 1e-4 over 1,200 steps, warm-start choices drawn at
  temperature 0.5 after balancing each choice over prompts (unbalanced, a shared bias picks one
  letter for every prompt), no KL term (a KL to the warm start pulls towards its arbitrary
  answers), a held-out curve every 100 steps. Measured results: docs/ssrl.md.

``--policy-entropy α`` (every preset: 0) adds -α log pi(completion) to each valid completion's
reward (:class:`PolicySurprise`): with one particle per answer this is the paper's entropy term with
the policy as q, without which GRPO collapses onto one answer per prompt (``docs/ssrl.md``).

Every step appends one JSON line to ``OUT/train_log.jsonl`` (:func:`_step_row`); the seconds of each
phase up to the first step (data, warm start, model load, first generation, first step) are printed
as each ends and kept in ``OUT/phases.json``.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mindzero.core.config import apply_preset, presets_in, validate
from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseCounter
from mindzero.core.reward import RewardConfig
from mindzero.domains.base import Domain, Estimators, SSRLTask, TrainData, estimators_of, with_estimators
from mindzero.domains.reward import SSRLReward, earns_bonus
from mindzero.inference.llm import ANSWER_MODES
from mindzero.llm import TransformersBackend
from mindzero.llm.card import ModelCard
from mindzero.llm.models import load_language_model, resolve_model
from mindzero.tasks.curves import assist_decisions, score_assist, score_qa
from mindzero.train.base import (
    DATA_RENAMED,
    SCRATCH,
    PhaseClock,
    ScratchSpec,
    TrainConfig,
    append_jsonl,
    card_on_save,
    checkpoint_step,
    domain_task,
    jsonl_log,
    leave_process_group,
    load_tokenizer,
    read_log,
    require,
    resume_checkpoint,
    save_final,
    torch_dtype,
    trainer_args,
    trim_log,
    use_cpu,
    write_run_config,
)
from mindzero.train.copy_warmup import check_scratch
from mindzero.train.format_sft import FormatSFTConfig, FormatWarmStart, train_format_sft

#: The paper's Table 2 rows as reward switches.
ABLATIONS: dict[str, RewardConfig] = {
    "none": RewardConfig(),
    "no-prior": RewardConfig(use_prior=False),
    "single": RewardConfig(single_hypothesis=True),
    "no-entropy": RewardConfig(entropy_weight=0.0),
}

#: The presets, one YAML file each in ``mindzero/train/presets/ssrl/`` (a config names one and lists
#: only what it changes).
PRESETS = presets_in(Path(__file__).parent / "presets" / "ssrl")


@dataclass
class SSRLConfig(TrainConfig, Estimators):
    """Options of ``mindzero train ssrl``; ``None`` means "take the preset's value"; ``--likelihood``
    and ``--prior``: the reward's estimators (household assist has llm and rules ones)."""

    #: Options that moved into the data and warm-start sections (the old names work for one release).
    RENAMED: ClassVar[dict[str, str]] = {
        **DATA_RENAMED,
        "data": "data.path",
        "format_steps": "warm_start.steps",
        "format_choice_temperature": "warm_start.choice_temperature",
        "format_choice_balance": "warm_start.choice_balance",
        "copy_warmup_steps": "warm_start.copy_warmup_steps",
    }

    out: str = field(default="runs/ssrl", metadata={"help": "output folder: checkpoints, train_log.jsonl, final/"})
    domain: str = field(default="gridworld", metadata={"help": "domain whose task is trained (gridworld | household)"})
    task: str = field(
        default="qa",
        metadata={
            "help": "qa (answer a letter; household: MMToM-style questions) | assist (goal particles per timestep)"
        },
    )
    preset: str = field(
        default="cpu-small",
        metadata={"help": "cpu-tiny | cpu-small | gpu-paper (fills unset options)", "choices": tuple(PRESETS)},
    )
    model: str | None = field(default=None, metadata={"help": "model spec or folder (preset: smollm2-135m on CPU)"})
    data: TrainData = field(
        default_factory=lambda: TrainData(episodes=None, prompt_style=None),
        metadata={"help": "the unlabeled training rows; --data-path: qa-data's train.jsonl instead of generating"},
    )
    warm_start: FormatWarmStart = field(
        default_factory=lambda: FormatWarmStart(
            steps=None, batch_size=16, learning_rate=1e-3, choice_temperature=None, choice_balance=None
        ),
        metadata={"help": "--model scratch: the label-free format warm start before GRPO (train format-sft)"},
    )
    ablation: str = field(
        default="none",
        metadata={
            "help": "reward ablation (paper Table 2): none | no-prior | single | no-entropy",
            "choices": tuple(ABLATIONS),
        },
    )
    human: HumanParams = field(
        default_factory=HumanParams,
        metadata={"help": "the reward's human model (household: Household's defaults, with the values given)"},
    )
    max_steps: int | None = field(default=None, metadata={"help": "optimizer steps", "ge": 1, "le": 1_000_000})
    prompts_per_step: int | None = field(
        default=None, metadata={"help": "distinct prompts per optimizer step", "ge": 1, "le": 4_096}
    )
    num_generations: int | None = field(
        default=None, metadata={"help": "rollouts per prompt (GRPO group size)", "ge": 2, "le": 1_024}
    )
    micro_batch: int | None = field(
        default=None,
        metadata={
            "help": "completions per device per forward/backward (0 = the whole step; rest accumulated)",
            "ge": 0,
            "le": 4_096,
        },
    )
    max_completion_length: int | None = field(
        default=None, metadata={"help": "completion tokens per rollout", "ge": 1, "le": 32_768}
    )
    temperature: float | None = field(default=None, metadata={"help": "sampling temperature of rollouts", "ge": 0})
    learning_rate: float | None = field(default=None, metadata={"help": "AdamW learning rate", "gt": 0})
    beta: float | None = field(default=None, metadata={"help": "KL coefficient against the reference model", "ge": 0})
    policy_entropy: float | None = field(
        default=None,
        metadata={
            "help": "weight of -log pi(completion | prompt) added to each reward: the ELBO with the policy's own "
            "sampling distribution as q, which keeps GRPO from collapsing onto one answer (0 = off)",
            "ge": 0,
        },
    )
    scale_rewards: str | None = field(
        default=None,
        metadata={
            "help": "divide each group's advantages by its reward std (group, GRPO's), the batch's (batch) or "
            "not (none: the ELBO's own gradient, in nats)",
            "choices": ("group", "batch", "none"),
        },
    )
    weight_decay: float | None = field(default=None, metadata={"help": "AdamW weight decay", "ge": 0})
    max_grad_norm: float | None = field(default=None, metadata={"help": "gradient clipping norm", "gt": 0})
    bf16: bool | None = field(default=None, metadata={"help": "bfloat16 mixed precision"})
    use_vllm: bool | None = field(default=None, metadata={"help": "generate rollouts with vLLM (GPU)"})
    gradient_checkpointing: bool | None = field(default=None, metadata={"help": "trade compute for memory"})
    lora: bool = field(default=False, metadata={"help": "train a LoRA adapter (peft) instead of all weights"})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank", "ge": 1, "le": 4_096})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha", "ge": 1, "le": 65_536})
    save_steps: int | None = field(
        default=None, metadata={"help": "checkpoint every N steps", "ge": 1, "le": 1_000_000}
    )
    scratch: ScratchSpec = field(default_factory=ScratchSpec, metadata={"help": "size of a --model scratch"})
    eval_every: int | None = field(
        default=None,
        metadata={
            "help": "held-out learning curve every N steps into OUT/curves.jsonl (0 = off)",
            "ge": 0,
            "le": 1_000_000,
        },
    )
    eval_questions: int = field(
        default=300, metadata={"help": "qa: held-out questions of the learning curve", "ge": 1, "le": 100_000}
    )
    eval_episodes: int = field(
        default=12, metadata={"help": "assist: held-out episodes of the learning curve", "ge": 1, "le": 10_000}
    )
    eval_samples: int = field(
        default=1,
        metadata={
            "help": "assist curve: completions sampled per decision at the rollout temperature, their particles "
            "averaged (1 = greedy; a --policy-entropy policy is its own posterior, best read by sampling)",
            "ge": 1,
            "le": 256,
        },
    )
    eval_answer_mode: str = field(
        default="generate",
        metadata={
            "help": "assist curve: generate (greedy or --eval-samples sampled particles, parsed) | score (one "
            "particle: the model's probability of naming each goal)",
            "choices": ANSWER_MODES,
        },
    )
    eval_seed: int = field(
        default=12345, metadata={"help": "seed of the held-out curve's questions and episodes", "ge": 0}
    )


def resolve_config(config: SSRLConfig) -> SSRLConfig:
    """Fill unset options from the preset and check the values a user can get wrong."""
    return resolve_run(config)[0]


def resolve_run(config: SSRLConfig) -> tuple[SSRLConfig, Domain, SSRLTask]:
    """(the resolved config, its domain, its task): the one place a run's domain is looked up."""
    validate(config)
    config = apply_preset(config, PRESETS)
    validate(config)  # the preset's values too
    check_scratch(config.warm_start.copy_warmup_steps, config.model)
    domain, task = domain_task(config.domain, config.task, config.data.prompt_style)
    config = replace(config, human=domain.human(config.human))  # the human that made the rows
    task = with_estimators(task, estimators_of(config))
    if config.max_completion_length is None:
        config = replace(config, max_completion_length=task.completion_tokens)
    if config.model == SCRATCH and not config.warm_start.steps:
        raise UserError("--model scratch needs --format-steps > 0: a random model writes no answer GRPO can rank")
    if config.model == SCRATCH:  # GRPO's logits are the completions' only
        rollouts = config.micro_batch or config.prompts_per_step * config.num_generations
        config.scratch.require_memory(rollouts, config.max_completion_length, copies=4 + bool(config.beta))
    if config.data.path is not None and not Path(config.data.path).is_file():
        raise UserError(f"no such training file: {config.data.path} (make one with `mindzero gridworld qa-data`)")
    n_particles = config.data.n_particles
    if config.eval_answer_mode == "score" and config.task == "assist" and n_particles != 1:
        raise UserError(f"--eval-answer-mode score reads one-particle answers; got --data-n-particles {n_particles}")
    if config.eval_answer_mode == "score" and config.eval_samples != 1:
        raise UserError(
            "--eval-answer-mode score reads the model's probabilities, not samples; "
            f"drop --eval-samples {config.eval_samples}"
        )
    return config, domain, task


def training_rows(config: SSRLConfig, task: SSRLTask) -> list[dict]:
    """Chat-formatted rows with the columns the task's reward reads (no goal labels used)."""
    rows = task.rows(config.data)
    for row in rows:
        row["prompt"] = [{"role": "user", "content": row["prompt"]}]
    return rows


# --- rewards with per-step statistics -----------------------------------------------------------


def is_flat(group_rewards: Any) -> bool:
    """A GRPO group whose rollouts all scored alike: zero advantage, so no gradient."""
    return float(np.std(group_rewards)) < 1e-6


def _entropy(counts: Counter) -> float:
    """Entropy (nats) of the empirical distribution of ``counts``."""
    total = sum(counts.values())
    probs = np.array([c / total for c in counts.values() if c])
    return float(-(probs * np.log(probs)).sum())


@dataclass
class StepStats:
    """What one generation batch looked like: rewards, parse failures, entropies, flat groups."""

    rewards: list[float] = field(default_factory=list)
    surprises: list[float] = field(default_factory=list)  # -log pi(completion), nats (policy entropy on)
    parses: ParseCounter = field(default_factory=ParseCounter)
    answer_entropies: list[float] = field(default_factory=list)
    loose: int = 0  # valid completions not in the canonical spelling (no policy-entropy bonus)
    groups: int = 0
    flat_groups: int = 0
    seconds: float = 0.0  # wall time spent computing rewards, the policy-surprise pass included
    surprise_seconds: float = 0.0  # of which the policy-surprise forward pass (--policy-entropy)

    def summary(self) -> dict[str, float]:
        n = len(self.rewards)
        return {
            "reward_mean": float(np.mean(self.rewards)) if n else math.nan,
            "parse_failure_rate": self.parses.failures / n if n else math.nan,
            "loose_spelling_rate": self.loose / n if n else math.nan,
            "hypothesis_entropy": self.parses.metrics()["hypothesis_entropy"] if n > self.parses.failures else math.nan,
            "answer_entropy": float(np.mean(self.answer_entropies)) if self.answer_entropies else math.nan,
            "frac_zero_variance_groups": self.flat_groups / self.groups if self.groups else math.nan,
            "completions": n,
            "policy_surprise": float(np.mean(self.surprises)) if self.surprises else math.nan,
            "reward_seconds": self.seconds,
            "surprise_seconds": self.surprise_seconds,
        }


class PolicySurprise:
    """-log pi_T(completion | prompt) of each completion under the policy being trained, in nats.

    Weighted by ``--policy-entropy`` and added to the SSRL reward of each valid completion spelled
    canonically (:func:`~mindzero.domains.reward.earns_bonus`), the expected reward becomes
    E_pi[R] + H(pi): the ELBO in which the policy's own sampling distribution (at the rollout
    temperature T) is q. For one particle this is paper Eq. 4 with q = pi, whose optimum is
    pi(m | x) proportional to P(a | m) P(m). Without it, group-normalised advantages drift the policy
    onto one answer per prompt before it learns which (measured: ``benchmarks/probes/assist_pointer_probe.py
    --objective sampled`` with and without ``--entropy``). TRL does not pass rollout log-probs to
    reward functions, so one no-grad forward pass recomputes them."""

    def bind(self, trainer: Any) -> PolicySurprise:
        self.trainer = trainer
        return self

    def __call__(self, prompts: list, completion_ids: list) -> list[float]:
        import torch

        trainer = self.trainer
        tokenizer, model = trainer.processing_class, trainer.model
        prompt_ids = tokenizer.apply_chat_template(
            conversation=prompts, add_generation_prompt=True, tokenize=True, return_dict=True
        )["input_ids"]
        width = max(map(len, prompt_ids))
        length = max(1, max(map(len, completion_ids)))
        pad = tokenizer.pad_token_id
        ids = [
            [pad] * (width - len(p)) + list(p) + list(c) + [pad] * (length - len(c))
            for p, c in zip(prompt_ids, completion_ids)
        ]
        mask = [
            [0] * (width - len(p)) + [1] * (len(p) + len(c)) + [0] * (length - len(c))
            for p, c in zip(prompt_ids, completion_ids)
        ]
        device, chunk = next(model.parameters()).device, trainer.args.per_device_train_batch_size
        surprise = []
        with torch.no_grad():
            for lo in range(0, len(ids), chunk):
                batch = torch.tensor(ids[lo : lo + chunk], device=device)
                batch_mask = torch.tensor(mask[lo : lo + chunk], device=device)
                logits = model(input_ids=batch, attention_mask=batch_mask).logits[:, width - 1 : -1]
                logp = torch.log_softmax(logits.float() / trainer.temperature, -1)
                token_logp = logp.gather(-1, batch[:, width:, None])[..., 0] * batch_mask[:, width:]
                surprise.extend((-token_logp.sum(-1)).tolist())
        return surprise


def _from_every_process(share: tuple) -> list[tuple]:
    """``share`` of every process of a distributed run, in rank order (``[share]`` alone): each
    process scores only its own completions, and the log must describe the whole batch."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return [share]
    shares: list = [None] * dist.get_world_size()
    dist.all_gather_object(shares, share)
    return shares


class TrackedReward:
    """Wraps an :class:`SSRLReward` and records per-step statistics.

    TRL calls a reward function once per generation batch with prompts repeated
    ``num_generations`` times consecutively, so consecutive blocks are GRPO groups.
    ``hypothesis_entropy`` (nats): mean H(q) of the valid outputs (0 for single answers);
    ``answer_entropy``: mean over groups of the entropy of their most probable hypotheses, parse
    failures counted as one more answer (0 = every rollout of a prompt says the same).
    With ``surprise``, each valid completion in its canonical spelling gains ``policy_entropy`` x
    its surprise; the logged ``reward_mean`` and flat groups are of the SSRL reward alone for valid
    completions (a failure keeps its place below its group's worst total, bonus included);
    ``loose_spelling_rate``: the share of completions valid but not canonical.
    """

    def __init__(
        self,
        inner: SSRLReward,
        num_generations: int,
        surprise: PolicySurprise | None = None,
        policy_entropy: float = 0.0,
    ) -> None:
        self.inner = inner
        self.group = num_generations
        self.surprise = surprise
        self.policy_entropy = policy_entropy
        self.pending = StepStats()
        self.__name__ = inner.__name__

    def __call__(self, prompts: list, completions: list, **kwargs: Any) -> list[float]:
        started = time.perf_counter()
        surprises, surprise_seconds, bonus = [], 0.0, None
        if self.surprise is not None:
            surprises = self.surprise(prompts, kwargs["completion_ids"])
            surprise_seconds = time.perf_counter() - started
            bonus = [self.policy_entropy * x for x in surprises]
        totals = self.inner(prompts, completions, bonus=bonus, **kwargs)
        results = self.inner.results
        rewards = totals  # logged: the SSRL reward alone
        if bonus is not None:
            rewards = [t - b if earns_bonus(r) else t for t, b, r in zip(totals, bonus, results)]
        shares = _from_every_process((rewards, results, surprises, time.perf_counter() - started, surprise_seconds))
        self._record(
            [x for share in shares for x in share[0]],
            [x for share in shares for x in share[1]],
            [x for share in shares for x in share[2]],
            max(share[3] for share in shares),
            max(share[4] for share in shares),
        )
        return totals

    def _record(
        self, rewards: list[float], results: list, surprises: list[float], seconds: float, surprise_seconds: float
    ) -> None:
        """Add one generation batch, all processes' completions in TRL's order (so that GRPO groups
        split across processes are whole again); the wall times are the slowest process's."""
        stats = self.pending
        stats.rewards.extend(rewards)
        stats.surprises.extend(surprises)
        stats.seconds += seconds
        stats.surprise_seconds += surprise_seconds
        for result in results:
            stats.parses.add(result)
            stats.loose += result.ok and not result.canonical
        answers = [r.answer for r in results]
        for lo in range(0, len(rewards), self.group):
            stats.answer_entropies.append(_entropy(Counter(answers[lo : lo + self.group])))
            stats.groups += 1
            stats.flat_groups += is_flat(rewards[lo : lo + self.group])

    def pop(self) -> dict[str, float] | None:
        """Statistics since the last call, or None if no batch was scored since."""
        if not self.pending.rewards:
            return None
        out, self.pending = self.pending.summary(), StepStats()
        return out


#: TRL's logged values copied into each line of the training log.
TRL_LOG_KEYS = (
    "loss",
    "kl",
    "learning_rate",
    "grad_norm",
    "entropy",
    "completions/mean_length",
    "frac_reward_zero_std",
)


def _step_row(reward: TrackedReward, started: float):
    """One training-log line per optimizer step: our reward statistics (over every process's
    completions) and TRL's loss/KL/lr."""

    def row(state: Any, logs: dict) -> dict | None:
        if "loss" not in logs:
            return None
        stats = reward.pop()
        if stats is None:
            return None
        out = {"step": state.global_step, **stats}
        out.update({key.replace("/", "_"): logs[key] for key in TRL_LOG_KEYS if key in logs})
        out["seconds"] = time.perf_counter() - started
        return out

    return row


# --- training ---------------------------------------------------------------------------------


def grpo_args(config: SSRLConfig, out: Path) -> Any:
    """The TRL :class:`GRPOConfig` of a resolved config (one optimizer step = one generation batch)."""
    trl = require("trl", "llm")
    import torch

    if config.bf16 and not torch.cuda.is_available():
        raise UserError("--bf16 needs a CUDA GPU; on CPU pass --bf16 false (the cpu-* presets do)")
    per_step = config.prompts_per_step * config.num_generations
    world = int(os.environ.get("WORLD_SIZE", "1"))
    micro = config.micro_batch or per_step // world
    if per_step % (micro * world):
        raise UserError(
            f"prompts_per_step x num_generations = {per_step} must split into micro batches of {micro} "
            f"on {world} process(es); change --micro-batch"
        )
    return trainer_args(
        trl.GRPOConfig,
        config,
        output_dir=str(out),
        learning_rate=config.learning_rate,
        beta=config.beta,
        scale_rewards=config.scale_rewards,
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
        disable_tqdm=False,
        use_cpu=not config.use_vllm and use_cpu(),
        remove_unused_columns=False,
    )


def format_warm_start(config: SSRLConfig) -> Path:
    """For ``--model scratch``: a new model and tokenizer trained on the task's texts, then the
    format warm start (:class:`~mindzero.train.format_sft.FormatWarmStart`, no labels) in
    ``OUT/format``, run with this run's own data and warm-start sections; its ``final`` folder
    starts GRPO (built once: a resumed run reuses it)."""
    folder = Path(config.out) / "format"
    if not (folder / "final" / "config.json").is_file():
        train_format_sft(warm_start_config(config), generation_budget=True)
    return folder / "final"


def warm_start_config(config: SSRLConfig) -> FormatSFTConfig:
    """The warm-start stage's config: the same data and warm-start sections, and where it writes."""
    return FormatSFTConfig(
        out=str(Path(config.out) / "format"),
        seed=config.seed,
        domain=config.domain,
        task=config.task,
        model=SCRATCH,
        scratch=config.scratch,
        data=config.data,
        warm_start=config.warm_start,
        save_steps=config.warm_start.steps,
        eval_prompts=16,
        max_new_tokens=config.max_completion_length,
    )


def curve_callbacks(config: SSRLConfig, domain: Domain, task: SSRLTask, out: Path, checkpoint: Path | None) -> list:
    """The held-out learning curve (:mod:`mindzero.tasks.curves`) every ``eval_every`` steps and
    before the first, appended to ``OUT/curves.jsonl`` (trimmed like the log on resume)."""
    if not config.eval_every:
        return []
    from transformers import TrainerCallback

    path = out / "curves.jsonl"
    trim_log(path, checkpoint_step(checkpoint))
    if task.kind == "qa":
        heldout = domain.heldout_questions(config.eval_questions, config.eval_seed)
    else:
        episodes = domain.heldout_episodes(config.eval_episodes, config.eval_seed)
        heldout = assist_decisions(domain, episodes, config.human, config.eval_seed)

    def measure(model: Any, tokenizer: Any) -> dict:
        backend = TransformersBackend.from_model(model, tokenizer, batch_size=64)
        if task.kind == "qa":
            return score_qa(domain, backend, heldout, config.data.prompt_style, config.max_completion_length)
        return score_assist(
            domain,
            backend,
            heldout,
            config.data.n_particles,
            config.data.prompt_style,
            config.max_completion_length,
            config.eval_samples,
            config.temperature,
            config.eval_seed,
            config.eval_answer_mode,
        )

    class HeldoutCurve(TrainerCallback):
        def _write(self, state, model, tokenizer) -> None:  # noqa: ANN001
            if not state.is_world_process_zero:
                return
            training = model.training
            model.eval()
            started = time.perf_counter()
            row = {"step": state.global_step, **measure(model, tokenizer), "seconds": time.perf_counter() - started}
            model.train(training)
            append_jsonl(path, row)

        def on_train_begin(self, args, state, control, model=None, processing_class=None, **kwargs):  # noqa: ANN001
            if state.global_step == 0:
                self._write(state, model, processing_class)

        def on_step_end(self, args, state, control, model=None, processing_class=None, **kwargs):  # noqa: ANN001
            if state.global_step % config.eval_every == 0:
                self._write(state, model, processing_class)

    return [HeldoutCurve()]


def train_ssrl(config: SSRLConfig) -> dict[str, Any]:
    """Run GRPO; returns a summary (steps, seconds, final model folder, last logged statistics,
    seconds per phase up to the first step: :class:`~mindzero.train.base.PhaseClock`)."""
    clock = PhaseClock(Path(config.out))
    config, domain, task = resolve_run(config)  # the domain is looked up once and passed down
    out = Path(config.out)
    checkpoint = resume_checkpoint(out, config.resume)
    if config.use_vllm:
        require("vllm", "vllm")
    if config.lora:
        require("peft", "llm")
    scratch = config.model == SCRATCH
    model_path = None if scratch else resolve_model(config.model)  # a wrong path fails before the slow imports
    require("trl", "llm")
    import datasets
    from trl import GRPOTrainer

    out.mkdir(parents=True, exist_ok=True)
    clock.lap("setup")  # option checks and the TRL import
    rows = training_rows(config, task)
    if not rows:
        raise UserError("no training rows; raise --train-episodes")
    clock.lap("data")
    if scratch:
        model_path = format_warm_start(config)
        clock.lap("warm_start")
    tokenizer = load_tokenizer(model_path, padding_side="left")
    model = load_language_model(model_path, torch_dtype(config.bf16))
    clock.lap("model_load")
    peft_config = None
    if config.lora:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=config.lora_r, lora_alpha=config.lora_alpha, task_type="CAUSAL_LM", target_modules="all-linear"
        )
    name = f"ssrl_{config.domain}_{config.task}"
    surprise = PolicySurprise() if config.policy_entropy else None
    reward = TrackedReward(
        SSRLReward(task, config.human, ABLATIONS[config.ablation], name),
        config.num_generations,
        surprise,
        config.policy_entropy,
    )
    started = time.perf_counter()
    log_path = out / "train_log.jsonl"
    trim_log(log_path, checkpoint_step(checkpoint))
    write_run_config(out, "ssrl_config", config, model_path=model_path)
    card = ModelCard(
        config.domain,
        config.task,
        config.data.prompt_style,
        config.data.n_particles,
        "ssrl",
        config.max_completion_length,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[clock.first_call("first_generation", reward)],
        args=grpo_args(config, out),
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer,
        callbacks=[
            jsonl_log(log_path, _step_row(reward, started)),
            card_on_save(card),
            *curve_callbacks(config, domain, task, out, checkpoint),
            clock.callback(),
        ],
        peft_config=peft_config,
    )
    clock.lap("trainer_setup")
    if surprise is not None:
        surprise.bind(trainer)
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = save_final(trainer, tokenizer, out, trainer.model.merge_and_unload() if config.lora else None, card)
    leave_process_group()
    log = read_log(log_path)
    return {
        "steps": trainer.state.global_step,
        "seconds": time.perf_counter() - started,
        "rows": len(rows),
        "final_model": str(final),
        "log": str(log_path),
        "last": log[-1] if log else {},
        "resumed_from": str(checkpoint) if checkpoint else None,
        "curves": str(out / "curves.jsonl") if config.eval_every else None,
        "phases": clock.seconds,
    }
