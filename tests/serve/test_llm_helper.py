"""A language-model helper in the browser app: a tiny random local model (built offline) helps in
play, and the viewer replays an ``llm`` assistance run with it, tick for tick."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindzero.cli import main


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from mindzero.llm.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0)


def test_llm_helper_plays_and_replays(client_for, tiny_model: Path, tmp_path: Path) -> None:
    flags = {"reasoner": ["llm"], "model": f"hf:{tiny_model}", "max_new_tokens": 8}
    runs = tmp_path / "runs"
    assert main(["gridworld", "assist", "--reasoner", "llm", "--model", f"hf:{tiny_model}", "--max-new-tokens", "8",
                 "--episodes", "1", "--seeds", "10", "--max-steps", "4", "--out", str(runs / "llm")]) == 0  # fmt: skip
    client = client_for(runs=str(runs), **flags)
    snap = client.post("/api/play", json={"reasoner": "llm", "seed": 1}).json()
    for action in ("up", "left", "stay"):
        snap = client.post(f"/api/play/{snap['session']}/act", json={"action": action}).json()
    assert snap["condition"] == "llm" and snap["t"] == 3 and snap["note"] is None
    bars = snap["posterior"]["bars"]
    assert sum(b["p"] for b in bars) + snap["posterior"]["other"] == pytest.approx(1)
    recorded = json.loads((runs / "llm" / "samples.jsonl").read_text().splitlines()[0])
    replay = client.get("/api/replay", params={"path": "llm/samples.jsonl", "row": 0}).json()
    assert replay["mismatch"] is None and replay["reasoner"] == "llm"
    assert len(replay["frames"]) == recorded["t_helped"] + 1
