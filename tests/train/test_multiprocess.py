"""SSRL on two CPU processes (torchrun, gloo): one train log whose statistics cover both processes'
completions, one set of checkpoints, and ``--resume`` that continues to the uninterrupted bytes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

TINY = ["train", "ssrl", "--preset", "cpu-tiny", "--task", "qa", "--max-steps", "3", "--scratch-hidden", "32",
        "--scratch-layers", "1", "--scratch-heads", "2", "--scratch-vocab", "400", "--data-episodes", "4",
        "--warm-start-steps", "2", "--prompts-per-step", "2", "--num-generations", "2", "--eval-every", "0",
        "--save-steps", "1"]  # fmt: skip


def torchrun(out: Path, *extra: str) -> None:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m", "mindzero",
               *TINY, "--out", str(out), *extra]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    # its own process group: a hung run is killed with its ranks, none left holding the rendezvous
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)  # fmt: skip
    try:
        _, stderr = run.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise
    assert run.returncode == 0, stderr[-3000:]


def log(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "train_log.jsonl").open()]


def test_two_processes_log_the_whole_batch_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    torchrun(out)
    full = log(out)
    assert [row["step"] for row in full] == [1, 2, 3]  # one log, one line a step
    # each process scores its own 2 of the 4 completions; the log covers all 4, as TRL's own gathered reward
    trl_log = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())["log_history"]
    trl_reward = {entry["step"]: entry["reward"] for entry in trl_log if "reward" in entry}
    for row in full:
        assert row["completions"] == 4
        assert row["reward_mean"] == pytest.approx(trl_reward[row["step"]], abs=1e-4)
    assert (out / "final" / "config.json").is_file() and json.loads((out / "mindzero-run.json").read_text())["complete"]

    # cut back to checkpoint-2 as a run killed during step 3 leaves it, then --resume
    shutil.rmtree(out / "final")
    shutil.rmtree(out / "checkpoint-3")
    record = json.loads((out / "mindzero-run.json").read_text())
    (out / "mindzero-run.json").write_text(json.dumps({**record, "complete": False}))
    torchrun(out, "--resume", "true")
    resumed = log(out)
    assert [row["step"] for row in resumed] == [1, 2, 3]
    keys = ("reward_mean", "loss", "completions", "parse_failure_rate")
    assert [[row[k] for k in keys] for row in resumed] == [[row[k] for k in keys] for row in full]
