"""The OpenAI-compatible backend against a real server: llama.cpp's ``llama-server`` serving the
packaged SmolLM2 GGUF (slow suite; skipped where no binary is built, docs/llm.md says how)."""

from __future__ import annotations

import pytest
from llama_server import find_llama_server, llama_server

from mindzero.domains import get_domain
from mindzero.domains.gridworld.qa import build_split
from mindzero.inference.llm import LLMQAAnswerer, LLMSettings
from mindzero.llm import OpenAIBackend
from mindzero.llm.models import packaged_gguf

pytestmark = pytest.mark.slow


def test_questions_answered_through_a_real_server_one_or_eight_requests_at_a_time(tmp_path) -> None:
    """Greedy answers of 12 GridWorld questions, sent one at a time and eight at a time to a server
    with eight slots: every request answered, the answers parsed as by any backend, and the same
    answers both ways (each request decodes greedily in its own slot)."""
    binary = find_llama_server()
    if binary is None:
        pytest.skip("no llama-server binary (MINDZERO_LLAMA_SERVER or PATH; docs/llm.md)")
    rows = build_split("train", 4, seed=0, progress=False)[:12]
    settings = LLMSettings(max_new_tokens=4, temperature=0.0)
    answers = {}
    with llama_server(binary, packaged_gguf("smollm2-135m"), parallel=8, log=tmp_path / "server.log") as url:
        for concurrency in (1, 8):
            backend = OpenAIBackend(url, concurrency=concurrency)
            answerer = LLMQAAnswerer(get_domain("gridworld"), backend, settings=settings)
            answers[concurrency] = [r for records, _ in answerer.answers(rows, seed=0, batch=12) for r in records]
    assert len(answers[1]) == len(rows) == len(answers[8])
    assert all(r["prediction"] in ("a", "b", None) and isinstance(r["text"], str) for r in answers[1])
    assert [r["text"] for r in answers[1]] == [r["text"] for r in answers[8]]
