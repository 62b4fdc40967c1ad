"""benchmarks/gpu_check.sh cannot rot: its dry run parses every phase with mindzero's parser, its
limits fit the 8 minutes a device check gets, and the measuring parts work on CPU."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_check.sh"
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu_check.py")
gpu_check = sys.modules["gpu_check"] = importlib.util.module_from_spec(spec)  # dataclasses look it up
spec.loader.exec_module(gpu_check)

#: Seconds the script may spend outside its phases (wheels, imports) within the 8 minutes.
SETUP_SECONDS = 45


def test_dry_run_prints_and_parses_every_phase(tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", "--out", str(tmp_path / "gc")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    for phase in gpu_check.PHASES:
        assert f"[{phase.name}] limit {phase.limit} s: " in run.stdout
    assert "tests/test_gpu.py" in run.stdout  # the gpu-marked tests are found
    assert "nothing ran" in run.stdout and not (tmp_path / "gc").exists()


def test_the_phases_fit_eight_minutes() -> None:
    assert sum(p.limit for p in gpu_check.PHASES) + SETUP_SECONDS <= 8 * 60


def test_a_renamed_flag_fails_the_dry_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = gpu_check.Phase("bad", ("train", "ssrl", "--no-such-flag"), 1)
    monkeypatch.setattr(gpu_check, "PHASES", (bad,))
    with pytest.raises(SystemExit):
        gpu_check.dry_run(tmp_path)


def test_step_stats_of_a_train_log() -> None:
    rows = [{"step": k, "seconds": 10 + 0.5 * k, "completions": 512, "completions_mean_length": 8.0} for k in (1, 2, 3)]
    stats = gpu_check.step_stats(rows)
    assert stats == {"steps": 3, "seconds_per_step": 0.5, "completion_tokens_per_second": 512 * 8 / 0.5}
    assert gpu_check.step_stats([]) == {"steps": 0, "seconds_per_step": None, "completion_tokens_per_second": None}


def test_a_phase_is_measured_and_a_stuck_one_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    argv = ("gridworld", "assist", "--reasoner", "exact", "--episodes", "1", "--out", "{out}")
    assist = gpu_check.Phase("assist", argv, 120)
    row = gpu_check.run_phase(assist, tmp_path)
    assert row["status"] == 0 and (tmp_path / "assist" / "results.json").is_file()
    assert "peak_gpu_gib" in row and "steps" not in row  # an evaluation has no train log
    stuck = gpu_check.Phase("stuck", ("train", "ssrl", "--preset", "cpu-tiny", "--out", "{out}"), 1)
    row = gpu_check.run_phase(stuck, tmp_path)
    assert row["status"] == "stopped at its 1 s limit" and row["steps"] == 0
