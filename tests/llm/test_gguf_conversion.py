"""GGUF → plain safetensors conversion and caching, on the tiny model written as GGUF."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("gguf")

from tiny_gguf import write_tiny_gguf  # noqa: E402

from mindzero.llm import PACKAGED_MODELS, TransformersBackend, load_backend, resolve_model  # noqa: E402
from mindzero.llm.models import PackagedModel  # noqa: E402


@pytest.fixture
def tiny_gguf(tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MINDZERO_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "gguf"
    folder.mkdir()
    return write_tiny_gguf(tiny_model_dir, folder / "Tiny-Llama.F32.gguf")


def test_conversion_is_exact_plain_and_cached(tiny_gguf: Path, tiny_model_dir: Path, tmp_path: Path) -> None:
    converted = resolve_model(tiny_gguf)
    assert converted.parent == tmp_path / "cache" / "models"
    assert converted.name.startswith("tiny-llama.f32-")
    assert [p.name for p in converted.parent.iterdir()] == [converted.name]  # no temp dir left
    assert "quantization_config" not in json.loads((converted / "config.json").read_text())

    # Loaded straight from GGUF, transformers marks the model quantised (trainers refuse it) ...
    raw = transformers.AutoModelForCausalLM.from_pretrained(str(tiny_gguf.parent), gguf_file=tiny_gguf.name)
    assert raw.is_quantized
    # ... the converted folder is a plain model with the same weights and tokenizer.
    model = transformers.AutoModelForCausalLM.from_pretrained(str(converted))
    assert not getattr(model, "is_quantized", False) and getattr(model, "hf_quantizer", None) is None
    original = TransformersBackend(tiny_model_dir)
    backend = TransformersBackend(tiny_gguf)
    assert backend.name == str(converted)
    chat = [{"role": "user", "content": "Which goal?"}]
    assert backend.encode(chat) == original.encode(chat)
    ids = torch.tensor([original.encode("The agent walks to the red")])
    with torch.no_grad():
        assert torch.equal(model(ids).logits, original.model(ids).logits)

    # Second use: the cache is reused, not rewritten.
    stamp = (converted / "model.safetensors").stat().st_mtime_ns
    assert resolve_model(tiny_gguf) == converted
    assert resolve_model(tiny_gguf.parent) == converted  # a folder holding one .gguf
    assert (converted / "model.safetensors").stat().st_mtime_ns == stamp

    # A changed file is converted again, into a new cache entry.
    os.utime(tiny_gguf, ns=(stamp + 10**9, stamp + 10**9))
    assert resolve_model(tiny_gguf) != converted


def test_packaged_name_resolves_to_converted_cache(
    tiny_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flow of ``smollm2-135m``: a GGUF inside an installed package, found on disk, converted once."""
    package = tmp_path / "site" / "tiny_llm_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('never import model packages')\n")
    os.replace(tiny_gguf, package / tiny_gguf.name)
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setitem(PACKAGED_MODELS, "tiny", PackagedModel("tiny_llm_pkg", "tiny-llm-pkg", "tiny-instruct"))
    backend = load_backend("tiny")
    assert backend.name == str(tmp_path / "cache" / "models" / "tiny-instruct")
    assert len(backend.generate(["The agent"], n=2, max_new_tokens=3, seed=0)[0]) == 2
