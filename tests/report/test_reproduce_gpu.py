"""``mindzero reproduce --preset gpu`` plans every table of both papers: each command parses with the
real argument parser, reads only what an earlier step writes, trains across GPUs through
``accelerate launch`` with the shipped config, and its dry run prints each step's GPU-hours."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from mindzero.cli import build_parser, main
from mindzero.commands import reproduce
from mindzero.core.config import config_from_args
from mindzero.core.errors import UserError
from mindzero.train.ssrl import ABLATIONS, SSRLConfig

ROOT = Path(__file__).resolve().parents[2]
OUT = Path("/R")
STEPS = reproduce.PRESETS["gpu"]


def planned() -> list[tuple[reproduce.Step, list[str]]]:
    return [(s, s.args(OUT, 0, "/models", "/data")) for s in STEPS]


def verbs() -> set[tuple[str, str]]:
    return {(argv[0], argv[1]) for _, argv in planned()}


def step(name: str) -> list[str]:
    """The argv of the planned step ``name`` (a Table 2 row's: ``ablation/ROW/seed{seed}``)."""
    return next(argv for s, argv in planned() if s.name == name)


def trainings(monkeypatch) -> dict[str, SSRLConfig]:
    """Every planned ``train ssrl`` step's config (its ``--config`` recipe and flags), by step name."""
    monkeypatch.chdir(ROOT)  # the recipes' paths are relative to the repository root
    parser = build_parser()
    return {
        s.name: config_from_args(SSRLConfig, parser.parse_args(a)) for s, a in planned() if a[:2] == ["train", "ssrl"]
    }


def test_every_planned_command_parses() -> None:
    parser = build_parser()
    for _, argv in planned():
        assert callable(parser.parse_args(argv).func)


def test_the_plan_covers_every_table(monkeypatch) -> None:
    assert {
        ("train", "ssrl"),  # GridWorld and Household assistance and QA (Tables 1a, 1b, 4a; MMToM-QA)
        ("gridworld", "assist"),
        ("gridworld", "qa-eval"),
        ("household", "assist"),
        ("household", "mmtom-eval"),
        ("train", "ablation"),  # Table 2
        ("train", "pbm"),  # DEL-ToM Table 4
        ("stories", "scale-eval"),  # DEL-ToM Fig. 3
    } <= verbs()
    trained = {argv[argv.index("--ablation") + 1] for _, argv in planned() if "--ablation" in argv}
    assert trained == set(ABLATIONS)
    scale = next(a for _, a in planned() if a[:2] == ["stories", "scale-eval"])
    assert scale[scale.index("--verifier") + 1] == f"{OUT}/pbm-8b/final"  # the trained PBM ranks the traces
    assert scale[scale.index("--beam") + 1] == "true"  # Best-of-N and beam search
    mmtom = [a for _, a in planned() if a[1] == "mmtom-eval" and "/data/mmtom_qa/questions.jsonl" in a]
    assert {a[a.index("--reasoner") + 1] for a in mmtom} == {"model", "llm"}
    tasks = {(c.domain, c.task) for c in trainings(monkeypatch).values()}
    assert tasks == {("gridworld", "assist"), ("gridworld", "qa"), ("household", "assist"), ("household", "qa")}


def test_table_2_rows_are_household_trainings_the_ablation_reuses(monkeypatch) -> None:
    configs = trainings(monkeypatch)
    ablation = step("ablation")
    assert ablation[:2] == ["train", "ablation"]
    assert ablation[ablation.index("--domain") + 1] == "household"  # the paper's Table 2 domain
    assert "--resume" in ablation  # reads the rows' trainings, trains none of its own
    recipe = ablation[ablation.index("--train-config") + 1]
    assert yaml.safe_load((ROOT / recipe).read_text())["domain"] == "household"
    particles = int(ablation[ablation.index("--n-particles") + 1])
    for row in ABLATIONS:  # each row trained into the folder `train ablation` reuses, from the same recipe
        name = f"ablation/{row}/seed{{seed}}"
        config = configs[name]
        assert (config.domain, config.task, config.ablation) == ("household", "assist", row)
        assert config.model == "/models/Qwen3-4B"  # paper Table 2's backbone
        assert config.data.n_particles == (1 if row == "single" else particles)
        argv = step(name)
        assert argv[argv.index("--config") + 1] == recipe
        assert Path(argv[argv.index("--out") + 1]) == OUT / "ablation" / row / "seed0"
    household_assist = [n for n, c in configs.items() if (c.domain, c.task) == ("household", "assist")]
    assert len(household_assist) == len(ABLATIONS)  # Table 1b's model is the none row: no second training


def test_each_assistance_evaluation_reads_its_domains_mindzero_model(monkeypatch) -> None:
    configs = trainings(monkeypatch)

    def model_of(name: str) -> str:
        argv = step(name)
        return argv[argv.index("--model") + 1]

    household = model_of("household-assist-mindzero")
    assert household == f"{OUT}/ablation/none/seed0/final"  # Table 1b: Table 2's full row
    gridworld = model_of("gridworld-assist-mindzero")
    trainer = next(n for n in configs if gridworld == f"{OUT}/{n}/final")
    config = configs[trainer]
    assert (config.domain, config.task, config.ablation) == ("gridworld", "assist", "none")  # Table 1a
    assert config.model == "/models/Qwen3-VL-4B-Instruct" and config.data.n_particles == 2


def test_each_step_reads_what_an_earlier_step_writes() -> None:
    written: list[Path] = []
    for step, argv in planned():
        folder = step.folder(OUT, 0)
        reads = [Path(a) for a in argv if a.startswith(f"{OUT}/") and Path(a) != folder]
        for path in reads:
            assert any(path.is_relative_to(w) for w in written), f"{step.name} reads {path} before any step writes it"
        written.append(folder)


def test_training_runs_across_gpus_with_the_shipped_accelerate_config() -> None:
    config = yaml.safe_load((ROOT / reproduce.ACCELERATE_CONFIG).read_text())
    assert config["num_processes"] == reproduce.LAUNCH_GPUS
    launched = [(s, a) for s, a in planned() if s.launch]
    assert {tuple(a[:2]) for _, a in launched} == {("train", "ssrl"), ("train", "pbm")}
    assert all(s.gpus == reproduce.LAUNCH_GPUS for s, _ in launched)
    for step, argv in launched:
        command = step.command(argv)
        assert command[:4] == ["accelerate", "launch", "--config_file", reproduce.ACCELERATE_CONFIG]
        assert command[4:7] == ["-m", "mindzero", *argv[:1]]
    for path in {a for _, argv in planned() for a in argv if a.startswith("configs/")}:
        assert (ROOT / path).is_file(), path


def test_the_dry_run_prints_every_command_with_its_gpu_hours(tmp_path: Path, capsys) -> None:
    assert main(["reproduce", "--preset", "gpu", "--dry-run", "--out", str(tmp_path / "x")]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("[")]
    assert len(lines) == len(STEPS)
    for step, line in zip(STEPS, lines):
        assert f", ~{step.minutes / 60 * step.gpus:.1f} GPU-h): " in line  # CPU-only steps: ~0.0
        assert ("accelerate launch" in line) == step.launch
    total = sum(s.minutes / 60 * s.gpus for s in STEPS)
    assert f"about {total:.0f} GPU-hours" in out.splitlines()[0]
    assert not (tmp_path / "x").exists()


def test_a_launched_step_runs_under_accelerate(tmp_path: Path, monkeypatch) -> None:
    calls = []

    def run(cmd: list[str], check: bool) -> SimpleNamespace:
        calls.append(cmd)
        return SimpleNamespace(returncode=3)

    monkeypatch.setattr(reproduce.subprocess, "run", run)
    monkeypatch.chdir(ROOT)
    assert reproduce.launch(["train", "ssrl", "--out", "x"]) == 3
    assert calls == [[*reproduce.LAUNCH, "train", "ssrl", "--out", "x"]]
    monkeypatch.chdir(tmp_path)  # elsewhere the shipped config is not found: one line, nothing launched
    with pytest.raises(UserError, match="run the gpu preset from the repository root"):
        reproduce.launch(["train", "ssrl"])
    assert len(calls) == 1
