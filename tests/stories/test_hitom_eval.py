"""The official Hi-ToM release: 100% on the one-chapter CoT subset, every disagreement explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindzero.cli import main
from mindzero.stories.hitom import evaluate, load_hitom

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "hitom" / "Hi-ToM_data.json"
needs_data = pytest.mark.skipif(not DATA.exists(), reason="official Hi-ToM data not present")


@needs_data
def test_hitom_semantics_on_official_data() -> None:
    metrics, samples, disagreements = evaluate(load_hitom(DATA), "hitom")
    assert metrics["n"] == 1200 and metrics["n_one_chapter_cot"] == 200
    assert metrics["accuracy"]["one_chapter_cot"] == 1.0
    assert len(disagreements) == metrics["n_disagreements"] == sum(not s["correct"] for s in samples)
    assert all(d["cause"] != "unexplained" and d["explanation"] for d in disagreements)
    # Every VP disagreement comes from the older generator's order-dependent updates.
    assert {d["cause"] for d in disagreements if d["prompting_type"] == "VP"} == {"generator_combinations_order"}
    assert not any(d["story_length"] == 1 and d["prompting_type"] == "CoTP" for d in disagreements)


def _write(tmp_path: Path, story: str) -> Path:
    record = {
        "sample_id": 0,
        "story": story,
        "question": "Where is the pear really?",
        "answer": "red_box",
        "story_length": 1,
        "question_order": 0,
        "deception": False,
        "prompting_type": "CoTP",
        "choices": "A. red_box",
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"data": [record]}))
    return path


def test_cli_hitom_eval_writes_results(tmp_path) -> None:
    data = _write(tmp_path, "1 Ann and Bob entered the hall.\n2 The pear is in the red_box.\n")
    assert main(["stories", "hitom-eval", "--data", str(data), "--out", str(tmp_path / "out")]) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["metrics"]["accuracy"]["overall"] == 1.0
    row = json.loads((tmp_path / "out" / "samples.jsonl").read_text())
    assert row["correct"] is True and row["prediction"] == "red_box"


def test_cli_hitom_eval_bad_line_names_it(tmp_path, capsys) -> None:
    data = _write(tmp_path, "1 Ann and Bob entered the hall.\n2 The pear flew away.\n")
    assert main(["stories", "hitom-eval", "--data", str(data), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "The pear flew away." in err


def test_cli_hitom_eval_missing_file(tmp_path, capsys) -> None:
    assert main(["stories", "hitom-eval", "--data", str(tmp_path / "nope.json"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not found" in err and "https://github.com/ying-hui-he/Hi-ToM_dataset" in err


def test_cli_hitom_eval_needs_the_data_path(tmp_path, capsys) -> None:
    assert main(["stories", "hitom-eval", "--out", str(tmp_path)]) == 2
    assert "--data is required" in capsys.readouterr().err
