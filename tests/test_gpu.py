"""CUDA paths, run on a GPU machine by ``benchmarks/gpu_check.sh`` (``pytest -m gpu``) and skipped
elsewhere: an offline load without Hub kernels in the cache, seeded generation on the GPU, and one
GRPO step in bf16."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from mindzero.llm import TransformersBackend  # noqa: E402
from mindzero.llm.models import HUB_KERNELS_ENV, load_language_model  # noqa: E402
from mindzero.llm.tiny import build_tiny_model  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("gpu") / "tiny", seed=0)


def test_offline_cuda_load_uses_no_hub_kernels(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """transformers 5.25 fetched kernels-community/rotary here and failed offline before the default."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv(HUB_KERNELS_ENV, "")
    monkeypatch.delenv(HUB_KERNELS_ENV)
    model = load_language_model(tiny, torch.bfloat16).to("cuda")
    assert not model.use_kernels
    logits = model(input_ids=torch.tensor([[1, 2, 3]], device="cuda")).logits
    assert logits.shape[:2] == (1, 3) and torch.isfinite(logits.float()).all()


def test_seeded_generation_on_cuda_repeats(tiny: Path) -> None:
    backend = TransformersBackend(tiny, device="cuda", dtype="bfloat16", batch_size=4)
    assert next(backend.model.parameters()).device.type == "cuda"
    args = dict(prompts=["The agent walks to"], n=3, temperature=1.0, max_new_tokens=6, seed=5)
    assert backend.generate(**args) == backend.generate(**args)


def test_one_grpo_step_in_bf16_on_cuda(tiny: Path, tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from mindzero.core.config import from_flat
    from mindzero.train.ssrl import SSRLConfig, train_ssrl

    config = from_flat(
        SSRLConfig,
        model=str(tiny),
        out=str(tmp_path / "run"),
        train_episodes=2,
        max_steps=1,
        prompts_per_step=2,
        num_generations=2,
        max_completion_length=8,
        save_steps=1,
        bf16=True,
    )
    summary = train_ssrl(config)
    assert summary["steps"] == 1
    assert list(summary["phases"])[-2:] == ["first_generation", "first_step"]
