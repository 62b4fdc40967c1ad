"""Model loads work offline on CUDA: transformers 5 fetches Hub kernels inside ``from_pretrained``
unless ``USE_HUB_KERNELS`` says no, so every load goes through ``load_language_model``, which makes
``NO`` the default and leaves a user's ``YES`` alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from mindzero.llm.models import HUB_KERNELS_ENV, load_language_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def kernel_requests(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What ``from_pretrained`` asks of ``set_use_kernels`` (recorded, never kernelized)."""
    asked: list[bool] = []
    monkeypatch.setattr(transformers.PreTrainedModel, "set_use_kernels", lambda self, use, *a, **k: asked.append(use))
    return asked


def test_loads_turn_hub_kernels_off_by_default(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HUB_KERNELS_ENV, "")  # recorded, so the default set below is undone after the test
    monkeypatch.delenv(HUB_KERNELS_ENV)
    asked = kernel_requests(monkeypatch)
    load_language_model(tiny_model_dir)
    assert asked == [False]
    assert transformers.integrations.hub_kernels._kernels_enabled() is False


def test_a_user_can_still_ask_for_hub_kernels(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HUB_KERNELS_ENV, "YES")
    asked = kernel_requests(monkeypatch)
    load_language_model(tiny_model_dir)
    assert asked == [True]


def direct_loads(source: str) -> list[str]:
    """``AutoModel*.from_pretrained`` calls in a module's code (not its docstrings)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_pretrained":
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name.startswith("AutoModel") or name == "auto":
                found.append(name)
    return found


def test_every_model_load_goes_through_load_language_model() -> None:
    """A direct ``AutoModel*.from_pretrained`` elsewhere would skip the default above."""
    sources = [*(ROOT / "mindzero").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]
    home = ROOT / "mindzero" / "llm" / "models.py"
    offenders = [str(p.relative_to(ROOT)) for p in sources if p != home and direct_loads(p.read_text())]
    assert offenders == []
    assert len(direct_loads(home.read_text())) == 2  # the GGUF conversion and load_language_model
