"""The training base shared by SSRL (GRPO), format SFT and PBM training.

Every trainer of the project is a transformers/TRL ``Trainer`` run into an output folder with the
same habits, kept here once:

- :class:`TrainConfig`: the fields every trainer has (``out``, ``resume``, ``seed``);
  trainer configs extend it, and :func:`~mindzero.core.config.apply_preset` fills their ``None``s.
- :func:`resume_checkpoint`: the ``checkpoint-N`` folder to continue from (a one-line error when
  ``--resume`` finds none), and :func:`trim_log` so a resumed run re-logs only the steps after it.
- :func:`require`: optional dependencies fail with the pip command that installs them.
- :func:`use_cpu` / :func:`torch_dtype`: device and precision choice (bf16 only where it runs).
- :func:`load_tokenizer`: pad token = EOS when the model has none.
- :class:`JsonlLog`: a ``TrainerCallback`` appending one JSON line per logged step.
- :class:`PhaseClock`: seconds per phase of a run (``OUT/phases.json``), up to the first step.
- :func:`write_run_config` and :func:`save_final`: what a run records and leaves in ``OUT/final``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindzero.core.errors import UserError
from mindzero.core.memory import require_memory
from mindzero.core.results import atomic_write_text
from mindzero.domains import get_domain
from mindzero.llm.card import ModelCard
from mindzero.llm.tiny import build_scratch_model

#: ``--model`` value that starts from a randomly initialised model (:class:`ScratchSpec`) with a
#: tokenizer trained on the task's own prompts and answers.
SCRATCH = "scratch"
#: What the chat template adds around messages: part of every scratch tokenizer's training text.
CHAT_ROLES = ("user\n", "assistant\n", "system\n")


@dataclass(frozen=True)
class ScratchSpec:
    """Size of a model trained from scratch (``--model scratch``): a Llama with tied embeddings."""

    hidden: int = field(default=128, metadata={"help": "hidden size", "ge": 1, "le": 8_192})
    layers: int = field(default=3, metadata={"help": "transformer blocks", "ge": 1, "le": 128})
    heads: int = field(default=4, metadata={"help": "attention heads", "ge": 1, "le": 128})
    vocab: int = field(
        default=1024, metadata={"help": "byte-level BPE vocabulary trained on the task's texts", "ge": 1, "le": 262_144}
    )
    number_features: int | None = field(
        default=None,
        metadata={
            "help": "embedding dimensions that carry an integer token's value (0 = none; unset: the preset's, else 0)",
            "ge": 0,
            "le": 8_192,
        },
    )

    def parameters(self) -> int:
        """Weights of the Llama :func:`build_scratch` makes: tied embeddings, and per block attention
        (4 h²) and a gated MLP four times as wide (12 h²)."""
        return self.vocab * self.hidden + 16 * self.layers * self.hidden**2

    def require_memory(self, sequences: int = 0, tokens: int = 0, copies: int = 4) -> None:
        """Refuse a training run this machine cannot hold, before any work: ``copies`` float32 copies of
        the weights (weights, gradients, two AdamW moments; one more for a frozen reference model) and
        the logits of ``sequences`` × ``tokens`` (float32 logits, log-softmax and gradient). Activations
        are left out, so this is a floor: a run refused here would certainly run out of memory."""
        what = f"{self.parameters() / 1e6:,.0f} M parameters × {copies} float32 copies"
        if sequences and tokens:
            what += f", the logits of {sequences:,} sequences × {tokens:,} tokens × {self.vocab:,} words"
        require_memory(
            4 * copies * self.parameters() + 12 * sequences * tokens * self.vocab, f"{what}; activations not counted"
        )


def leave_process_group() -> None:
    """End a distributed launch's process group once every process has saved: gloo's threads left
    to the interpreter's exit can abort a process (``terminate called without an active exception``)."""
    if os.environ.get("WORLD_SIZE", "1") == "1":
        return
    import torch.distributed as dist

    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def build_scratch(folder: Path, texts: Iterable[str], spec: ScratchSpec, seed: int, **tokenizer: Any) -> Path:
    """The scratch model and tokenizer in ``folder`` (built once; kept for resumed runs);
    ``tokenizer``: further options of :func:`~mindzero.llm.tiny.build_scratch_model` (atoms, positions)."""
    from filelock import FileLock  # torch's dependency, as training needs torch

    with FileLock(f"{folder}.lock"):  # one process of a distributed launch builds it, the others wait
        if not (Path(folder) / "config.json").is_file():
            build_scratch_model(
                folder,
                texts,
                seed=seed,
                vocab_size=spec.vocab,
                hidden_size=spec.hidden,
                intermediate_size=4 * spec.hidden,
                num_hidden_layers=spec.layers,
                num_attention_heads=spec.heads,
                number_features=spec.number_features or 0,
                **tokenizer,
            )
    return Path(folder)


@dataclass
class TrainConfig:
    """Fields every trainer has; trainer configs add their own after these."""

    out: str = field(default="runs/train", metadata={"help": "output folder: checkpoints, train_log.jsonl, final/"})
    resume: bool = field(default=False, metadata={"help": "continue from the last checkpoint in --out"})
    seed: int = field(default=0, metadata={"help": "training seed (sampling, shuffling, initialisation)", "ge": 0})


#: The rows' options that moved from flat trainer flags into the ``data`` section (one release).
DATA_RENAMED = {
    "train_episodes": "data.episodes",
    "every": "data.every",
    "n_particles": "data.n_particles",
    "prompt_style": "data.prompt_style",
    "data_seed": "data.seed",
}


def domain_task(domain_name: str, task_name: str, prompt_style: str) -> tuple[Any, Any]:
    """(domain, task) of a trainer's options, checked once: the task exists in the domain and the
    prompt style is one of the domain's."""
    domain = get_domain(domain_name)
    if task_name not in domain.tasks:
        raise UserError(f"unknown task {task_name!r} of domain {domain_name}; choose from {', '.join(domain.tasks)}")
    if prompt_style not in domain.prompt_styles:
        raise UserError(
            f"--data-prompt-style {prompt_style} is not one of domain {domain_name}'s: "
            f"{', '.join(domain.prompt_styles)} (a preset's style is for its own domain; pass one of these)"
        )
    return domain, domain.tasks[task_name]


def require(module: str, extra: str) -> Any:
    """Import an optional dependency, or fail with the install command of the extra that has it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise UserError(f'training needs {err.name}: pip install "mindzero[{extra}]"') from None


def trainer_args(args_class: type, config: TrainConfig, **options: Any) -> Any:
    """A transformers/TRL arguments object (``TrainingArguments``, ``SFTConfig``, ``GRPOConfig``)
    with what every trainer here sets: the output folder, the seeds, no reporting, the CPU when no
    GPU is visible and then float32 (TRL's configs default to bf16 autocast, which runs a tiny model's
    step 6–7× slower on this CPU); ``options`` add to or override these."""
    cpu = use_cpu()
    common = {
        "output_dir": str(config.out),
        "seed": config.seed,
        "data_seed": config.seed,
        "report_to": [],
        "use_cpu": cpu,
        **({"bf16": False} if cpu else {}),
    }
    return args_class(**(common | options))


def step_row(state: Any, logs: dict) -> dict:
    """A training-log line of an SFT-style trainer: the step, the wall clock (s) and the trainer's logs."""
    return {"step": state.global_step, "time": time.time(), **logs}


def use_cpu() -> bool:
    """Train on the CPU when no CUDA device is visible."""
    import torch

    return not torch.cuda.is_available()


def torch_dtype(bf16: bool | None) -> Any:
    """bfloat16 where asked for and a CUDA device runs it; float32 otherwise."""
    import torch

    return torch.bfloat16 if bf16 and torch.cuda.is_available() else torch.float32


def checkpoints(out: Path) -> list[Path]:
    """``checkpoint-N`` folders in ``out``, by increasing N."""
    found = [p for p in Path(out).glob("checkpoint-*") if p.name.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def resume_checkpoint(out: Path, resume: bool) -> Path | None:
    """With ``resume``, the last checkpoint in ``out``; else None. A run stopped before its first
    checkpoint resumes from step 0 (with a note): the stages it finished before training, such as a
    scratch model, a copy or format warm-up, are built once and kept in ``out``."""
    if not resume:
        return None
    found = checkpoints(out)
    if not found:
        print(f"--resume: no checkpoint-* folder in {out} yet; training starts at step 0", file=sys.stderr)
        return None
    return found[-1]


def checkpoint_step(checkpoint: Path | None) -> int:
    """The optimizer step a checkpoint was saved at (0 for a fresh run)."""
    if checkpoint is None:
        return 0
    return int(json.loads((checkpoint / "trainer_state.json").read_text())["global_step"])


def trim_log(path: Path, step: int) -> None:
    """Keep the log lines of steps ≤ ``step``: a resumed run re-logs the steps after its checkpoint."""
    if not path.is_file():
        return
    kept = [line for line in path.read_text().splitlines() if line.strip() and json.loads(line)["step"] <= step]
    atomic_write_text(path, "".join(f"{line}\n" for line in kept))


def read_log(path: Path) -> list[dict]:
    """The JSON lines of a training log (empty when there is none yet)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_tokenizer(model_path: str | Path, padding_side: str | None = None) -> Any:
    """The model's tokenizer, with EOS as the pad token when it has none."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_path))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if padding_side is not None:
        tokenizer.padding_side = padding_side
    return tokenizer


def write_run_config(out: Path, name: str, config: Any, **extra: Any) -> None:
    """Record the resolved config (plus e.g. the model path) as ``OUT/<name>.json``."""
    record = {**dataclasses.asdict(config), **{k: str(v) if isinstance(v, Path) else v for k, v in extra.items()}}
    atomic_write_text(Path(out) / f"{name}.json", json.dumps(record, indent=2) + "\n")


def save_final(trainer: Any, tokenizer: Any, out: Path, model: Any = None, card: ModelCard | None = None) -> Path:
    """Save the trained model and its tokenizer as an ordinary HF folder ``OUT/final``, with its
    ``card`` (how it was trained to be asked).

    ``trainer.save_model`` gathers sharded weights (DeepSpeed ZeRO-3, FSDP) and writes on the main
    process only; ``model`` (e.g. a LoRA adapter merged into its base) is saved as given instead."""
    final = Path(out) / "final"
    if model is None:
        trainer.save_model(str(final))
    elif trainer.is_world_process_zero():
        model.save_pretrained(final)
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(final)
        if card is not None:
            card.write(final)
    return final


def card_on_save(card: ModelCard) -> Any:
    """A ``TrainerCallback`` writing ``card`` into every checkpoint folder as it is saved."""
    from transformers import TrainerCallback

    class CardOnSave(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):  # noqa: ANN001 (transformers signature)
            folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if state.is_world_process_zero and folder.is_dir():
                card.write(folder)

    return CardOnSave()


def jsonl_log(path: Path, row: Callable[[Any, dict], dict | None]) -> Any:
    """A ``TrainerCallback`` appending ``row(state, logs)`` with :func:`append_jsonl` per logging
    step (on the main process; ``row`` returns None to skip a step)."""
    from transformers import TrainerCallback

    class JsonlLog(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001 (transformers signature)
            if not state.is_world_process_zero or not logs:
                return
            record = row(state, logs)
            if record is None:
                return
            append_jsonl(path, record)

    return JsonlLog()


def append_jsonl(path: Path, record: dict) -> None:
    """Append ``record`` as one JSON line (NaN written as null: strict JSON) to a training log."""
    record = {k: None if isinstance(v, float) and v != v else v for k, v in record.items()}
    with Path(path).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


class PhaseClock:
    """Seconds of each phase of a training run (data, warm start, model load, first generation, first
    optimizer step), printed as each ends and kept in ``OUT/phases.json``: a GPU run that makes no
    step for minutes (the 34 M bf16 one, docs/gpu.md) then shows where its time goes. Rank 0 reports."""

    def __init__(self, out: Path) -> None:
        self.path = Path(out) / "phases.json"
        self.seconds: dict[str, float] = {}
        self.mark = time.perf_counter()
        self.report = int(os.environ.get("RANK", "0")) == 0

    def lap(self, phase: str) -> None:
        """End ``phase``: the seconds since the previous lap. A phase is timed once (the first step
        ends once; later steps are the log's)."""
        if phase in self.seconds:
            return
        now = time.perf_counter()
        self.seconds[phase] = round(now - self.mark, 3)
        self.mark = now
        if self.report:
            print(f"phase {phase}: {self.seconds[phase]:.2f} s", flush=True)
            atomic_write_text(self.path, json.dumps(self.seconds, indent=2) + "\n")

    def first_call(self, phase: str, fn: Callable) -> Callable:
        """``fn`` (a reward function) ending ``phase`` when first called: TRL scores a generation batch
        as soon as it is sampled, so this ends the first generation."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            self.lap(phase)
            return fn(*args, **kwargs)

        timed.__name__ = fn.__name__  # TRL logs each reward function by its name
        return timed

    def callback(self) -> Any:
        """A ``TrainerCallback`` ending ``train_start`` (resume, a step-0 curve) when the first step
        begins and ``first_step`` when it ends."""
        from transformers import TrainerCallback

        clock = self

        class Phases(TrainerCallback):
            def on_step_begin(self, args, state, control, **kwargs):  # noqa: ANN001 (transformers signature)
                clock.lap("train_start")

            def on_step_end(self, args, state, control, **kwargs):  # noqa: ANN001
                clock.lap("first_step")

        return Phases()
