"""Fixtures for the LLM backend tests: a tiny local model and a tiny OpenAI-compatible server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama with tokenizer and chat template, built once per test session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from mindzero.llm.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0)


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_dir: Path) -> Any:
    from mindzero.llm import TransformersBackend

    return TransformersBackend(tiny_model_dir, batch_size=4)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
