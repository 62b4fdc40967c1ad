"""A copy warm-up for scratch models: learn to repeat a sequence before learning traces.

A DEL-ToM trace is mostly copying — each step restates its story line and repeats the previous
step's belief sentence — but a scratch Llama trained on traces alone learns their unigram and
format statistics and sits on a loss plateau without ever forming the attention circuit that copies
(induction heads; docs/experiments/2026-12-01-pbm-policy-copies-nothing.md). On random sequences
shown twice, copying is the *only* way to lower the loss, so the circuit forms there first.
Each sequence draws from a small random alphabet (4 to :data:`MAX_ALPHABET` tokens), so the last
token alone rarely says what comes next: the circuit must match several previous tokens, as it must
in a trace where `` thinks `` is followed by a different name each time.

The warm-up is a TRL ``SFTTrainer`` run (loss on the second copy only) into ``FOLDER`` — an ordinary
HF model folder with the tokenizer — built once and reused by resumed runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from mindzero.core.errors import UserError
from mindzero.llm.models import load_language_model
from mindzero.train.base import SCRATCH, TrainConfig, jsonl_log, load_tokenizer, require, step_row, trainer_args

#: Tokens in each copied sequence (the model sees it twice: 2 × this many positions).
SEQUENCE_TOKENS = 64
#: Largest alphabet a copied sequence is drawn from; the smallest is 4.
MAX_ALPHABET = 24
#: Sequences per optimizer step and the constant learning rate after a short linear warm-up.
BATCH = 32
LEARNING_RATE = 3e-3


def check_scratch(asked_steps: int | None, model: str) -> None:
    """Refuse a warm-up the user asked for (``asked_steps``, before presets fill it) on a ``model``
    (after presets) that is not built from scratch: a pretrained model already copies."""
    if asked_steps and model != SCRATCH:
        raise UserError("--copy-warmup-steps is for --model scratch: a pretrained model already copies")


def copy_rows(count: int, vocab: list[int], seed: int) -> list[dict]:
    """``count`` rows of a random sequence shown twice, loss mask on the second showing."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        alphabet = rng.choice(vocab, size=int(rng.integers(4, MAX_ALPHABET + 1)), replace=False)
        sequence = rng.choice(alphabet, size=SEQUENCE_TOKENS).tolist()
        rows.append(
            {
                "input_ids": sequence + sequence,
                "completion_mask": [0] * (SEQUENCE_TOKENS + 1) + [1] * (SEQUENCE_TOKENS - 1),
            }
        )
    return rows


def copy_warmup(model_path: Path, folder: Path, steps: int, seed: int) -> Path:
    """Train ``model_path`` for ``steps`` on :func:`copy_rows` into ``folder`` (skipped when ``folder``
    already holds the result); returns ``folder``. Tokens come from the tokenizer's ordinary
    vocabulary (no special tokens); the loss on the second showing (nats per token; ≈ 0 once the
    model copies) goes to ``FOLDER.jsonl``."""
    folder = Path(folder)
    if (folder / "config.json").is_file():
        return folder
    trl = require("trl", "llm")
    import datasets

    tokenizer = load_tokenizer(model_path)
    special = set(tokenizer.all_special_ids)
    vocab = [i for i in range(len(tokenizer)) if i not in special]
    run = folder.with_name(folder.name + ".run")
    args = trainer_args(
        trl.SFTConfig,
        TrainConfig(out=str(run), seed=seed),
        max_steps=steps,
        per_device_train_batch_size=BATCH,
        learning_rate=LEARNING_RATE,
        lr_scheduler_type="constant_with_warmup",
        warmup_steps=30,
        weight_decay=0.0,
        logging_steps=50,
        save_strategy="no",
        completion_only_loss=True,
        max_length=None,
        activation_checkpointing=False,
    )
    trainer = trl.SFTTrainer(
        model=load_language_model(model_path),
        args=args,
        train_dataset=datasets.Dataset.from_list(copy_rows(steps * BATCH, vocab, seed)),
        processing_class=tokenizer,
        callbacks=[jsonl_log(folder.with_suffix(".jsonl"), step_row)],
    )
    trainer.train()
    trainer.save_model(str(run / "model"))
    tokenizer.save_pretrained(run / "model")
    (run / "model").rename(folder)  # complete or absent: a stopped warm-up starts over
    shutil.rmtree(run)
    return folder
