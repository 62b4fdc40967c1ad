"""The backend interface without torch: usage accounting, spec strings, optional-package errors."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from mindzero.core.errors import UserError
from mindzero.llm import Usage, UsageMeter, flops, load_backend, resolve_model


def test_flops_is_eq6() -> None:
    # Paper Eq. 6: a 4 B-parameter model processing 1000 tokens costs 8 TFLOPs.
    assert flops(4_000_000_000, 1000) == 8e12
    assert flops(None, 1000) is None


def test_meter_totals_and_measure_block() -> None:
    meter = UsageMeter(active_params=100)
    meter.record(prompt_tokens=10, completion_tokens=5, seconds=0.5)
    with meter.measure() as decision:
        meter.record(prompt_tokens=3, completion_tokens=2, seconds=0.25)
        meter.record(prompt_tokens=1, completion_tokens=1, seconds=0.25)
    assert decision == Usage(calls=2, prompt_tokens=4, completion_tokens=3, flops=2 * 100 * 7, seconds=0.5)
    assert decision.tflops == pytest.approx(1.4e-9)
    assert meter.total.calls == 3 and meter.total.tokens == 22
    assert meter.total.flops == 2 * 100 * 22
    assert meter.total.as_dict()["tokens"] == 22
    meter.reset()
    assert meter.total == Usage()


def test_unknown_parameter_count_keeps_flops_unknown() -> None:
    meter = UsageMeter(active_params=None)
    meter.record(prompt_tokens=10, completion_tokens=5, seconds=0.1)
    assert meter.total.flops is None and meter.total.tokens == 15
    assert (Usage(flops=1.0) + meter.total).flops is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt:foo", "unknown backend 'gpt' in model spec 'gpt:foo'; use hf:PATH, vllm:PATH, openai:URL#MODEL"),
        ("hf:", "names no model after 'hf:'"),
        ("hf:/no/such/model", "model path '/no/such/model' does not exist"),
        ("/no/such/model", "model path '/no/such/model' does not exist"),
        ("openai:localhost:8000/v1#m", "must be an http:// or https:// URL"),
    ],
)
def test_bad_specs_are_one_line_user_errors(spec: str, message: str) -> None:
    with pytest.raises(UserError) as err:
        load_backend(spec)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_folder_without_model_is_rejected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match="has no config.json and no .gguf files"):
        resolve_model(tmp_path)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_missing_vllm_names_the_fix() -> None:
    with pytest.raises(UserError) as err:
        load_backend("vllm:smollm2-135m")
    assert str(err.value) == 'the vllm backend needs the vllm package (vllm is missing): pip install "mindzero[vllm]"'


def test_interface_imports_work_without_torch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``import mindzero.llm`` (and so the HTTP backend) must not need the llm extra."""
    (tmp_path / "config.json").write_text("{}")
    code = textwrap.dedent(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "transformers", "vllm"):
                    raise ImportError(f"No module named {{name!r}}", name=name)
        sys.meta_path.insert(0, Block())
        import mindzero.llm
        from mindzero.core.errors import UserError
        try:
            mindzero.llm.load_backend("hf:{tmp_path}")
        except UserError as err:
            print(err)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        'the transformers backend needs torch and transformers (torch is missing): pip install "mindzero[llm]"'
    )
