"""Output folders: a command owns its ``--out`` (another command's or config's folder is refused
unless ``--overwrite``, which clears it), records a run as complete last, stops cleanly on SIGTERM
and continues an interrupted run with ``--resume`` to the bytes of an uninterrupted one; episode
and question loops stream their rows."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

import mindzero.core.outputs as outputs
from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.core.outputs import RECORD, claim_out
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.tasks.assist import AssistSettings, AssistTotals, assist_samples

ASSIST = ["gridworld", "assist", "--episodes", "2", "--seeds", "1", "--max-steps", "5", "--reasoner", "none"]


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path; results.json without the fields that differ
    between identical runs by design (``created``, ``metrics.seconds``)."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "results.json":
            results = json.loads(data)
            del results["created"]
            results["metrics"].pop("seconds", None)
            data = json.dumps(results, sort_keys=True).encode()
        out[str(path.relative_to(folder))] = data
    return out


def record(folder: Path) -> dict:
    return json.loads((folder / RECORD).read_text())


def test_the_record_is_written_last_and_says_complete(tmp_path) -> None:
    assert main([*ASSIST, "--out", str(tmp_path)]) == 0
    assert record(tmp_path) | {"config": None} == {"command": "gridworld assist", "config": None, "complete": True}
    assert record(tmp_path)["config"]["episodes"] == 2 and "out" not in record(tmp_path)["config"]
    others = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != RECORD]
    assert {p.name for p in others} == {"results.json", "samples.jsonl", "goal_accuracy.png"}
    assert max(p.stat().st_mtime_ns for p in others) <= (tmp_path / RECORD).stat().st_mtime_ns


def test_another_command_or_config_is_refused_unless_overwrite(tmp_path, capsys) -> None:
    assert main([*ASSIST, "--out", str(tmp_path)]) == 0
    before = files(tmp_path)
    capsys.readouterr()
    assert main(["stories", "generate", "--n", "1", "--no-hf", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "holds a run of `mindzero gridworld assist`; choose another folder, or --overwrite" in err
    assert main([*ASSIST, "--max-steps", "4", "--out", str(tmp_path)]) == 2
    assert "with another config (differs in max_steps)" in capsys.readouterr().err
    assert main([*ASSIST, "--max-steps", "4", "--out", str(tmp_path), "--resume"]) == 2
    assert files(tmp_path) == before
    assert main(["stories", "generate", "--n", "1", "--no-hf", "--out", str(tmp_path), "--overwrite"]) == 0
    assert sorted(files(tmp_path)) == ["manifest.json", RECORD, "stories.jsonl"]
    assert record(tmp_path)["command"] == "stories generate"


def test_a_rerun_leaves_no_stale_files(tmp_path) -> None:
    """The issue's cases: 250 rows kept in hf/ under a manifest of 100; old PNGs kept by qa-data."""
    qa = ["gridworld", "qa-data", "--test-episodes", "1", "--out", str(tmp_path / "qa")]
    assert main([*qa, "--train-episodes", "2"]) == 0
    assert main([*qa, "--train-episodes", "1", "--seed", "1", "--overwrite"]) == 0
    rows = [json.loads(line) for name in ("train", "test") for line in (tmp_path / "qa" / f"{name}.jsonl").open()]
    assert sorted(p.name for p in (tmp_path / "qa" / "images").iterdir()) == sorted(f"{r['id']}.png" for r in rows)
    stories = ["stories", "generate", "--out", str(tmp_path / "st")]
    assert main([*stories, "--n", "3"]) == 0
    assert main([*stories, "--n", "1", "--overwrite"]) == 0
    datasets = pytest.importorskip("datasets")
    assert len(datasets.load_from_disk(str(tmp_path / "st" / "hf"))) == 5
    assert json.loads((tmp_path / "st" / "manifest.json").read_text())["questions"] == 5


def test_same_config_reruns_and_foreign_files_are_kept(tmp_path, capsys) -> None:
    assert main([*ASSIST, "--out", str(tmp_path / "a")]) == 0
    (tmp_path / "a" / "stale.txt").write_text("from an earlier run")
    assert main([*ASSIST, "--out", str(tmp_path / "a")]) == 0  # a complete run of the same config is redone
    assert not (tmp_path / "a" / "stale.txt").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("not mindzero's")
    capsys.readouterr()
    for flag in ([], ["--overwrite"]):
        assert main([*ASSIST, "--out", str(mine), *flag]) == 2
        assert f"has no {RECORD}" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    with pytest.raises(UserError, match="exclude each other"):
        claim_out(tmp_path / "b", "gridworld assist", {}, overwrite=True, resume=True)


def test_a_row_stream_resumes_from_its_last_checkpoint(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(outputs, "CHECKPOINT_SECONDS", 0.0)  # save at every checkpoint call
    folder = claim_out(tmp_path, "test", {"n": 3})
    with pytest.raises(KeyboardInterrupt), folder.run(), folder.stream("rows.jsonl") as stream:
        for i in range(3):
            stream.write({"i": i})
            stream.checkpoint(i + 1)
        stream.write({"i": "half a unit, never checkpointed"})
        raise KeyboardInterrupt
    assert not (tmp_path / "rows.jsonl").exists() and record(tmp_path)["complete"] is False
    folder = claim_out(tmp_path, "test", {"n": 3}, resume=True)
    with folder.run(), folder.stream("rows.jsonl") as stream:
        assert stream.state == 3 and not stream.done
        stream.write({"i": 3})
        stream.checkpoint(4)
    assert [json.loads(line)["i"] for line in (tmp_path / "rows.jsonl").open()] == [0, 1, 2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == [RECORD, "rows.jsonl"]  # no part file, no checkpoint
    assert record(tmp_path)["complete"] is True


def test_a_damaged_part_file_is_refused_before_any_work(tmp_path, monkeypatch) -> None:
    """The part file cut at 10 random offsets and at half: a resume either finishes with exactly the
    uninterrupted rows or refuses before running; never a NUL byte or a lost row."""
    monkeypatch.setattr(outputs, "CHECKPOINT_SECONDS", 0.0)
    base = tmp_path / "base"
    folder = claim_out(base, "test", {"n": 3})
    with pytest.raises(KeyboardInterrupt), folder.run(), folder.stream("rows.jsonl") as stream:
        for i in range(3):
            stream.write({"i": i, "pad": "x" * i})
            stream.checkpoint(i + 1)
        stream.write({"i": "half a unit"})
        raise KeyboardInterrupt
    part = base / ".rows.jsonl.part"
    size = part.stat().st_size
    offsets = sorted({size // 2, *np.random.default_rng(0).integers(0, size, 10).tolist()})
    for k, offset in enumerate(offsets):
        copy = tmp_path / f"cut{k}"
        shutil.copytree(base, copy)
        with open(copy / ".rows.jsonl.part", "r+b") as fh:
            fh.truncate(offset)
        ran = []
        try:
            folder = claim_out(copy, "test", {"n": 3}, resume=True)
            with folder.run(), folder.stream("rows.jsonl") as stream:
                for i in range(stream.state, 4):
                    ran.append(i)
                    stream.write({"i": i, "pad": "x" * i})
                    stream.checkpoint(i + 1)
        except UserError as err:
            assert "cannot resume" in str(err) and ran == []  # refused before any work
            continue
        data = (copy / "rows.jsonl").read_bytes()
        assert b"\0" not in data
        assert [json.loads(line)["i"] for line in data.splitlines()] == [0, 1, 2, 3]


def test_a_checkpoint_is_json_that_rebuilds_the_state_exactly(tmp_path, monkeypatch) -> None:
    """The resume state (totals with exact fractions and arrays, a numpy generator mid-stream,
    tuples, dicts with tuple keys) goes through JSON and comes back equal, the generator drawing the
    same numbers next; a checkpoint naming a class outside mindzero is refused, not imported."""
    from mindzero.inference.llm import DecisionStats
    from mindzero.tasks.mmtom import MMToMTotals

    monkeypatch.setattr(outputs, "CHECKPOINT_SECONDS", 0.0)
    rng = np.random.default_rng(7)
    rng.random(5)
    totals = MMToMTotals()
    totals.add({"correct": True, "question_type": "1.1", "split": "test", "credit": 0.5})
    stats = DecisionStats(tokens=12, tflops=None)
    stats.parses.add_failure("not json")
    state = (totals, 3.25, rng, stats, {("a", 1): np.arange(3)})
    folder = claim_out(tmp_path, "test", {})
    with pytest.raises(KeyboardInterrupt), folder.run(), folder.stream("rows.jsonl") as stream:
        stream.write({"i": 0})
        stream.checkpoint(state)
        raise KeyboardInterrupt
    saved = json.loads((tmp_path / ".rows.jsonl.ckpt").read_text())  # plain JSON, no pickle
    back = claim_out(tmp_path, "test", {}, resume=True).stream("rows.jsonl").state
    assert vars(back[0]) == vars(totals) and back[1] == 3.25 and vars(back[3]) == vars(stats)
    assert back[2].random(3).tolist() == rng.random(3).tolist()
    assert list(back[4]) == [("a", 1)] and back[4]["a", 1].tolist() == [0, 1, 2]
    saved["state"] = {"object": "os:system", "attrs": {"items": []}}
    (tmp_path / ".rows.jsonl.ckpt").write_text(json.dumps(saved))
    with pytest.raises(UserError, match="not a checkpoint of this version"):
        claim_out(tmp_path, "test", {}, resume=True).stream("rows.jsonl")


@dataclass
class LaterOptions:
    """A command's options after a release added ``added`` (the first run recorded only ``n``)."""

    n: int = 3
    added: int = 1


def test_an_option_added_later_resumes_an_old_run_only_at_its_default(tmp_path) -> None:
    folder = claim_out(tmp_path, "test", {"n": 3})
    with pytest.raises(KeyboardInterrupt), folder.run():
        (tmp_path / "part.txt").write_text("work")
        raise KeyboardInterrupt
    assert claim_out(tmp_path, "test", LaterOptions(), resume=True).resume
    with pytest.raises(UserError, match=r"differs in added\)"):
        claim_out(tmp_path, "test", LaterOptions(added=2), resume=True)


class CountingEpisodes(Sequence):
    """Episodes that remember which ones were asked for."""

    def __init__(self, inner: Sequence) -> None:
        self.inner, self.asked = inner, []

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, k: int):
        self.asked.append(k)
        return self.inner[k]


def test_assist_streams_a_billion_episodes() -> None:
    domain = get_domain("gridworld")
    runs = CountingEpisodes(episodes(EpisodeConfig(episodes=10**9)))
    settings = AssistSettings(seeds=[1], max_steps=5)
    totals = AssistTotals()
    samples = assist_samples(domain, runs, settings, lambda s: domain.reasoner("none", s, settings.human), totals)
    assert [s["episode_id"] for s in islice(samples, 3)] == ["ep0-0000", "ep0-0001", "ep0-0002"]
    assert runs.asked == [0, 1, 2] and totals.runs == 3


def start(argv: list[str], out: Path) -> subprocess.Popen:
    env = {**os.environ, "MINDZERO_CHECKPOINT_SECONDS": "0.05", "HF_HUB_OFFLINE": "1"}
    argv = [sys.executable, "-m", "mindzero", *argv, "--out", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def interrupt_when(child: subprocess.Popen, ready, signum: int = signal.SIGTERM, timeout: float = 60) -> None:
    """Send ``signum`` once ``ready()``; the child stops with one line and exit status 128 + signum."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert child.poll() is None, f"finished before it could be interrupted: {child.stderr.read()}"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    child.send_signal(signum)
    _, err = child.communicate(timeout=timeout)
    assert child.returncode == 128 + signum
    line = f"mindzero: interrupted ({signal.Signals(signum).name}); rerun with --resume to continue"
    assert err.splitlines()[-1] == line and err.count("mindzero:") == 1 and "Traceback" not in err


RESUMABLE = [
    ["gridworld", "qa-data", "--train-episodes", "8", "--test-episodes", "3"],
    ["stories", "generate", "--n", "400"],
    ["gridworld", "assist", "--episodes", "40", "--seeds", "1,2", "--reasoner", "none,exact"],
]


@pytest.mark.parametrize("argv", RESUMABLE, ids=lambda argv: " ".join(argv[:2]))
def test_sigterm_then_resume_gives_the_uninterrupted_bytes(argv, tmp_path, capsys) -> None:
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    child = start(argv, cut)
    interrupt_when(child, lambda: any(cut.rglob(".*.ckpt")))
    assert record(cut)["complete"] is False and any(cut.rglob(".*.part"))  # resumable, and no half file
    capsys.readouterr()
    assert main([*argv, "--out", str(cut)]) == 2
    assert "holds an interrupted run of this command and config; rerun with --resume" in capsys.readouterr().err
    assert main([*argv, "--out", str(cut), "--resume"]) == 0
    assert main([*argv, "--out", str(whole)]) == 0
    assert files(cut) == files(whole)
    assert record(cut)["complete"] is True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_huge_assist_writes_samples_as_it_goes(signum, tmp_path) -> None:
    """`--episodes 10000` (the bound; 10^9 used to be accepted) must not build every episode before writing."""
    argv = ["gridworld", "assist", "--episodes", "10000", "--seeds", "1", "--reasoner", "none"]
    child = start(argv, tmp_path)
    part = tmp_path / ".samples.jsonl.part"
    interrupt_when(child, lambda: (tmp_path / ".samples.jsonl.ckpt").is_file(), signum)
    assert json.loads(part.read_text().splitlines()[0])["episode_id"] == "ep0-0000"


def test_resume_with_nothing_to_resume_says_so(tmp_path, capsys) -> None:
    from mindzero.cli import main

    argv = ["gridworld", "assist", "--episodes", "1", "--seeds", "10", "--reasoner", "none", "--resume"]
    assert main([*argv, "--out", str(tmp_path / "new")]) == 0
    assert "nothing was resumed" in capsys.readouterr().err
