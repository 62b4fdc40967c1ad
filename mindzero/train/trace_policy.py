"""``mindzero train trace-policy``: a small model that writes DEL-ToM traces, by supervised fine-tuning.

The policy that Best-of-N and beam search rank (DEL-ToM §4.2.3) must write traces in the paper's
step format and be right often but not always. SmolLM2-135M ignores the format and costs about a
minute per training step on this CPU, so the ``cpu-tiny`` preset trains a Llama of 365 k
parameters from scratch (``--model scratch``), with a byte-level BPE tokenizer trained on the
prompts and traces themselves, on gold traces (:func:`~mindzero.stories.traces.render_gold_trace`)
of generated stories. The prompt is the DEL-ToM prompt without the worked example
(:func:`~mindzero.pbm.data.policy_messages`), so the result answers the same prompt as any other
``--policy`` (``hf:OUT/final`` or the folder itself) and samples at temperature give the pool.

Training stories come from generator seed ``POLICY_SEED_OFFSET + --data-seed``, never the seed-0
stories that ``stories scale-eval --data generated`` evaluates on. TRL's ``SFTTrainer`` runs on
prompt + completion token ids with the loss on the completion only; ``OUT/checkpoint-N/`` are
resumable, each an ordinary HF folder; ``OUT/final/`` is the result; ``OUT/train_log.jsonl`` has one
line per logging step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindzero.core.config import apply_preset, presets_in
from mindzero.core.errors import UserError
from mindzero.llm.models import load_language_model, resolve_model
from mindzero.pbm.data import INSTRUCTIONS, BeliefQuestion, pbm_problem, policy_messages, questions_from_stories
from mindzero.stories.generator import ANIMALS, CONTAINERS, ITEMS, NAMES, OBJECTS, ROOMS, generate_stories
from mindzero.stories.traces import render_gold_trace
from mindzero.train.base import (
    CHAT_ROLES,
    SCRATCH,
    ScratchSpec,
    TrainConfig,
    build_scratch,
    checkpoint_step,
    jsonl_log,
    load_tokenizer,
    require,
    resume_checkpoint,
    save_final,
    step_row,
    trainer_args,
    trim_log,
    write_run_config,
)
from mindzero.train.copy_warmup import check_scratch, copy_warmup

#: Added to ``--data-seed`` for the training stories: evaluation uses the generator's small seeds.
POLICY_SEED_OFFSET = 1000
#: Strings a scratch tokenizer sees besides prompts and traces: the PBM's step tag and labels, so
#: a PBM started from the policy scores with the same tokenizer.
PBM_STRINGS = (" ки", " +", " -")

#: A scratch tokenizer keeps the story world's value words whole (names, rooms, objects, containers,
#: ``Null``) and numbers, each with the space before it; the text between them merges into phrase
#: tokens (" thinks ", " is in [") and the DEL-ToM instructions are one token. A one-chapter
#: prompt + trace is then about 500 tokens instead of 1,100 with word tokens.
TRACE_ATOMS = (
    r" ?(?<![A-Za-z_])(?:"
    + "|".join(sorted({*NAMES, *ROOMS, *OBJECTS, *CONTAINERS, *ANIMALS, *ITEMS, "Null"}, key=lambda w: (-len(w), w)))
    + r")(?![A-Za-z_])| ?\d+"
)

#: The presets, one YAML file each in ``mindzero/train/presets/trace-policy/``.
PRESETS = presets_in(Path(__file__).parent / "presets" / "trace-policy")


@dataclass(frozen=True)
class TraceScratch(ScratchSpec):
    """The ``cpu-tiny`` policy's size: 365 k parameters, about 1 s per batch of 8 traces here in float32
    with one thread (two threads on the shared 2 cores are several times slower)."""

    hidden: int = field(default=64, metadata={"help": "hidden size", "ge": 1, "le": 8_192})
    layers: int = field(default=4, metadata={"help": "transformer blocks", "ge": 1, "le": 128})
    vocab: int = field(
        default=3072, metadata={"help": "byte-level BPE vocabulary trained on the traces", "ge": 1, "le": 262_144}
    )


@dataclass
class TracePolicyConfig(TrainConfig):
    """Options of ``mindzero train trace-policy``; ``None`` means "take the preset's value"."""

    out: str = field(default="runs/policy", metadata={"help": "output folder: checkpoints, train_log, final/"})
    data_seed: int = field(default=0, metadata={"help": "seed of the generated training stories", "ge": 0})
    preset: str = field(default="cpu-tiny", metadata={"help": "cpu-tiny (fills unset options)"})
    model: str | None = field(default=None, metadata={"help": "'scratch' (see --scratch-*) or a model spec/folder"})
    scratch: TraceScratch = field(default_factory=TraceScratch, metadata={"help": "size of a --model scratch"})
    stories: int | None = field(
        default=None, metadata={"help": "generated training stories (5 questions each)", "ge": 1, "le": 1_000_000}
    )
    lengths: list[int] = field(
        default_factory=lambda: [1], metadata={"help": "chapters per training story, cycled", "choices": (1, 2, 3)}
    )
    max_steps: int | None = field(default=None, metadata={"help": "optimizer steps", "ge": 1, "le": 1_000_000})
    learning_rate: float | None = field(default=None, metadata={"help": "AdamW peak learning rate", "gt": 0})
    batch_size: int | None = field(default=None, metadata={"help": "traces per optimizer step", "ge": 1, "le": 4_096})
    save_steps: int | None = field(
        default=None, metadata={"help": "checkpoint every N steps", "ge": 1, "le": 1_000_000}
    )
    copy_warmup_steps: int | None = field(
        default=None,
        metadata={
            "help": "steps copying random sequences before the traces (--model scratch; 0: none; cpu-tiny: 500)",
            "ge": 0,
            "le": 1_000_000,
        },
    )


def policy_rows(questions: list[BeliefQuestion]) -> list[dict]:
    """Chat rows: the DEL-ToM prompt (no worked example) → the gold trace."""
    return [
        {
            "prompt": policy_messages(q, with_example=False),
            "completion": render_gold_trace(q.events, q.question, q.labels),
        }
        for q in questions
    ]


def training_questions(stories: int, data_seed: int, lengths: list[int]) -> list[BeliefQuestion]:
    """Every question of ``stories`` generated stories at the policy's own seed."""
    generated = generate_stories(stories, POLICY_SEED_OFFSET + data_seed, tuple(lengths), progress=True)
    return list(questions_from_stories(generated))


def tokenizer_texts(questions: list[BeliefQuestion]) -> list[str]:
    """What a scratch policy tokenizer is trained on: prompts, traces and the PBM's problem texts."""
    rows = policy_rows(questions)
    texts = [t for r in rows for t in (r["prompt"][0]["content"], r["completion"])]
    return [*texts, *(pbm_problem(q) for q in questions[:200])]


def build_trace_model(folder: Path, texts: list[str], spec: ScratchSpec, seed: int) -> Path:
    """A scratch Llama + trace tokenizer (:data:`TRACE_ATOMS`, the instructions as one token, the
    PBM's tag and labels) in ``folder``, built once and kept for resumed runs. Positions up to 8192
    tokens: a three-chapter prompt and trace is about 1,500."""
    return build_scratch(
        folder,
        [*texts, *CHAT_ROLES, *PBM_STRINGS * 200],
        spec,
        seed,
        max_positions=8192,
        atoms=TRACE_ATOMS,
        whole=(INSTRUCTIONS,),
    )


def tokenized(row: dict, tokenizer: Any) -> dict:
    """Prompt (chat template, assistant turn opened) + completion + end of turn, and the mask of
    the completion's tokens (the loss is on those)."""
    chat = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=True)
    prompt = list(chat["input_ids"])
    completion = tokenizer(row["completion"] + tokenizer.eos_token, add_special_tokens=False).input_ids
    return {"input_ids": prompt + completion, "completion_mask": [0] * len(prompt) + [1] * len(completion)}


def train_trace_policy(config: TracePolicyConfig) -> dict[str, Any]:
    """Build (or load) the model, run SFT, save ``OUT/final``; return a summary."""
    asked_warmup = config.copy_warmup_steps
    config = apply_preset(config, PRESETS)
    check_scratch(asked_warmup, config.model)
    out = Path(config.out)
    scratch = config.model == SCRATCH
    if scratch:
        config.scratch.require_memory()
    model_path = None if scratch else resolve_model(config.model)  # a wrong path fails before the data work
    checkpoint = resume_checkpoint(out, config.resume)
    trl = require("trl", "llm")
    import datasets

    started = time.perf_counter()
    questions = training_questions(config.stories, config.data_seed, config.lengths)
    if not questions:
        raise UserError("no training questions; raise --stories")
    out.mkdir(parents=True, exist_ok=True)
    if scratch:
        model_path = build_trace_model(out / "scratch", tokenizer_texts(questions), config.scratch, config.seed)
        if config.copy_warmup_steps:
            model_path = copy_warmup(model_path, out / "copy-warmup", config.copy_warmup_steps, config.seed)
    write_run_config(out, "trace_policy_config", config, model_path=model_path)
    tokenizer = load_tokenizer(model_path)
    items = [tokenized(r, tokenizer) for r in policy_rows(questions)]
    args = trainer_args(
        trl.SFTConfig,
        config,
        max_steps=config.max_steps,
        per_device_train_batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=0.05,
        weight_decay=0.0,
        logging_steps=10,
        save_steps=config.save_steps,
        save_total_limit=3,
        completion_only_loss=True,
        max_length=None,
        activation_checkpointing=False,
    )
    log = out / "train_log.jsonl"
    trim_log(log, checkpoint_step(checkpoint))
    trainer = trl.SFTTrainer(
        model=load_language_model(model_path),
        args=args,
        train_dataset=datasets.Dataset.from_list(items),
        processing_class=tokenizer,
        callbacks=[jsonl_log(log, step_row)],
    )
    result = trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = save_final(trainer, tokenizer, out)
    return {
        "questions": len(questions),
        "tokens_per_row": sum(len(i["input_ids"]) for i in items) / len(items),
        "parameters": trainer.model.num_parameters(),
        "steps": result.global_step,
        "train_loss": result.training_loss,
        "seconds": time.perf_counter() - started,
        "final_model": str(final),
        "resumed_from": str(checkpoint) if checkpoint else None,
    }
