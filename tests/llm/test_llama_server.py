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
    """Greedy answers of 12 GridWorld questions from a server with eight slots and no prompt cache:
    sent one at a time twice, the same answers (a reused cached prefix changes the numbers: with it,
    the second pass answered differently); eight at a time, every question answered and parsed as by
    any backend. Not the same answers: llama.cpp's results depend on which requests
    share a batch (ggml-org/llama.cpp#6950, #7052), so the benchmark reports how many agree."""
    binary = find_llama_server()
    if binary is None:
        pytest.skip("no llama-server binary (MINDZERO_LLAMA_SERVER or PATH; docs/llm.md)")
    rows = build_split("train", 4, seed=0, progress=False)[:12]
    settings = LLMSettings(max_new_tokens=4, temperature=0.0)
    answers = []
    gguf, uncached = packaged_gguf("smollm2-135m"), ("--no-cache-prompt", "--cache-ram", "0")
    with llama_server(binary, gguf, parallel=8, log=tmp_path / "server.log", options=uncached) as url:
        for concurrency in (1, 1, 8):
            backend = OpenAIBackend(url, concurrency=concurrency)
            answerer = LLMQAAnswerer(get_domain("gridworld"), backend, settings=settings)
            answers.append([r for records, _ in answerer.answers(rows, seed=0, batch=12) for r in records])
    one, again, eight = answers
    assert [r["text"] for r in one] == [r["text"] for r in again]
    assert len(eight) == len(rows) and all(r["text"] for r in eight)
    assert all(r["prediction"] in ("a", "b", None) for r in one + eight)
