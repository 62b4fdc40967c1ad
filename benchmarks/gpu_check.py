"""The phases of ``benchmarks/gpu_check.sh`` (docs/gpu.md): the ``gpu`` tests, the cpu-tiny assist
recipe for a few steps in fp32 and bf16, a ~34 M-parameter scratch model in bf16, and one assistance
evaluation with the llm reasoner, each a child process under its own time limit, so that one stuck
phase cannot eat the device lease. Printed per phase: wall seconds, seconds per optimizer step,
completion tokens per second, peak GPU memory (``torch.cuda.max_memory_allocated``) and, for
trainers, the seconds of each phase up to the first step (``OUT/phases.json``); all of it lands in
``OUT/gpu_check.json``.

    python benchmarks/gpu_check.py --out /tmp/gpu-check            # on the GPU machine (via the .sh)
    python benchmarks/gpu_check.py --dry-run --out /tmp/gpu-check  # anywhere: print and parse only

``--dry-run`` runs nothing: it prints every phase's command and time limit and parses each with
mindzero's own argument parser, so a renamed flag fails here, on CPU, before a lease is spent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mindzero.cli import build_parser
from mindzero.core.results import atomic_write_text, dumps_json

#: The cpu-tiny GridWorld assist recipe, a few steps of it: no held-out curve, no checkpoint.
RECIPE = ("train", "ssrl", "--config", "configs/ssrl/cpu-tiny-assist.yaml", "--eval-every", "0", "--save-steps", "1000")
#: The scratch model of the 34 M bf16 run that made no optimizer step within 200 s (docs/gpu.md).
SCRATCH_34M = ("--scratch-hidden", "512", "--scratch-layers", "8", "--scratch-heads", "8")
#: Seconds between the child's snapshots of its peak GPU memory (kept when a limit stops it).
SNAPSHOT_SECONDS = 5.0


@dataclass(frozen=True)
class Phase:
    """One child process: a mindzero command (``argv``, ``{out}`` = the phase's folder) or, with
    ``pytest`` set, the gpu-marked tests; ``limit`` in seconds. The limits add up to 7 minutes."""

    name: str
    argv: tuple[str, ...]
    limit: int
    pytest: bool = False

    def args(self, out: Path) -> list[str]:
        return [a.format(out=out / self.name, root=out) for a in self.argv]


PHASES = (
    Phase("gpu-tests", ("-m", "gpu", "-q", "-p", "no:cacheprovider"), 60, pytest=True),
    Phase("assist-fp32", (*RECIPE, "--max-steps", "20", "--bf16", "false", "--out", "{out}", "--overwrite"), 90),
    Phase("assist-bf16", (*RECIPE, "--max-steps", "20", "--bf16", "true", "--out", "{out}", "--overwrite"), 90),
    Phase(
        "scratch-34m-bf16",
        (*RECIPE, *SCRATCH_34M, "--max-steps", "5", "--bf16", "true", "--out", "{out}", "--overwrite"),
        150,
    ),
    Phase(
        "assist-eval-llm",
        ("gridworld", "assist", "--reasoner", "llm", "--model", "{root}/assist-fp32/final")
        + ("--episodes", "2", "--seeds", "10", "--out", "{out}", "--overwrite"),
        45,
    ),
)


def gpu_test_files(tests: Path = Path("tests")) -> list[str]:
    """The test files that mark tests ``gpu`` (only they are collected: the GPU image lacks what
    other test modules import)."""
    return sorted(str(p) for p in tests.rglob("test_*.py") if "pytest.mark.gpu" in p.read_text(encoding="utf-8"))


def command(phase: Phase, out: Path, result: Path) -> list[str]:
    """The child's command line: pytest on the gpu files, or this file's ``--child`` around mindzero."""
    if phase.pytest:
        return [sys.executable, "-m", "pytest", *phase.argv, *gpu_test_files()]
    return [sys.executable, __file__, "--child", str(result), "--", *phase.args(out)]


def step_stats(rows: list[dict]) -> dict:
    """Optimizer steps, median seconds per step (from the log's running ``seconds``) and completion
    tokens per second (completions x mean completion length / seconds per step) of a train log."""
    steps = [r for r in rows if "seconds" in r]
    gaps = [b["seconds"] - a["seconds"] for a, b in zip(steps, steps[1:])]
    per_step = statistics.median(gaps) if gaps else (steps[0]["seconds"] if steps else None)
    tokens = [r["completions"] * r["completions_mean_length"] for r in steps if "completions_mean_length" in r]
    rate = statistics.mean(tokens) / per_step if tokens and per_step else None
    return {"steps": len(steps), "seconds_per_step": per_step, "completion_tokens_per_second": rate}


def read_json(path: Path) -> dict:
    """A JSON file a child wrote, or {} where it wrote none (stopped before)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def run_phase(phase: Phase, out: Path) -> dict:
    """Run one phase under its limit; what it measured, also when the limit stopped it."""
    result = out / f"{phase.name}.result.json"
    result.unlink(missing_ok=True)
    started = time.perf_counter()
    try:
        status: int | str = subprocess.run(command(phase, out, result), timeout=phase.limit, check=False).returncode
    except subprocess.TimeoutExpired:
        status = f"stopped at its {phase.limit} s limit"
    folder = out / phase.name
    log = folder / "train_log.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.is_file() else []
    return {
        "phase": phase.name,
        "status": status,
        "seconds": round(time.perf_counter() - started, 1),
        "peak_gpu_gib": read_json(result).get("peak_gpu_gib"),
        **(step_stats(rows) if phase.argv[:1] == ("train",) else {}),
        "first_step_phases": read_json(folder / "phases.json"),
    }


def child(result: Path, argv: list[str]) -> int:
    """Run ``mindzero ARGV`` here, writing the peak GPU memory to ``result`` every few seconds and at
    the end (a phase stopped at its limit keeps its last snapshot)."""
    import torch

    from mindzero.cli import main

    cuda = torch.cuda.is_available()

    def snapshot() -> None:
        peak = torch.cuda.max_memory_allocated() / 2**30 if cuda else None
        atomic_write_text(result, json.dumps({"peak_gpu_gib": peak}))

    def every() -> None:
        while True:
            time.sleep(SNAPSHOT_SECONDS)
            snapshot()

    threading.Thread(target=every, daemon=True).start()
    status = main(argv)
    snapshot()
    return status


def dry_run(out: Path) -> int:
    """Print every phase and parse each mindzero command with the real parser; run nothing."""
    parser = build_parser()
    for phase in PHASES:
        if phase.pytest:
            files = gpu_test_files()
            if not files:
                raise SystemExit("gpu_check: no test file marks a test `gpu`")
            print(f"[{phase.name}] limit {phase.limit} s: pytest {' '.join(phase.argv)} {' '.join(files)}")
            continue
        argv = phase.args(out)
        parser.parse_args(argv)
        print(f"[{phase.name}] limit {phase.limit} s: mindzero {' '.join(argv)}")
    print(f"gpu_check: {len(PHASES)} phases, at most {sum(p.limit for p in PHASES)} s (dry run: nothing ran)")
    return 0


def summary_line(row: dict) -> str:
    def num(key: str, fmt: str) -> str:
        value = row.get(key)
        return "-" if value is None else format(value, fmt)

    return (
        f"{row['phase']:<18} {str(row['status']):<28} {row['seconds']:>7.1f} s  steps {row.get('steps', '-')}  "
        f"s/step {num('seconds_per_step', '.3f')}  tok/s {num('completion_tokens_per_second', '.0f')}  "
        f"peak {num('peak_gpu_gib', '.2f')} GiB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/mindzero-gpu-check"), help="work folder")
    parser.add_argument("--dry-run", action="store_true", help="print and parse every phase; run nothing")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.child:
        return child(args.child, rest[1:] if rest[:1] == ["--"] else rest)
    if args.dry_run:
        return dry_run(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for phase in PHASES:
        print(f"gpu_check: {phase.name} (limit {phase.limit} s)", flush=True)
        rows.append(run_phase(phase, args.out))
        print(f"gpu_check: {summary_line(rows[-1])}", flush=True)
        if rows[-1]["first_step_phases"]:
            print(f"gpu_check:   phases {rows[-1]['first_step_phases']}", flush=True)
    print("\n".join(["", "gpu_check summary", *map(summary_line, rows)]))
    atomic_write_text(args.out / "gpu_check.json", dumps_json(rows))
    print(f"gpu_check: {args.out / 'gpu_check.json'}")
    return 0 if all(r["status"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
