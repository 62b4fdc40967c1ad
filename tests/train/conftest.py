"""Fixtures for training and LLM-reasoner tests: a tiny local model and a scripted backend."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama with tokenizer and chat template, built once per test session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from mindzero.llm.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0)


class ScriptedBackend(Backend):
    """Returns the given completions in order, one per completion (then the last one again); 10
    prompt tokens each.

    Usage is recorded like a real backend with 1000 active parameters, so per-decision costs are
    known exactly: a call of one prompt and a k-token completion costs 2 * 1000 * (10 + k) FLOPs.
    """

    def __init__(self, texts: Sequence[str], scores: Sequence[float] = (0.0, 0.0)) -> None:
        self.name = "scripted"
        self.texts = list(texts)
        self.scores = list(scores)
        self.calls = 0
        self.usage = UsageMeter(1000)

    def sample(self, prompts: Sequence[Prompt], n=1, temperature=1.0, max_new_tokens=256, seed=None):
        out = []
        for _ in prompts:
            row = []
            for _ in range(n):  # each completion takes the next text
                text = self.texts[min(self.calls, len(self.texts) - 1)]
                self.calls += 1
                row.append(Generation(text, 10, len(text.split())))
            out.append(row)
        return out

    def generate(self, prompts: Sequence[Prompt], n=1, temperature=1.0, max_new_tokens=256, seed=None):
        """Metered with a fixed 0.5 s per call (not wall-clock), so rates are exact."""
        out = self.sample(prompts, n, temperature, max_new_tokens, seed)
        self.usage.record(10 * len(prompts), sum(g.completion_tokens for row in out for g in row), seconds=0.5)
        return out

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        self.usage.record(10 * len(continuations), 3 * len(continuations), seconds=0.25)
        return list(self.scores)


@pytest.fixture
def scripted() -> type[ScriptedBackend]:
    return ScriptedBackend
