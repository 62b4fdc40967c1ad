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


def test_a_model_trained_on_household_helps_in_household_play(client_for, tiny_model: Path, tmp_path: Path) -> None:
    """`serve --domain household --reasoner llm --model OUT/final`: the trained checkpoint's card says how
    to ask it (facts prompts, one particle in the word form), and the helper acts on what it answers."""
    out = tmp_path / "hh"
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        f"model: {tiny_model}\ntrain_episodes: 2\nprompts_per_step: 2\nnum_generations: 2\nmax_completion_length: 8\n"
        "eval_every: 0\ndata:\n  prompt_style: facts\n  n_particles: 1\n"
    )
    assert main(["train", "ssrl", "--domain", "household", "--task", "assist", "--preset", "cpu-tiny", "--config",
                 str(recipe), "--max-steps", "1", "--warm-start-steps", "1", "--out", str(out)]) == 0  # fmt: skip
    client = client_for(domain="household", episodes=2, reasoner=["llm"], model=str(out / "final"))
    snap = client.post("/api/play", json={"reasoner": "llm", "seed": 1, "episode": 0}).json()
    for action in ("walk livingroom", "walk kitchen"):  # episode 0 starts in the kitchen
        snap = client.post(f"/api/play/{snap['session']}/act", json={"action": action}).json()
    assert snap["condition"] == "llm" and snap["t"] == 2
    assert sum(b["p"] for b in snap["posterior"]["bars"]) + snap["posterior"]["other"] == pytest.approx(1)
