"""mindzero report paper and mindzero reproduce: partial runs, resumption, determinism."""

from __future__ import annotations

import json

import pytest

from mindzero.cli import main
from mindzero.commands import reproduce
from mindzero.core.outputs import RECORD
from mindzero.report.paper import ARTEFACTS, build_report

ASSIST = ("gridworld", "assist", "--episodes", "2", "--seeds", "10", "--max-steps", "30")
MINI = (
    reproduce.Step("assist", (*ASSIST, "--reasoner", "exact,oracle", "--out", "{out}"), 0.1),
    reproduce.Step(
        "qa-data",
        ("gridworld", "qa-data", "--train-episodes", "1", "--test-episodes", "3", "--images", "false")
        + ("--seed", "{seed}", "--out", "{out}"),
        0.1,
    ),
    reproduce.Step("qa-exact", ("gridworld", "qa-eval", "--data", "{root}/qa-data/test.jsonl", "--out", "{out}"), 0.1),
)


@pytest.fixture()
def mini_preset(monkeypatch):
    monkeypatch.setitem(reproduce.PRESETS, "cpu", MINI)


def metrics(folder):
    """Every run's metrics by folder name, without the wall-clock ones."""
    found = {p.parent.name: json.loads(p.read_text())["metrics"] for p in sorted(folder.rglob("results.json"))}
    return {name: {k: v for k, v in m.items() if "second" not in k} for name, m in found.items()}


def test_reproduce_runs_resumes_and_repeats_the_same_numbers(tmp_path, mini_preset, capsys):
    out = tmp_path / "r"
    assert main(["reproduce", "--out", str(out)]) == 0
    report = (out / "report" / "report.md").read_text()
    first = metrics(out)
    assert first["exact"]["n_runs"] == 2 and first["qa-exact"]["accuracy"] == 1.0
    speedup = first["oracle"]["speedup_mean"]
    assert f"{100 * speedup:+.1f} ± " in report  # the oracle row, as measured
    assert "Published (the paper's numbers" in report and "Missing: no run covers it" in report

    # interrupt the last step: its record loses the complete mark; the others are not rerun
    record = out / "qa-exact" / RECORD
    record.write_text(json.dumps({**json.loads(record.read_text()), "complete": False}))
    kept = (out / "assist" / "exact" / "results.json").stat().st_mtime_ns
    capsys.readouterr()
    assert main(["reproduce", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "assist (done)" in printed and "qa-exact (interrupted)" in printed
    assert (out / "assist" / "exact" / "results.json").stat().st_mtime_ns == kept
    assert json.loads(record.read_text())["complete"] is True

    again = tmp_path / "again"
    assert main(["reproduce", "--out", str(again)]) == 0
    assert metrics(again) == first


@pytest.mark.parametrize("preset", sorted(reproduce.PRESETS))
def test_every_preset_command_parses(preset, tmp_path, capsys):
    assert main(["reproduce", "--preset", preset, "--dry-run", "--out", str(tmp_path / "x")]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert len(lines) == len(reproduce.PRESETS[preset])
    assert not (tmp_path / "x").exists()


def test_report_of_a_partial_run_lists_what_is_missing_and_unreadable(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main([*ASSIST, "--reasoner", "random", "--out", str(runs / "a")]) == 0
    (runs / "broken").mkdir()
    (runs / "broken" / "results.json").write_text("{not json")
    report = build_report([runs], tmp_path)
    assert len(report.missing) == len(ARTEFACTS) - 1
    assert len(report.unreadable) == 1 and "broken" in report.unreadable[0]
    assert "| random | paper | off |" in report.markdown
    assert [f.name for f in report.figures] == ["fig5-table1a.png"] and report.figures[0].stat().st_size > 0
    capsys.readouterr()
    assert main(["report", "paper", str(runs), "--out", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    assert printed.count("missing: ") == len(ARTEFACTS) - 1 and "skipped: " in printed
    assert main(["report", "paper", str(tmp_path / "nope"), "--out", str(tmp_path / "rep2")]) == 2


def test_an_interrupted_step_resumes_from_what_it_has(tmp_path):
    trainer = reproduce.Step("t", ("train", "ssrl"), 1.0, ("--resume", "true"))
    assert reproduce.rerun_flags(trainer, tmp_path) == ["--overwrite"]  # cut before its first checkpoint
    (tmp_path / "checkpoint-50").mkdir()
    assert reproduce.rerun_flags(trainer, tmp_path) == ["--resume", "true"]
    assert reproduce.rerun_flags(reproduce.Step("a", ("gridworld", "assist"), 1.0), tmp_path) == ["--resume"]
    assert reproduce.rerun_flags(reproduce.Step("d", ("x",), 1.0, ()), tmp_path) == ["--overwrite"]


def test_report_rows_of_a_pbm_evaluation(tmp_path):
    """DEL-ToM Table 4: step accuracy per order in %, always-+ in brackets, the PBM by its run."""
    by_order = {str(k): 0.5 + k / 10 for k in range(5)}
    metrics = {"step_accuracy": {"by_order": by_order, "avg": 0.7}, "always_plus": {"by_order": by_order, "avg": 0.6}}
    results = {"task": "stories/pbm-eval", "config": {"pbm": "runs/pbm-x/final"}, "metrics": metrics}
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "results.json").write_text(json.dumps(results))
    report = build_report([tmp_path], tmp_path)
    assert (
        "| pbm-x/final | 50.0 (50.0) | 60.0 (60.0) | 70.0 (70.0) | 80.0 (80.0) | 90.0 (90.0) | 70.0 (60.0) |"
        in report.markdown
    )
