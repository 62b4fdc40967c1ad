"""Label-free format warm start for the assist task: a few SFT steps on *random* particle sets.

A small model such as SmolLM2-135M never writes a parseable particle set when asked for the JSON
of paper Fig. 7 (it copies the JSON Schema back), so every GRPO group of ``train ssrl --task
assist`` gets the same failure reward and training has no signal. This warm start teaches the
answer *format* and nothing about goals: each target is a particle set over the scene's own
objects whose pairs and probabilities are drawn at random, independently of the observed actions
(so, like the SSRL reward, it reads no goal label). Then continue with
``mindzero train ssrl --task assist --model OUT/final``.

Training uses TRL's ``SFTTrainer`` on prompt/completion chat rows (loss on the completion only).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text


@dataclass
class FormatSFTConfig:
    """Options of ``mindzero train format-sft``."""

    model: str = field(default="smollm2-135m", metadata={"help": "model spec or folder to warm-start"})
    out: str = field(default="runs/format-sft", metadata={"help": "output folder: checkpoints, train_log, final/"})
    train_episodes: int = field(default=60, metadata={"help": "unlabeled episodes to take prompts from"})
    data_seed: int = field(default=0, metadata={"help": "seed of the generated episodes"})
    every: int = field(default=2, metadata={"help": "keep every k-th timestep of each episode"})
    n_particles: int = field(default=1, metadata={"help": "particles per prompt (as in train ssrl)"})
    prompt_style: str = field(default="compact", metadata={"help": "full (paper transcript) | compact (CPU)"})
    max_steps: int = field(default=40, metadata={"help": "optimizer steps"})
    batch_size: int = field(default=4, metadata={"help": "rows per optimizer step"})
    learning_rate: float = field(default=5e-5, metadata={"help": "AdamW learning rate"})
    save_steps: int = field(default=20, metadata={"help": "checkpoint every N steps"})
    resume: bool = field(default=False, metadata={"help": "continue from the last checkpoint in --out"})
    eval_prompts: int = field(default=8, metadata={"help": "held-out prompts decoded greedily after training"})
    max_new_tokens: int = field(default=64, metadata={"help": "completion budget of the held-out check"})
    seed: int = field(default=0, metadata={"help": "seed of the random targets and of training"})


def format_rows(config: FormatSFTConfig, episodes: int | None = None, data_seed: int | None = None) -> list[dict]:
    """Chat rows ``prompt`` → ``completion`` whose completions are random valid particle sets."""
    from mindzero.core.hypotheses import format_goal_particles
    from mindzero.envs.gridworld.layout import parse_layout
    from mindzero.envs.gridworld.world import goal_pairs
    from mindzero.tasks.gridworld_ssrl import AssistDataConfig, assist_rows, object_names

    if config.n_particles < 1:
        raise UserError(f"--n-particles must be at least 1, got {config.n_particles}")
    data = AssistDataConfig(
        episodes=config.train_episodes if episodes is None else episodes,
        seed=config.data_seed if data_seed is None else data_seed,
        every=config.every,
        n_particles=config.n_particles,
        prompt_style=config.prompt_style,
    )
    rng = np.random.default_rng(config.seed)
    rows = []
    for row in assist_rows(data):
        objects = object_names(parse_layout(row["layout"]))
        goals = goal_pairs(len(objects))
        if config.n_particles > len(goals):
            raise UserError(f"--n-particles {config.n_particles} exceeds the {len(goals)} goal pairs of a scene")
        picked = [goals[i] for i in rng.choice(len(goals), size=config.n_particles, replace=False)]
        picked = [(j, i) if rng.random() < 0.5 else (i, j) for i, j in picked]  # no object-order habit
        target = format_goal_particles(picked, rng.dirichlet(np.ones(config.n_particles)), objects)
        rows.append(
            {
                "prompt": [{"role": "user", "content": row["prompt"]}],
                "completion": [{"role": "assistant", "content": target}],
                "layout": row["layout"],
                "episode_id": row["episode_id"],
            }
        )
    return rows


def held_out_parse_rate(model_dir: Path, config: FormatSFTConfig) -> dict[str, Any]:
    """Greedy completions of ``eval_prompts`` prompts from unseen episodes: how many parse."""
    from mindzero.core.hypotheses import parse_goal_particles
    from mindzero.envs.gridworld.layout import parse_layout
    from mindzero.llm import TransformersBackend
    from mindzero.tasks.gridworld_ssrl import object_names

    rows = format_rows(config, episodes=max(1, config.eval_prompts), data_seed=config.data_seed + 1)
    rows = rows[:: max(1, len(rows) // config.eval_prompts)][: config.eval_prompts]
    backend = TransformersBackend(model_dir)
    generations = backend.generate([r["prompt"] for r in rows], temperature=0.0, max_new_tokens=config.max_new_tokens)
    results = [
        parse_goal_particles(g[0].text, object_names(parse_layout(r["layout"]))) for g, r in zip(generations, rows)
    ]
    return {
        "prompts": len(rows),
        "parse_failure_rate": sum(not r.ok for r in results) / len(rows),
        "examples": [g[0].text for g in generations[:3]],
    }


def train_format_sft(config: FormatSFTConfig) -> dict[str, Any]:
    """Run the SFT steps; returns a summary (steps, seconds, final model, held-out parse rate)."""
    from mindzero.llm.models import resolve_model
    from mindzero.train.ssrl import _cuda, _require, resume_checkpoint

    if config.prompt_style not in ("full", "compact"):
        raise UserError(f"unknown prompt style {config.prompt_style!r}; use full or compact")
    model_path = resolve_model(config.model)  # a wrong path fails here, before the slow imports
    out = Path(config.out)
    checkpoint = resume_checkpoint(out, config.resume)
    trl = _require("trl", "llm")
    import datasets
    from transformers import AutoModelForCausalLM, AutoTokenizer

    rows = format_rows(config)
    if not rows:
        raise UserError("no training rows; raise --train-episodes")
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(
        out / "format_sft_config.json", json.dumps({**dataclasses.asdict(config), "model_path": str(model_path)})
    )
    tokenizer = AutoTokenizer.from_pretrained(str(model_path))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    args = trl.SFTConfig(
        output_dir=str(out),
        max_steps=config.max_steps,
        per_device_train_batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        logging_steps=1,
        save_steps=config.save_steps,
        save_total_limit=2,
        seed=config.seed,
        data_seed=config.seed,
        report_to=[],
        use_cpu=not _cuda(),
        completion_only_loss=True,
        activation_checkpointing=False,  # TRL's default trades compute for memory a 135 M model does not need
    )
    started = time.perf_counter()
    trainer = trl.SFTTrainer(
        model=AutoModelForCausalLM.from_pretrained(str(model_path)),
        args=args,
        train_dataset=datasets.Dataset.from_list([{k: r[k] for k in ("prompt", "completion")} for r in rows]),
        processing_class=tokenizer,
    )
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = out / "final"
    trainer.model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    log = [{"step": e["step"], "loss": e["loss"]} for e in trainer.state.log_history if "loss" in e]
    atomic_write_text(out / "train_log.jsonl", "".join(json.dumps(e) + "\n" for e in log))
    seconds = time.perf_counter() - started
    check = held_out_parse_rate(final, config) if config.eval_prompts > 0 else None
    summary = {
        "steps": trainer.state.global_step,
        "rows": len(rows),
        "seconds": seconds,
        "final_model": str(final),
        "first_loss": log[0]["loss"] if log else None,
        "last_loss": log[-1]["loss"] if log else None,
        "held_out": check,
    }
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    return summary
