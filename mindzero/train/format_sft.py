"""Label-free format warm start for the assist task: a few SFT steps on *random* particle sets.

A small model such as SmolLM2-135M never writes a parseable particle set when asked for the JSON
of paper Fig. 7 (it copies the JSON Schema back), so every GRPO group of ``train ssrl --task
assist`` gets the same failure reward and training has no signal. This warm start teaches the
answer *format* and nothing about goals: each target is a particle set over the scene's own
objects whose pairs and probabilities are drawn at random, independently of the observed actions
(so, like the SSRL reward, it reads no goal label). Then continue with
``mindzero train ssrl --task assist --model OUT/final``. Any task with ``random_completion`` works
(QA: a random letter); ``--model scratch`` first builds a model and tokenizer from the task's texts
(the ``cpu-tiny`` preset's start), and then a choice token's target is the untrained model's own
preference (:func:`own_choices`).

Training uses TRL's ``SFTTrainer`` on prompt/completion chat rows (loss on the completion only).
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.results import atomic_write_text, write_jsonl
from mindzero.domains.base import SSRLTask, TrainData
from mindzero.llm import TransformersBackend
from mindzero.llm.card import ModelCard
from mindzero.llm.models import load_language_model, resolve_model
from mindzero.train.base import (
    CHAT_ROLES,
    DATA_RENAMED,
    SCRATCH,
    ScratchSpec,
    TrainConfig,
    build_scratch,
    card_on_save,
    domain_task,
    load_tokenizer,
    require,
    resume_checkpoint,
    save_final,
    trainer_args,
    write_run_config,
)
from mindzero.train.copy_warmup import check_scratch, copy_warmup


@dataclass
class FormatWarmStart:
    """The label-free format warm start: SFT steps on random well-formed answers. ``train
    format-sft`` runs it alone; ``train ssrl --model scratch`` runs it as its first stage with the
    same options (``--warm-start-*``). ``None`` means "the preset's value"."""

    steps: int | None = field(
        default=40, metadata={"help": "optimizer steps (ssrl: 0 = none)", "ge": 0, "le": 1_000_000}
    )
    batch_size: int = field(default=4, metadata={"help": "rows per optimizer step", "ge": 1, "le": 4_096})
    learning_rate: float = field(default=5e-5, metadata={"help": "AdamW learning rate", "gt": 0})
    choice_temperature: float | None = field(
        default=0.0,
        metadata={
            "help": "--model scratch: 0 = each choice target is the untrained model's preferred choice; "
            "T > 0 = drawn with probabilities softmax(z / T), z its standardised scores (keeps answers varied)",
            "ge": 0,
        },
    )
    choice_balance: bool | None = field(
        default=False,
        metadata={"help": "--model scratch: standardise each choice's score over all prompts first (no shared bias)"},
    )
    copy_warmup_steps: int = field(
        default=0,
        metadata={
            "help": "--model scratch: steps copying random sequences before the answers (0: none)",
            "ge": 0,
            "le": 1_000_000,
        },
    )


@dataclass
class FormatSFTConfig(TrainConfig):
    """Options of ``mindzero train format-sft``."""

    #: Options that moved into the data and warm-start sections (the old names work for one release).
    RENAMED: ClassVar[dict[str, str]] = {
        **DATA_RENAMED,
        "max_steps": "warm_start.steps",
        "batch_size": "warm_start.batch_size",
        "learning_rate": "warm_start.learning_rate",
        "choice_temperature": "warm_start.choice_temperature",
        "choice_balance": "warm_start.choice_balance",
        "copy_warmup_steps": "warm_start.copy_warmup_steps",
    }

    out: str = field(default="runs/format-sft", metadata={"help": "output folder: checkpoints, train_log, final/"})
    domain: str = field(default="gridworld", metadata={"help": "domain of the task"})
    task: str = field(default="assist", metadata={"help": "the domain's task (assist: particles; qa: a letter)"})
    model: str = field(
        default="smollm2-135m", metadata={"help": "model spec or folder to warm-start, or 'scratch' (see --scratch-*)"}
    )
    scratch: ScratchSpec = field(default_factory=ScratchSpec, metadata={"help": "size of a --model scratch"})
    data: TrainData = field(default_factory=lambda: TrainData(episodes=60), metadata={"help": "the training rows"})
    warm_start: FormatWarmStart = field(default_factory=FormatWarmStart, metadata={"help": "the SFT steps"})
    save_steps: int = field(default=20, metadata={"help": "checkpoint every N steps", "ge": 1, "le": 1_000_000})
    eval_prompts: int = field(
        default=8,
        metadata={"help": "held-out prompts decoded greedily after training (0: none)", "ge": 0, "le": 100_000},
    )
    max_new_tokens: int = field(
        default=64, metadata={"help": "completion budget of the held-out check", "ge": 1, "le": 32_768}
    )


def format_task(config: FormatSFTConfig) -> SSRLTask:
    return domain_task(config.domain, config.task, config.data.prompt_style)[1]


def format_rows(config: FormatSFTConfig, episodes: int | None = None, data_seed: int | None = None) -> list[dict]:
    """Chat rows ``prompt`` → ``completion`` whose completions are random well-formed answers
    (particle sets, letters) that ignore the actions."""
    if config.data.n_particles < 1:
        raise UserError(f"--data-n-particles must be at least 1, got {config.data.n_particles}")
    task = format_task(config)
    data = replace(
        config.data,
        episodes=config.data.episodes if episodes is None else episodes,
        seed=config.data.seed if data_seed is None else data_seed,
    )
    rows = []
    for row in task.rows(data):
        # Seeded by the prompt: a prompt's target does not depend on the rows drawn before it. (It
        # does not keep a scratch model reading its prompt: letters hashed from the prompt left its
        # answers input-independent too; :func:`own_choices` is what does.)
        rng = np.random.default_rng([config.seed, zlib.crc32(row["prompt"].encode())])
        target = task.random_completion(row, config.data.n_particles, rng)
        columns = {k: row[k] for k in task.columns}
        rows.append(
            {
                "prompt": [{"role": "user", "content": row["prompt"]}],
                "completion": [{"role": "assistant", "content": target}],
                **columns,
            }
        )
    return rows


def held_out_parse_rate(model_dir: Path, config: FormatSFTConfig) -> dict[str, Any]:
    """Greedy completions of ``eval_prompts`` prompts from unseen episodes: how many parse."""
    task = format_task(config)
    rows = format_rows(config, episodes=max(1, config.eval_prompts), data_seed=config.data.seed + 1)
    rows = rows[:: max(1, len(rows) // config.eval_prompts)][: config.eval_prompts]
    backend = TransformersBackend(model_dir)
    generations = backend.generate([r["prompt"] for r in rows], temperature=0.0, max_new_tokens=config.max_new_tokens)
    results = [task.context(r, HumanParams()).parse(g[0].text) for g, r in zip(generations, rows)]
    return {
        "prompts": len(rows),
        "parse_failure_rate": sum(not r.ok for r in results) / len(rows),
        "examples": [g[0].text for g in generations[:3]],
    }


def tokenized(row: dict, tokenizer: Any) -> dict:
    """``input_ids`` of prompt (chat template, assistant turn opened) + completion + end of turn,
    and the ``completion_mask`` of the completion's tokens (the loss is on those)."""
    chat = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=True)
    prompt = list(chat["input_ids"])
    completion = tokenizer(row["completion"][0]["content"] + tokenizer.eos_token, add_special_tokens=False).input_ids
    return {"input_ids": prompt + completion, "completion_mask": [0] * len(prompt) + [1] * len(completion)}


def check_answer_budget(items: list[dict], max_new_tokens: int, n_particles: int) -> None:
    """A one-line error when more than 5 % of the answers the warm start teaches are longer than
    ``max_new_tokens``: GRPO would cut them and they would fail to parse (e.g. a recipe's 24 tokens
    for one particle reused by ``train ablation`` for more)."""
    lengths = np.array([sum(item["completion_mask"]) - 1 for item in items])  # without the end of turn
    if np.mean(lengths > max_new_tokens) > 0.05:
        raise UserError(
            f"answers of {n_particles} particles take {int(np.median(lengths))} tokens (median; up to "
            f"{lengths.max()}), more than --max-completion-length {max_new_tokens}: raise it to at least "
            f"{int(np.percentile(lengths, 95))} or ask for fewer particles"
        )


def own_choices(
    model: Any,
    tokenizer: Any,
    items: list[dict],
    choice_tokens: tuple[str, ...],
    temperature: float = 0.0,
    seed: int = 0,
    balance: bool = False,
    batch: int = 256,
) -> None:
    """Replace each choice token of the targets by the one the untrained model itself prefers there.

    A random letter as the target pushes the letter's dependence on the prompt to zero (measured on
    a scratch model: its answers became exactly input-independent after 200 steps), and GRPO then
    has no gradient left to make them depend on it. The random model's own preference is a random
    function of the prompt that its architecture computes: fitting it keeps, and sharpens, the
    answer's dependence on the prompt — still without a label.

    A choice token is replaced by one with the same leading space (the text keeps its form), and
    never by the choice just before it in the same answer: a goal pair names two objects (an
    answer of one choice, as QA's letter, is unaffected).

    ``temperature`` 0 takes the preferred choice; T > 0 draws it from softmax(z / T) of the
    scores standardised over the allowed choices: the warm-started model then answers each prompt
    with a varied choice that still depends on the prompt. With the argmax, a cpu-tiny assist
    model's first letter had 0.29 nats of token entropy at temperature 1: GRPO's 8 rollouts of a
    prompt then mostly say the same and the policy collapses to one answer for every prompt.

    ``balance``: first standardise each choice's score over all prompts. An untrained model's
    scores are mostly a per-choice bias shared by every prompt (after a warm start on its raw
    preferences, `D G` was the greedy assist answer to 44 of 67 held-out prompts); balanced, each
    choice is preferred about equally often and which one depends on the prompt."""
    import torch

    generator = torch.Generator().manual_seed(seed)

    ids = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(t))[0] for t in choice_tokens]
    choice = {i: t.strip() for i, t in zip(ids, choice_tokens)}
    spaced = {i: t[:1].isspace() for i, t in zip(ids, choice_tokens)}
    positions = [
        [k for k, t in enumerate(item["input_ids"]) if t in choice and item["completion_mask"][k]] for item in items
    ]
    pad = tokenizer.pad_token_id
    scores = []  # per choice position of every item, in order: the untrained model's scores
    with torch.inference_mode():
        for lo in range(0, len(items), batch):
            chunk = items[lo : lo + batch]
            width = max(len(x["input_ids"]) for x in chunk)
            input_ids = torch.tensor([x["input_ids"] + [pad] * (width - len(x["input_ids"])) for x in chunk])
            mask = torch.tensor([[1] * len(x["input_ids"]) + [0] * (width - len(x["input_ids"])) for x in chunk])
            logits = model(input_ids=input_ids, attention_mask=mask).logits[:, :, ids]
            scores.extend(row[k - 1] for row, where in zip(logits, positions[lo : lo + batch]) for k in where)
    if not scores:
        return
    scores = torch.stack(scores)
    if balance:  # per choice and per place in the answer (a pair's first letter, its second, ...)
        place = torch.tensor([j for where in positions for j in range(len(where))])
        for j in place.unique():
            rows = scores[place == j]
            scores[place == j] = (rows - rows.mean(0)) / (rows.std(0) + 1e-6)
    at = iter(scores)
    for item, where in zip(items, positions):
        previous = None
        for k in where:
            original, score = item["input_ids"][k], next(at)
            keep = torch.tensor([spaced[i] == spaced[original] and choice[i] != previous for i in ids])
            if temperature > 0:
                z = (score - score[keep].mean()) / (score[keep].std() + 1e-6)
                probs = torch.softmax(z.masked_fill(~keep, float("-inf")) / temperature, dim=0)
                pick = int(torch.multinomial(probs, 1, generator=generator))
            else:
                pick = int(score.masked_fill(~keep, float("-inf")).argmax())
            item["input_ids"][k] = ids[pick]
            previous = choice[item["input_ids"][k]]


def train_format_sft(config: FormatSFTConfig, generation_budget: bool = False) -> dict[str, Any]:
    """Run the SFT steps; returns a summary (steps, seconds, final model, held-out parse rate).
    ``generation_budget``: ``max_new_tokens`` is also what GRPO will generate (``train ssrl``'s warm
    start), so answers it cannot hold are an error before any step."""
    check_scratch(config.warm_start.copy_warmup_steps, config.model)
    task = format_task(config)  # a bad option is named before a missing model package
    out = Path(config.out)
    scratch = config.model == SCRATCH
    if scratch:
        config.scratch.require_memory()
    model_path = None if scratch else resolve_model(config.model)  # a wrong path fails before the slow imports
    checkpoint = resume_checkpoint(out, config.resume)
    trl = require("trl", "llm")
    import datasets

    rows = format_rows(config)
    if not rows:
        raise UserError("no training rows; raise --train-episodes")
    out.mkdir(parents=True, exist_ok=True)
    if scratch:
        texts = [text for r in rows for text in (r["prompt"][0]["content"], r["completion"][0]["content"])]
        model_path = build_scratch(out / "scratch", [*texts, *CHAT_ROLES], config.scratch, config.seed)
        if config.warm_start.copy_warmup_steps:
            steps = config.warm_start.copy_warmup_steps
            model_path = copy_warmup(model_path, out / "copy-warmup", steps, config.seed)
    write_run_config(out, "format_sft_config", config, model_path=model_path)
    tokenizer = load_tokenizer(model_path)
    args = trainer_args(
        trl.SFTConfig,
        config,
        max_steps=config.warm_start.steps,
        per_device_train_batch_size=config.warm_start.batch_size,
        learning_rate=config.warm_start.learning_rate,
        logging_steps=1,
        save_steps=config.save_steps,
        save_total_limit=2,
        completion_only_loss=True,
        activation_checkpointing=False,  # TRL's default trades compute for memory a 135 M model does not need
    )
    started = time.perf_counter()
    model = load_language_model(model_path)
    items = [tokenized(r, tokenizer) for r in rows]
    if generation_budget:
        check_answer_budget(items, config.max_new_tokens, config.data.n_particles)
    if scratch and task.choice_tokens:
        own_choices(
            model,
            tokenizer,
            items,
            task.choice_tokens,
            config.warm_start.choice_temperature or 0.0,
            config.seed,
            bool(config.warm_start.choice_balance),
        )
    card = ModelCard(
        config.domain,
        config.task,
        config.data.prompt_style,
        config.data.n_particles,
        "format-sft",
        task.completion_tokens,
    )
    trainer = trl.SFTTrainer(
        model=model,
        args=args,
        train_dataset=datasets.Dataset.from_list(items),
        processing_class=tokenizer,
        callbacks=[card_on_save(card)],
    )
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = save_final(trainer, tokenizer, out, card=card)
    log = [{"step": e["step"], "loss": e["loss"]} for e in trainer.state.log_history if "loss" in e]
    write_jsonl(out / "train_log.jsonl", log)
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
