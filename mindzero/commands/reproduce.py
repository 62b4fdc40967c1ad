"""``mindzero reproduce --preset {cpu,gpu}``: every experiment of a preset, end to end, then the report.

A preset is a list of ordinary ``mindzero`` commands, each writing its own folder under ``--out``.
They run one after the other in this process (the gpu preset's trainers as ``accelerate launch``
children across the GPUs of one node, :data:`LAUNCH`); a step whose folder is complete (its run record says
so) is skipped, an interrupted one is continued with its command's resume flag, so rerunning an
interrupted reproduce picks up where it stopped and an unchanged rerun only rewrites the report.
Every step is seeded, so the same ``--seed`` gives the same numbers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from mindzero.cli import build_parser, main
from mindzero.core.errors import UserError
from mindzero.core.outputs import RECORD
from mindzero.core.results import prepare_out
from mindzero.train.ssrl import ABLATIONS


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
    gpus: int = 0  # GPUs the step holds (gpu preset; its GPU-hours = minutes / 60 x gpus)
    launch: bool = False  # multi-GPU: run under `accelerate launch` with the shipped config (LAUNCH)

    def folder(self, out: Path, seed: int) -> Path:
        """The step's folder under ``--out`` (a name may hold ``{seed}``: a Table 2 row's training)."""
        return out / self.name.format(seed=seed)

    def args(self, out: Path, seed: int, models: str = "", data: str = "") -> list[str]:
        """The argv of the ``mindzero`` command; ``models`` and ``data`` fill ``{models}`` (base model
        folders) and ``{data}`` (official benchmark files) of the gpu preset."""
        fill = {"out": str(self.folder(out, seed)), "seed": str(seed), "root": str(out), "models": models, "data": data}
        return [a.format(**fill) for a in self.argv]

    def command(self, argv: list[str]) -> list[str]:
        """The whole command line: ``mindzero ARGV``, or under ``accelerate launch`` for a multi-GPU step."""
        return [*LAUNCH, *argv] if self.launch else ["mindzero", *argv]


#: The GridWorld assistance steps' episodes: the published evaluation's generator (issue 48).
ASSIST_EPISODES = ("--protocol", "reference")

CPU_STEPS = (
    Step(
        "gridworld-assist",
        ("gridworld", "assist", *ASSIST_EPISODES, "--reasoner", "none,random,exact,oracle", "--out", "{out}"),
        0.5,
    ),
    Step(
        "gridworld-assist-teleport",
        ("gridworld", "assist", *ASSIST_EPISODES, "--reasoner", "none,random,exact,oracle", "--teleport", "3")
        + ("--out", "{out}"),
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

#: The shipped multi-GPU config (one node; DeepSpeed ZeRO-2) and how many GPUs it launches on.
ACCELERATE_CONFIG = "configs/accelerate/deepspeed_zero2.yaml"
LAUNCH_GPUS = 8  # num_processes in ACCELERATE_CONFIG (tests/report/test_reproduce.py checks)
LAUNCH = ("accelerate", "launch", "--config_file", ACCELERATE_CONFIG, "-m", "mindzero")
#: gpu preset backbones under --models: the papers' GridWorld (Qwen3-VL-4B), Household (Qwen3-4B)
#: and PBM (Llama-3.1-8B) models; the DEL-ToM policy is Qwen3-4B through vLLM.
VL4B, QWEN4B, LLAMA8B = "{models}/Qwen3-VL-4B-Instruct", "{models}/Qwen3-4B", "{models}/Llama-3.1-8B-Instruct"
#: GridWorld SSRL recipe (App. A.1/B.2): 2 particles per completion; Table 1a's MindZero model.
GRIDWORLD_ASSIST = ("--config", "configs/ssrl/gpu-paper-assist.yaml", "--model", VL4B)
#: Household SSRL recipe (paper §5.4, Fig. 9's n=10 particles): Table 2 trains every row with it.
HOUSEHOLD_RECIPE = "configs/ssrl/gpu-paper-household-assist.yaml"
HOUSEHOLD_ASSIST, HOUSEHOLD_PARTICLES = ("--config", HOUSEHOLD_RECIPE, "--model", QWEN4B), "10"


def _ablation_training(row: str, minutes: float) -> Step:
    """One Table 2 row trained on Household across GPUs into the folder ``train ablation --domain
    household`` reuses (``ablation/ROW/seedK``) with the particles it asks for (``single``: 1); the
    ``none`` row is the full MindZero model of Table 1b too."""
    particles = "1" if row == "single" else HOUSEHOLD_PARTICLES
    argv = ("train", "ssrl", *HOUSEHOLD_ASSIST, "--ablation", row, "--data-n-particles", particles)
    return Step(
        f"ablation/{row}/seed{{seed}}",
        (*argv, "--seed", "{seed}", "--out", "{out}"),
        minutes,
        ("--resume", "true"),
        LAUNCH_GPUS,
        True,
    )


def _llm_eval(name: str, argv: tuple[str, ...], model: str, minutes: float, *extra: str) -> Step:
    """An evaluation with the llm reasoner of ``model`` on one GPU."""
    return Step(name, (*argv, "--model", model, *extra, "--out", "{out}"), minutes, gpus=1)


#: Every table of both papers at paper scale (minutes: rough guesses of wall time, not measured: no
#: GPU run of these recipes exists yet, docs/gpu.md). Table 3 (the human study) needs people:
#: `mindzero serve --study-logs`. Other backbones of Tables 1a/1b are the same steps with --model.
GPU_STEPS = (
    # MindZero Table 1a (+ Fig. 5a): GridWorld assistance.
    Step(
        "ssrl-assist-qwen3vl4b",
        ("train", "ssrl", *GRIDWORLD_ASSIST, "--data-n-particles", "2", "--seed", "{seed}", "--out", "{out}"),
        600.0,
        ("--resume", "true"),
        LAUNCH_GPUS,
        True,
    ),
    _llm_eval(
        "gridworld-assist-mindzero",
        ("gridworld", "assist", *ASSIST_EPISODES, "--reasoner", "none,random,exact,oracle,llm"),
        "{root}/ssrl-assist-qwen3vl4b/final",
        120.0,
    ),
    _llm_eval(
        "gridworld-assist-base",
        ("gridworld", "assist", *ASSIST_EPISODES, "--reasoner", "llm"),
        VL4B,
        120.0,
        *("--prompt-style", "full", "--n-particles", "2"),
    ),
    # MindZero Table 4a (Fig. 4a): GridWorld QA.
    Step("qa-data", ("gridworld", "qa-data", "--seed", "{seed}", "--out", "{out}"), 30.0),
    Step(
        "ssrl-qa-qwen3vl4b",
        ("train", "ssrl", "--config", "configs/ssrl/gpu-paper-qa.yaml", "--model", VL4B)
        + ("--data-path", "{root}/qa-data/train.jsonl", "--seed", "{seed}", "--out", "{out}"),
        300.0,
        ("--resume", "true"),
        LAUNCH_GPUS,
        True,
    ),
    *(
        Step(
            f"qa-{r}",
            ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--reasoner", r, "--out", "{out}"),
            2.0,
        )
        for r in ("exact", "random")
    ),
    _llm_eval(
        "qa-mindzero",
        ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--reasoner", "llm"),
        "{root}/ssrl-qa-qwen3vl4b/final",
        30.0,
    ),
    _llm_eval(
        "qa-base",
        ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--reasoner", "llm"),
        VL4B,
        30.0,
        *("--prompt-style", "full"),
    ),
    # MindZero Table 1b (+ Fig. 5b) and Table 2: Household assistance, every reward ablation.
    *(_ablation_training(row, 600.0) for row in ABLATIONS),
    _llm_eval(
        "household-assist-mindzero",
        ("household", "assist", "--reasoner", "none,random,oracle,smc,llm"),
        "{root}/ablation/none/seed{seed}/final",
        180.0,
    ),
    _llm_eval(
        "household-assist-base",
        ("household", "assist", "--reasoner", "llm"),
        QWEN4B,
        180.0,
        *("--prompt-style", "full", "--n-particles", HOUSEHOLD_PARTICLES, "--max-new-tokens", "1024"),  # as trained
    ),
    Step(
        "ablation",
        ("train", "ablation", "--domain", "household", "--train-config", HOUSEHOLD_RECIPE, "--seeds", "{seed}")
        + ("--n-particles", HOUSEHOLD_PARTICLES, "--episodes", "10", "--resume", "--out", "{out}"),
        720.0,  # evaluation only, each row on household-assist-mindzero's episodes; every training above is reused
        gpus=1,
    ),
    # Household QA (MMToM-style questions on our apartments) and MMToM-QA itself (paper §5.3).
    Step(
        "ssrl-household-qa-qwen3-4b",
        ("train", "ssrl", "--preset", "gpu-paper", "--domain", "household", "--task", "qa", "--model", QWEN4B)
        + ("--seed", "{seed}", "--out", "{out}"),
        300.0,
        ("--resume", "true"),
        LAUNCH_GPUS,
        True,
    ),
    Step("household-qa-data", ("household", "mmtom-data", "--seed", "{seed}", "--out", "{out}"), 10.0, ()),
    _llm_eval(
        "household-qa-mindzero",
        ("household", "mmtom-eval", "--data", "{root}/household-qa-data/questions.jsonl", "--reasoner", "llm"),
        "{root}/ssrl-household-qa-qwen3-4b/final",
        20.0,
    ),
    Step(
        "mmtom-qa-model",
        ("household", "mmtom-eval", "--data", "{data}/mmtom_qa/questions.jsonl", "--reasoner", "model")
        + ("--out", "{out}"),
        10.0,
    ),
    _llm_eval(
        "mmtom-qa-mindzero",
        ("household", "mmtom-eval", "--data", "{data}/mmtom_qa/questions.jsonl", "--reasoner", "llm"),
        "{root}/ssrl-household-qa-qwen3-4b/final",
        60.0,
    ),
    # DEL-ToM Table 4 (the PBM's step accuracy, train pbm's OUT/eval) and Fig. 3 (Best-of-N, beam).
    Step(
        "pbm-data",
        ("stories", "pbm-data", "--source", "both", "--policy", f"vllm:{QWEN4B}", "--samples", "4")
        + ("--stories", "20000", "--seed", "{seed}", "--out", "{out}"),
        240.0,
        gpus=1,
    ),
    Step(
        "pbm-8b",
        ("train", "pbm", "--preset", "gpu-paper", "--model", LLAMA8B, "--data", "{root}/pbm-data/stepwise.jsonl")
        + ("--seed", "{seed}", "--out", "{out}"),
        600.0,
        ("--resume", "true"),
        LAUNCH_GPUS,
        True,
    ),
    Step(
        "deltom-scaling-hitom",
        ("stories", "scale-eval", "--data", "hitom", "--hitom", "{data}/hitom/Hi-ToM_data.json")
        + ("--policy", f"vllm:{QWEN4B}", "--verifier", "{root}/pbm-8b/final", "--pool", "64")
        + ("--ns", "1,2,4,8,16,32,64", "--verifier-batch", "32", "--beam", "true")
        + ("--seed", "{seed}", "--out", "{out}"),
        300.0,
        gpus=1,
    ),
)

PRESETS = {"cpu": CPU_STEPS, "gpu": GPU_STEPS}
#: The commands that take ``--episodes-file``.
EPISODE_STEPS = (["gridworld", "assist"], ["gridworld", "qa-data"])


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
    parser.add_argument(
        "--episodes-file",
        help="JSONL of GridWorld episodes (layout_text + goal per line) for the assistance and QA-data steps "
        "instead of generated ones",
    )
    parser.add_argument(
        "--models", default="/models", help="gpu preset: folder of the base models' folders (default: /models)"
    )
    parser.add_argument(
        "--data",
        default="../shared/data",
        help="gpu preset: folder of the official benchmark files, mmtom_qa/questions.jsonl and "
        "hitom/Hi-ToM_data.json (default: ../shared/data)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="list the commands (gpu: with their estimated GPU-hours) without running"
    )
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


def gpu_hours_of(step: Step) -> float:
    """The step's estimated GPU-hours: its wall time x the GPUs it holds."""
    return step.minutes / 60 * step.gpus


def launch(argv: list[str]) -> int:
    """Run a multi-GPU step as ``accelerate launch`` processes with the shipped config: a child, so
    this process never takes a GPU. Run from the repository root, where ``configs/`` is."""
    if not Path(ACCELERATE_CONFIG).is_file():
        raise UserError(f"{ACCELERATE_CONFIG} not found: run the gpu preset from the repository root")
    return subprocess.run([*LAUNCH, *argv], check=False).returncode


def cmd_reproduce(args: argparse.Namespace) -> int:
    steps = PRESETS[args.preset]
    if args.seed < 0:
        raise UserError(f"--seed must be at least 0, got {args.seed}")
    out = Path(args.out) if args.dry_run else prepare_out(args.out)
    total = sum(s.minutes for s in steps)
    gpu_hours = sum(gpu_hours_of(s) for s in steps)
    cost = f", about {gpu_hours:.0f} GPU-hours" if gpu_hours else ""
    print(f"reproduce --preset {args.preset}: {len(steps)} steps, about {total:.0f} min{cost}, into {out}")
    parser, argvs = build_parser(), [step.args(out, args.seed, args.models, args.data) for step in steps]
    if args.episodes_file:
        argvs = [[*a, "--episodes-file", args.episodes_file] if a[:2] in EPISODE_STEPS else a for a in argvs]
    for argv in argvs:
        parser.parse_args(argv)  # a typo in a preset fails before anything runs
    started = time.monotonic()
    for k, (step, argv) in enumerate(zip(steps, argvs), 1):
        folder = step.folder(out, args.seed)
        state = "new" if args.dry_run else step_state(folder)
        cost = f", ~{gpu_hours_of(step):.1f} GPU-h" if gpu_hours else ""
        name = folder.relative_to(out)
        print(f"[{k}/{len(steps)}] {name} ({state}{cost}): {' '.join(step.command(argv))}", flush=True)
        if args.dry_run or state == "done":
            continue
        extra = rerun_flags(step, folder) if state == "interrupted" else []
        status = launch([*argv, *extra]) if step.launch else main([*argv, *extra])
        if status:
            raise UserError(f"step {step.name} failed (exit {status}); fix it and rerun to continue from there")
    if args.dry_run:
        return 0
    status = main(["report", "paper", str(out), "--out", str(out / "report"), "--overwrite"])
    print(f"reproduce: {len(steps)} steps in {(time.monotonic() - started) / 60:.1f} min; report {out / 'report'}")
    return status
