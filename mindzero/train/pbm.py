"""``mindzero train pbm``: fit a Process Belief Model with transformers' ``Trainer``.

Training rows are stepwise rows (:mod:`mindzero.pbm.data`): read from ``--data`` (e.g. the
``stories pbm-data`` output, policy samples included) or generated on the spot as gold + corrupted
traces of ``--stories`` generated stories, which needs no policy model. Stories, not rows, are
split into train, validation and held-out sets, so no held-out story is seen in training; after
training each readout's threshold (the score above which a step counts as correct) is chosen on the
validation stories and stored in ``pbm_config.json``, and the held-out accuracy is reported at it.

Presets fill every option left unset (dataclass default < preset < ``--config`` YAML < flags):

- ``gpu-paper``: DEL-ToM §5 — Llama-3.1-8B-Instruct, 1 epoch, lr 2e-6, bf16, 4096-token
  sequences, effective batch 32, gradient checkpointing (launch with ``accelerate launch`` and a
  DeepSpeed ZeRO-2 config, see docs/pbm.md).
- ``cpu-tiny``: a 365 k-parameter Llama (``--model scratch``: built with the trace tokenizer of
  :mod:`mindzero.train.trace_policy`; or ``--model POLICY/final`` to start from the trace policy,
  whose weights already know the trace format), every weight trained at lr 1e-3, batch 8, with
  belief targets (each step's ``[value]`` and step number also trained toward what the engine says
  they should read; scored by the ``value`` readout, see :mod:`mindzero.pbm.model`):
  about 1–2 s per step here (one thread).
- ``cpu-small``: SmolLM2-135M-Instruct on CPU — only the top 4 transformer blocks, the final norm
  and the (tied) output head are trained, at lr 1e-4, effective batch 4, 2048 tokens: a full
  backward pass over ~1000-token traces costs about 45 s per trace on a shared 2-core machine.

Writes ``OUT/checkpoint-N/`` (resumable, each a loadable PBM), ``OUT/final/``,
``OUT/train_log.jsonl``, ``OUT/validation.jsonl`` and ``OUT/heldout.jsonl``; :func:`train_pbm` returns the held-out step
accuracy per order (paper Table 4) and its per-trace samples, which ``mindzero train pbm`` writes
to ``OUT/eval/``.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindzero.core.config import apply_preset, presets_in
from mindzero.core.errors import UserError
from mindzero.core.results import read_jsonl, write_jsonl
from mindzero.llm.models import load_language_model
from mindzero.pbm.data import STEPWISE_FIELDS, gold_and_corrupted_rows, questions_from_stories, upto_first_error
from mindzero.pbm.model import (
    CLAIMS,
    ProcessBeliefModel,
    choose_threshold,
    encode_trace,
    gold_tokens,
    make_pbm_config,
    model_location,
    next_line,
    piece_start,
    step_accuracy,
    step_piece,
    stored_threshold,
    write_pbm_config,
)
from mindzero.stories.generator import generate_stories
from mindzero.stories.traces import NULL, step_number
from mindzero.train.base import (
    SCRATCH,
    TrainConfig,
    checkpoint_step,
    jsonl_log,
    load_tokenizer,
    require,
    resume_checkpoint,
    save_final,
    step_row,
    torch_dtype,
    trainer_args,
    trim_log,
    use_cpu,
)
from mindzero.train.copy_warmup import check_scratch, copy_warmup
from mindzero.train.trace_policy import TraceScratch, build_trace_model

#: Which steps of a trace ``train pbm`` puts a loss on (``--label-scope``).
LABEL_SCOPES = ("all", "first-error")

#: The presets, one YAML file each in ``mindzero/train/presets/pbm/``.
PRESETS = presets_in(Path(__file__).parent / "presets" / "pbm")


@dataclass
class PBMConfig(TrainConfig):
    """Options of ``mindzero train pbm``; ``None`` means "take the preset's value"."""

    out: str = field(default="runs/pbm", metadata={"help": "output folder: checkpoints, final/, eval/"})
    seed: int = field(default=0, metadata={"help": "training seed (shuffling order)", "ge": 0})
    data_seed: int = field(default=0, metadata={"help": "seed of the generated stories and corruptions", "ge": 0})
    preset: str = field(
        default="cpu-small", metadata={"help": "cpu-tiny | cpu-small | gpu-paper (fills unset options)"}
    )
    model: str | None = field(
        default=None, metadata={"help": "base causal LM: name, folder, hub id (GPU) or 'scratch' (see --scratch-*)"}
    )
    scratch: TraceScratch = field(default_factory=TraceScratch, metadata={"help": "size of a --model scratch"})
    data: str | None = field(
        default=None, metadata={"help": "stepwise JSONL (stories pbm-data); None = generate gold + corrupted traces"}
    )
    stories: int | None = field(
        default=None, metadata={"help": "stories to generate when --data is not given", "ge": 1, "le": 1_000_000}
    )
    lengths: list[int] = field(
        default_factory=lambda: [1], metadata={"help": "chapters per generated story", "choices": (1, 2, 3)}
    )
    corruptions: int = field(
        default=2, metadata={"help": "corrupted traces per question (besides the gold one)", "ge": 0, "le": 64}
    )
    heldout_fraction: float = field(
        default=0.15, metadata={"help": "fraction of stories held out for eval", "gt": 0, "lt": 1}
    )
    validation_fraction: float = field(
        default=0.1,
        metadata={
            "help": "fraction of the remaining stories kept out of training to choose each readout's threshold "
            "(pbm_config.json: thresholds); 0: none, every readout cuts at 0.5",
            "ge": 0,
            "lt": 1,
        },
    )
    epochs: float | None = field(default=None, metadata={"help": "passes over the training rows", "gt": 0})
    max_steps: int = field(
        default=-1,
        metadata={"help": "optimizer steps (overrides --epochs when > 0; -1: use --epochs)", "ge": -1, "le": 1_000_000},
    )
    learning_rate: float | None = field(default=None, metadata={"help": "AdamW learning rate", "gt": 0})
    batch_size: int | None = field(
        default=None, metadata={"help": "traces per device per micro-batch", "ge": 1, "le": 4_096}
    )
    grad_accum: int | None = field(
        default=None, metadata={"help": "micro-batches per optimizer step", "ge": 1, "le": 4_096}
    )
    max_length: int | None = field(
        default=None, metadata={"help": "tokens per trace (problem cut first)", "ge": 1, "le": 32_768}
    )
    bf16: bool | None = field(default=None, metadata={"help": "bfloat16 mixed precision"})
    gradient_checkpointing: bool | None = field(default=None, metadata={"help": "trade compute for memory"})
    train_layers: int | None = field(
        default=None,
        metadata={"help": "train only the top N transformer blocks + head (0 = all weights)", "ge": 0, "le": 128},
    )
    save_steps: int | None = field(
        default=None, metadata={"help": "checkpoint every N optimizer steps", "ge": 1, "le": 1_000_000}
    )
    copy_warmup_steps: int | None = field(
        default=None,
        metadata={
            "help": "steps copying random sequences before the traces (--model scratch; 0: none; cpu-tiny: 500)",
            "ge": 0,
            "le": 1_000_000,
        },
    )
    belief_targets: bool | None = field(
        default=None,
        metadata={
            "help": "also train each step's [value] toward the engine's belief for its line and its step "
            "number toward the line the engine expects next (rows need line_labels; cpu-tiny: true)"
        },
    )
    eval_batch_size: int = field(
        default=8, metadata={"help": "traces per forward pass in the held-out eval", "ge": 1, "le": 4_096}
    )
    label_scope: str = field(
        default="all",
        metadata={
            "help": "steps that carry a loss: 'all', or 'first-error' (a trace's steps up to its first wrong one; "
            "the later ones, all labelled wrong by the prefix rule, teach the step's position, not its belief)",
            "choices": LABEL_SCOPES,
        },
    )


def resolve_config(config: PBMConfig) -> PBMConfig:
    """Fill unset options from the preset and check the values a user can get wrong."""
    asked_warmup = config.copy_warmup_steps
    config = apply_preset(config, PRESETS)
    check_scratch(asked_warmup, config.model)
    if config.model == SCRATCH:
        config.scratch.require_memory(config.batch_size or 0, config.max_length or 0)
    if config.data is not None and not Path(config.data).is_file():
        raise UserError(f"no such stepwise file: {config.data} (make one with `mindzero stories pbm-data`)")
    return config


def split_rows(rows: list[dict], fraction: float, seed: int) -> tuple[list[dict], list[dict]]:
    """(train, held-out), split by story so that no held-out story is trained on."""
    stories = sorted({str(r["story_id"]) for r in rows})
    random.Random(seed).shuffle(stories)
    held = set(stories[: max(1, round(fraction * len(stories)))])
    return [r for r in rows if str(r["story_id"]) not in held], [r for r in rows if str(r["story_id"]) in held]


def load_rows(config: PBMConfig) -> list[dict]:
    """Stepwise rows from --data, or gold + corrupted traces of freshly generated stories."""
    if config.data is not None:
        return read_jsonl(config.data, STEPWISE_FIELDS, hint="make one with `mindzero stories pbm-data`")
    stories = generate_stories(config.stories, config.data_seed, tuple(config.lengths), progress=True)
    return gold_and_corrupted_rows(questions_from_stories(stories), config.corruptions, config.data_seed)


def claim_golds(step: str, last_line: int, row: dict) -> dict[str, str | None]:
    """What the engine says each of a step's :data:`CLAIMS` should read: the belief for the line the
    step names (None when it names no line of the story), and the number of the line after the last
    one the trace reached (``last_line``, as the checker counts)."""
    number = step_number(step_piece(step)) or 0
    named = 1 <= number <= len(row["line_labels"])
    value = row["line_labels"][number - 1] if named else None
    return {
        "value": (value if value is not None else NULL) if named else None,
        "number": str(last_line + 1),
    }


class StepDataset:
    """Tokenized rows: labels are -100 except right after each trained step tag (the +/- target).

    With ``belief_targets``, each step's ``[value]`` token is also a target: the engine's belief for
    that step's story line (from the row's ``line_labels``), whatever value the trace wrote there —
    so the model learns the belief a step should hold, which the +/- label asks it to compare with;
    and so is its step number (the line after the last one the trace reached, as the checker counts:
    a skipped or repeated line shows as an unlikely number). Where a written part differs from the
    engine's, its tokens are trained up to and including the first differing one.
    """

    def __init__(
        self, rows: list[dict], tokenizer: Any, pbm: dict, scope: str = "all", belief_targets: bool = False
    ) -> None:
        tag_ids = tokenizer(pbm["tag"], add_special_tokens=False).input_ids
        eos = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else pbm["minus_id"]
        self.items = []
        for r in rows:
            if belief_targets and "line_labels" not in r:
                raise UserError(
                    f"row {r.get('id')!r} has no line_labels for --belief-targets; regenerate the file "
                    "with this version of `mindzero stories pbm-data`, or pass --belief-targets false"
                )
            ids, positions = encode_trace(tokenizer, tag_ids, r["prompt"], r["completions"], pbm["max_length"] - 1)
            if not any(p is not None for p in positions):
                continue
            ids = ids + [eos]  # the last tag's label sits one past the last input token
            labels = [-100] * len(ids)
            for p, y in zip(positions, upto_first_error(r["labels"]) if scope == "first-error" else r["labels"]):
                if p is not None:
                    labels[p + 1] = pbm["plus_id"] if y else pbm["minus_id"]
            if belief_targets:
                last_line = 0
                for p, step in zip(positions, r["completions"]):
                    engine = claim_golds(step, last_line, r)
                    last_line = next_line(last_line, step)
                    if p is None:
                        continue
                    end = p - len(tag_ids) + 1  # where the step's tag begins
                    for claim, gold in engine.items():
                        k, golds = gold_tokens(tokenizer, step, CLAIMS[claim], gold) if gold is not None else (0, [])
                        start = piece_start(tokenizer, step, p, len(tag_ids)) + k
                        for i, target in zip(range(start, end), golds):
                            labels[i] = target
                            if ids[i] != target:  # the tokens after a wrong one read a different text
                                break
            self.items.append({"input_ids": ids, "labels": labels})

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        return self.items[i]


def collate(pad_id: int):
    """Right-pad a batch of StepDataset items."""
    import torch

    def fn(batch: list[dict]) -> dict:
        width = max(len(b["input_ids"]) for b in batch)
        ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, b in enumerate(batch):
            n = len(b["input_ids"])
            ids[i, :n] = torch.tensor(b["input_ids"])
            labels[i, :n] = torch.tensor(b["labels"])
            mask[i, :n] = 1
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}

    return fn


def freeze_below(model: Any, top: int) -> None:
    """Train only the top ``top`` decoder blocks, the final norm and the output head (CPU budget)."""
    layers = model.get_decoder().layers
    if not 0 < top <= len(layers):
        raise UserError(f"--train-layers must be in 1..{len(layers)} for this model (0 trains all weights)")
    model.requires_grad_(False)
    for module in (*layers[-top:], model.get_decoder().norm, model.get_output_embeddings()):
        module.requires_grad_(True)


def pbm_checkpoints(out: Path, pbm: dict) -> Any:
    """A ``TrainerCallback`` that makes every ``checkpoint-N`` a loadable PBM (writes its pbm_config.json)."""
    from transformers import TrainerCallback

    class PBMCheckpoints(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):  # noqa: ANN001 (transformers signature)
            folder = out / f"checkpoint-{state.global_step}"
            if folder.is_dir():
                write_pbm_config(folder, pbm)

    return PBMCheckpoints()


def train_pbm(config: PBMConfig) -> dict:
    """Train, save OUT/final, score the held-out stories; return a summary.

    The summary's ``eval`` holds the held-out metrics and ``eval_samples`` their per-trace rows
    (both empty without held-out rows); the caller writes them as results.
    """
    config = resolve_config(config)
    out = Path(config.out)
    checkpoint = resume_checkpoint(out, config.resume)
    scratch = config.model == SCRATCH
    base = None if scratch else model_location(config.model)  # a wrong --model fails before the data is built
    require("transformers", "llm")
    from transformers import Trainer, TrainingArguments

    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    rows = load_rows(config)
    train_rows, held = split_rows(rows, config.heldout_fraction, config.data_seed)
    if config.validation_fraction:
        train_rows, validation = split_rows(train_rows, config.validation_fraction, config.data_seed + 1)
    else:
        validation = []
    if not train_rows:
        raise UserError("no training rows: generate more stories (--stories) or give --data")
    write_jsonl(out / "heldout.jsonl", held)
    write_jsonl(out / "validation.jsonl", validation)

    if scratch:
        texts = [r["prompt"] + "\n".join(r["completions"]) for r in train_rows]
        base = str(build_trace_model(out / "scratch", texts, config.scratch, config.seed))
        if config.copy_warmup_steps:
            base = str(copy_warmup(Path(base), out / "copy-warmup", config.copy_warmup_steps, config.seed))
    tokenizer = load_tokenizer(base)
    beliefs = bool(config.belief_targets)
    pbm = make_pbm_config(
        tokenizer, config.model, config.max_length, "value" if beliefs else "label", tuple(CLAIMS) if beliefs else ()
    )
    dataset = StepDataset(train_rows, tokenizer, pbm, config.label_scope, beliefs)
    model = load_language_model(base, torch_dtype(config.bf16))
    if config.train_layers:
        freeze_below(model, config.train_layers)
    args = trainer_args(
        TrainingArguments,
        config,
        num_train_epochs=config.epochs,
        max_steps=config.max_steps,
        learning_rate=config.learning_rate,
        per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=config.grad_accum,
        lr_scheduler_type="cosine",
        warmup_steps=0.05,
        weight_decay=0.0,
        logging_steps=5,
        save_steps=config.save_steps,
        save_total_limit=2,
        bf16=bool(config.bf16) and not use_cpu(),
        activation_checkpointing=bool(config.gradient_checkpointing),
        remove_unused_columns=False,
        dataloader_num_workers=0,
    )
    log = out / "train_log.jsonl"
    trim_log(log, checkpoint_step(checkpoint))
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=dataset,
        data_collator=collate(tokenizer.pad_token_id),
        processing_class=tokenizer,
        callbacks=[
            pbm_checkpoints(out, pbm),
            jsonl_log(log, step_row),
        ],
    )
    result = trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    final = save_final(trainer, tokenizer, out)
    write_pbm_config(final, pbm)

    metrics: dict[str, Any] = {}
    samples: list[dict] = []
    if held or validation:  # one pass scores both; validation rows first
        scorer = ProcessBeliefModel(final, batch_size=config.eval_batch_size)
        scored = validation + held
        scores = scorer.score_readouts([r["prompt"] for r in scored], [r["completions"] for r in scored])
        if validation:
            pbm["thresholds"] = {k: choose_threshold(validation, v[: len(validation)]) for k, v in scores.items()}
            write_pbm_config(final, pbm)
        scores = {k: v[len(validation) :] for k, v in scores.items()}
    if held:
        readout = scorer.readout
        metrics, samples = step_accuracy(held, scores[readout], stored_threshold(pbm, readout))
        at_half, _ = step_accuracy(held, scores[readout])
        metrics |= {"readout": readout, "at_half": at_half["step_accuracy"], "usage": scorer.usage.total.as_dict()}
        if readout != "label":  # the +/- head was trained too: report it beside
            label_metrics, _ = step_accuracy(held, scores["label"], stored_threshold(pbm, "label"))
            metrics["label_readout"] = {k: label_metrics[k] for k in ("step_accuracy", "to_first_error", "threshold")}
    return {
        "rows": len(rows),
        "train_rows": len(dataset),
        "heldout_rows": len(held),
        "validation_rows": len(validation),
        "thresholds": pbm.get("thresholds", {}),
        "steps": result.global_step,
        "train_loss": result.training_loss,
        "seconds": time.time() - start,
        "final_model": str(final),
        "resumed_from": str(checkpoint) if checkpoint else None,
        "eval": metrics,
        "eval_samples": samples,
        "config": dataclasses.asdict(config),
    }
