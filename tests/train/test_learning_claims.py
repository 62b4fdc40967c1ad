"""The learning-claims table is one command: seeds trained, each final model evaluated by
``qa-eval`` with no decoding flags (its card says how), one table."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

SCRIPT = Path(__file__).parent.parent.parent / "benchmarks" / "learning_claims.py"


def test_one_command_writes_the_seed_table(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("learning_claims", SCRIPT)
    claims = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(claims)
    out = tmp_path / "claims"
    claims.main(["--smoke", "--seeds", "0,1", "--max-steps", "2", "--test-episodes", "3", "--out", str(out)])
    rows = json.loads((out / "table.json").read_text())
    assert [r["seed"] for r in rows] == [0, 1] and all(0.0 <= r["qa_eval_accuracy"] <= 1.0 for r in rows)
    assert "mean ± sd over 2 seeds" in (out / "table.md").read_text()
    for seed in (0, 1):  # evaluated the way it was trained, with no --prompt-style given
        record = json.loads((out / f"eval-seed{seed}" / "results.json").read_text())
        assert record["config"]["prompt_style"] == "anchored"
    for r in rows:  # qa-eval on the curve's own questions gives the curve's last point: asked as trained
        assert r["qa_eval_on_curve_questions"] == pytest.approx(r["last_point"], abs=1e-9), r
