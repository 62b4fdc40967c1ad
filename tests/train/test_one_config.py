"""One nested configuration per trainer: the training rows' options are declared once, and the
warm-start stage runs with its parent's sections, not with options copied field by field."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("trl")

from mindzero.core.config import from_flat  # noqa: E402
from mindzero.train.format_sft import FormatSFTConfig  # noqa: E402
from mindzero.train.ssrl import SSRLConfig, resolve_config, warm_start_config  # noqa: E402

PACKAGE = Path(__file__).parent.parent.parent / "mindzero"


def test_row_options_are_declared_once_in_the_trainers() -> None:
    """``every``, ``n_particles`` and ``prompt_style`` as dataclass fields: only in TrainData among
    the domains' base and the trainers (the evaluators' own options are another concern)."""
    places = []
    for path in [PACKAGE / "domains" / "base.py", *sorted((PACKAGE / "train").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    name = getattr(getattr(item, "target", None), "id", None)
                    if isinstance(item, ast.AnnAssign) and name in ("every", "n_particles", "prompt_style"):
                        places.append((path.name, node.name, name))
    assert sorted(places) == [("base.py", "TrainData", n) for n in ("every", "n_particles", "prompt_style")]


def test_the_warm_start_stage_shares_its_parents_sections() -> None:
    config = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", task="qa", train_episodes=7, format_steps=3))
    stage = warm_start_config(config)
    assert stage.data is config.data and stage.warm_start is config.warm_start  # the same objects, not copies
    own = {"out", "seed", "domain", "task", "model", "scratch", "data", "warm_start", "save_steps", "eval_prompts",
           "max_new_tokens"}  # fmt: skip
    set_here = {f.name for f in dataclasses.fields(FormatSFTConfig)
                if getattr(stage, f.name) != getattr(FormatSFTConfig(), f.name)}  # fmt: skip
    assert set_here <= own
    assert stage.data.episodes == 7 and stage.warm_start.steps == 3 and stage.warm_start.batch_size == 16


def test_old_flat_names_still_work_for_one_release(tmp_path: Path, capsys) -> None:
    from mindzero.cli import build_parser
    from mindzero.core.config import config_from_args

    args = build_parser().parse_args(["train", "ssrl", "--every", "3", "--prompt-style", "relative"])
    config = config_from_args(SSRLConfig, args)
    assert config.data.every == 3 and config.data.prompt_style == "relative"
    assert "--every is now --data-every" in capsys.readouterr().err
    yaml = tmp_path / "old.yaml"
    yaml.write_text("train_episodes: 5\ndata: runs/qa/train.jsonl\nformat_steps: 9\n")
    args = build_parser().parse_args(["train", "ssrl", "--config", str(yaml)])
    config = config_from_args(SSRLConfig, args)
    assert (config.data.episodes, config.data.path, config.warm_start.steps) == (5, "runs/qa/train.jsonl", 9)
    new = build_parser().parse_args(["train", "ssrl", "--data-every", "4", "--warm-start-steps", "11"])
    assert config_from_args(SSRLConfig, new).warm_start.steps == 11


def test_a_household_run_scores_with_households_human() -> None:
    """The reward's likelihood is the human that made the rows (Household's ε 0.1, τ 0.05), with any
    value a flag changed; GridWorld keeps its own."""
    from mindzero.envs.household.human import HOUSEHOLD_HUMAN

    household = {"domain": "household", "task": "assist", "prompt_style": "facts"}
    assert resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", **household)).human == HOUSEHOLD_HUMAN
    tau = resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", human={"tau": 0.2}, **household)).human
    assert (tau.epsilon, tau.tau) == (HOUSEHOLD_HUMAN.epsilon, 0.2)
    assert resolve_config(from_flat(SSRLConfig, preset="cpu-tiny", task="qa")).human.tau == 0.01
