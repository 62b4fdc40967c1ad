"""``mindzero reproduce --preset {cpu,gpu}``: every experiment of a preset, end to end, then the report.

A preset is a list of ordinary ``mindzero`` commands, each writing its own folder under ``--out``.
They run one after the other in this process; a step whose folder is complete (its run record says
so) is skipped, an interrupted one is continued with its command's resume flag, so rerunning an
interrupted reproduce picks up where it stopped and an unchanged rerun only rewrites the report.
Every step is seeded, so the same ``--seed`` gives the same numbers.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

from mindzero.cli import build_parser, main
from mindzero.core.errors import UserError
from mindzero.core.outputs import RECORD
from mindzero.core.results import prepare_out


@dataclass(frozen=True)
class Step:
    """One command of a preset: its folder under ``--out`` and its arguments (``{out}``, ``{seed}``
    and ``{root}`` filled in); ``resume`` continues an interrupted run of it (trainers, whose flag
    is ``--resume true``, continue from a ``checkpoint-*`` folder: one cut before its first
    checkpoint starts over)."""

    name: str
    argv: tuple[str, ...]
    minutes: float  # measured on the 2-core CPU machine (gpu: rough)
    resume: tuple[str, ...] = ("--resume",)

    def args(self, out: Path, seed: int) -> list[str]:
        fill = {"out": str(out / self.name), "seed": str(seed), "root": str(out)}
        return [a.format(**fill) for a in self.argv]


CPU_STEPS = (
    Step("gridworld-assist", ("gridworld", "assist", "--reasoner", "none,random,exact,oracle", "--out", "{out}"), 0.5),
    Step(
        "gridworld-assist-teleport",
        ("gridworld", "assist", "--reasoner", "none,random,exact,oracle", "--teleport", "3", "--out", "{out}"),
        0.5,
    ),
    Step(
        "qa-data",
        (
            "gridworld",
            "qa-data",
            "--train-episodes",
            "1",
            "--test-episodes",
            "100",
            "--images",
            "false",
            "--seed",
            "{seed}",
            "--out",
            "{out}",
        ),
        1.0,
    ),
    *(
        Step(
            f"qa-{reasoner}",
            ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--reasoner", reasoner, "--out", "{out}"),
            0.5,
        )
        for reasoner in ("exact", "random")
    ),
    Step(
        "ssrl-qa-tiny",
        ("train", "ssrl", "--preset", "cpu-tiny", "--task", "qa", "--max-completion-length", "4", "--seed", "{seed}")
        + ("--out", "{out}"),
        40.0,  # 2026-12-03, 1,200 steps on one thread beside another job
        ("--resume", "true"),
    ),
    Step(
        "qa-cpu-tiny",
        ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--reasoner", "llm")
        + ("--model", "{root}/ssrl-qa-tiny/final", "--prompt-style", "anchored", "--max-new-tokens", "4")
        + ("--out", "{out}"),
        1.0,
    ),
    Step("household-assist", ("household", "assist", "--reasoner", "none,random,oracle,smc", "--out", "{out}"), 1.5),
    Step(
        "pbm-tiny",
        ("train", "pbm", "--preset", "cpu-tiny", "--stories", "300", "--max-steps", "200")
        + ("--data-seed", "{seed}", "--out", "{out}"),
        8.0,
        ("--resume", "true"),
    ),
    Step(
        "deltom-scaling",
        ("stories", "scale-eval", "--data", "generated", "--policy", "synthetic", "--verifier", "oracle")
        + ("--seed", "{seed}", "--out", "{out}"),
        2.0,
    ),
)

GPU_STEPS = (
    Step(
        "ssrl-assist-qwen3vl4b",
        ("train", "ssrl", "--preset", "gpu-paper", "--task", "assist", "--seed", "{seed}", "--out", "{out}"),
        600.0,
        ("--resume", "true"),
    ),
    Step(
        "ssrl-qa-qwen3vl4b",
        ("train", "ssrl", "--preset", "gpu-paper", "--task", "qa", "--seed", "{seed}", "--out", "{out}"),
        300.0,
        ("--resume", "true"),
    ),
    Step(
        "gridworld-assist-mindzero",
        ("gridworld", "assist", "--reasoner", "none,random,exact,oracle,llm", "--prompt-style", "full")
        + ("--model", "{root}/ssrl-assist-qwen3vl4b/final", "--out", "{out}"),
        120.0,
    ),
    Step(
        "pbm-8b",
        ("train", "pbm", "--preset", "gpu-paper", "--seed", "{seed}", "--out", "{out}"),
        600.0,
        ("--resume", "true"),
    ),
)

PRESETS = {"cpu": CPU_STEPS, "gpu": GPU_STEPS}


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser(
        "reproduce",
        help="run every experiment of a preset (cpu: feasible here in about 1.5 hours) and write the report",
        description="Run a preset's experiments one after the other into OUT/<step>/ (skipping finished "
        "steps, continuing an interrupted one), then `mindzero report paper OUT --out OUT/report`.",
    )
    parser.add_argument("--preset", choices=tuple(PRESETS), default="cpu", help="which experiments (default: cpu)")
    parser.add_argument("--out", default="runs/reproduce", help="output folder (default: runs/reproduce)")
    parser.add_argument("--seed", type=int, default=0, help="seed of data and training (default: 0)")
    parser.add_argument("--dry-run", action="store_true", help="list the commands without running them")
    parser.set_defaults(func=cmd_reproduce)


def step_state(folder: Path) -> str:
    """``done``, ``interrupted`` (a run record without its complete mark) or ``new``."""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "interrupted" if folder.is_dir() and any(folder.iterdir()) else "new"
    return "done" if isinstance(record, dict) and record.get("complete") else "interrupted"


def rerun_flags(step: Step, folder: Path) -> list[str]:
    """The flags that rerun an interrupted step: its resume flag, or ``--overwrite`` for a command
    without one and for a trainer cut before its first checkpoint (nothing to resume from)."""
    trainer_without_checkpoint = step.resume[1:] == ("true",) and not any(folder.glob("checkpoint-*"))
    return ["--overwrite"] if not step.resume or trainer_without_checkpoint else list(step.resume)


def cmd_reproduce(args: argparse.Namespace) -> int:
    steps = PRESETS[args.preset]
    if args.seed < 0:
        raise UserError(f"--seed must be at least 0, got {args.seed}")
    out = Path(args.out) if args.dry_run else prepare_out(args.out)
    total = sum(s.minutes for s in steps)
    print(f"reproduce --preset {args.preset}: {len(steps)} steps, about {total:.0f} min, into {out}")
    parser, argvs = build_parser(), [step.args(out, args.seed) for step in steps]
    for argv in argvs:
        parser.parse_args(argv)  # a typo in a preset fails before anything runs
    started = time.monotonic()
    for k, (step, argv) in enumerate(zip(steps, argvs), 1):
        state = "new" if args.dry_run else step_state(out / step.name)
        print(f"[{k}/{len(steps)}] {step.name} ({state}): mindzero {' '.join(argv)}", flush=True)
        if args.dry_run or state == "done":
            continue
        extra = rerun_flags(step, out / step.name) if state == "interrupted" else []
        status = main([*argv, *extra])
        if status:
            raise UserError(f"step {step.name} failed (exit {status}); fix it and rerun to continue from there")
    if args.dry_run:
        return 0
    status = main(["report", "paper", str(out), "--out", str(out / "report"), "--overwrite"])
    print(f"reproduce: {len(steps)} steps in {(time.monotonic() - started) / 60:.1f} min; report {out / 'report'}")
    return status
