"""Batched LLM-in-the-loop evaluation: a decision answers the same alone and in any batch (per-prompt
seeds, padding guarded by TIE_MARGIN), assistance episodes run in lock-step and resume, QA batches,
and an OpenAI-compatible server gets several requests at once."""

from __future__ import annotations

import copy
import itertools
import json
import sys
import time
import types
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.inference.llm import LLMReasoner, LLMSettings
from mindzero.llm import OpenAIBackend
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter
from mindzero.tasks.assist import AssistSettings, AssistTotals, assist_samples, run_assist

CHAT = [{"role": "user", "content": "Which two objects is the agent going to?"}]
PROMPTS = ["The agent walks to the red triangle and", "yes", CHAT, "Sally puts the ball in the", "up down left"]
DOMAIN = get_domain("gridworld")


def transformers(model: Path, batch_size: int) -> Any:
    pytest.importorskip("torch")
    from mindzero.llm import TransformersBackend

    return TransformersBackend(model, batch_size=batch_size)


@pytest.mark.parametrize("temperature,n", [(0.0, 1), (1.0, 3)])
def test_a_prompt_answers_the_same_alone_and_in_any_batch(tiny_model_dir: Path, temperature: float, n: int) -> None:
    seeds = [11, 3, 7, 5, 2]
    args = dict(n=n, temperature=temperature, max_new_tokens=8)
    alone = transformers(tiny_model_dir, 1)
    one_at_a_time = [alone.generate([p], seed=[s], **args)[0] for p, s in zip(PROMPTS, seeds)]
    for size in (2, 5):
        assert transformers(tiny_model_dir, size).generate(PROMPTS, seed=seeds, **args) == one_at_a_time
    texts = {g.text for gs in one_at_a_time for g in gs}
    assert len(texts) > 2  # the prompts (and samples) answer differently: the comparison can fail


def test_one_seed_means_seed_plus_index_and_order_does_not_matter(tiny_backend: Any) -> None:
    args = dict(n=2, temperature=1.0, max_new_tokens=6)
    by_number = tiny_backend.generate(PROMPTS, seed=10, **args)
    assert by_number == tiny_backend.generate(PROMPTS, seed=[10, 11, 12, 13, 14], **args)
    assert tiny_backend.generate(PROMPTS[::-1], seed=[14, 13, 12, 11, 10], **args) == by_number[::-1]
    assert tiny_backend.generate(PROMPTS, seed=20, **args) != by_number
    with pytest.raises(UserError, match="2 seeds for 5 prompts"):
        tiny_backend.generate(PROMPTS, seed=[1, 2], **args)


def test_a_near_tie_is_decoded_again_alone(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows whose chosen token led by less than TIE_MARGIN are re-decoded alone; the answers stay."""
    from mindzero.llm import transformers_backend

    backend = transformers(tiny_model_dir, 5)
    calls: list[int] = []
    decode = backend._decode
    monkeypatch.setattr(backend, "_decode", lambda batch, *a: calls.append(len(batch)) or decode(batch, *a))
    args = dict(temperature=1.0, max_new_tokens=6, seed=4)
    usual = backend.generate(PROMPTS, **args)
    assert calls == [5]  # float32 padding moves logits by ~1e-7: no row of these comes near a tie
    _, margins = decode([backend.encode(p) for p in PROMPTS], [4, 5, 6, 7, 8], 1, 1.0, 6)
    assert all(transformers_backend.TIE_MARGIN < m < float("inf") for m in margins)
    monkeypatch.setattr(transformers_backend, "TIE_MARGIN", float("inf"))
    calls.clear()
    assert backend.generate(PROMPTS, **args) == usual
    assert calls == [5, 1, 1, 1, 1, 1]


def test_vllm_sends_every_prompt_in_one_generate_with_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in ``vllm`` module records the calls: one ``LLM.generate`` for the whole batch, prompt
    i with seed ``seed[i]`` (vLLM's per-request seeds)."""
    calls: list[tuple[list, list]] = []

    class Params:
        def __init__(self, **kw: Any) -> None:
            self.__dict__.update(kw)

    class Tokenizer:
        def __call__(self, text: str, add_special_tokens: bool = True) -> Any:
            return types.SimpleNamespace(input_ids=[ord(c) for c in text])

    class LLM:
        def __init__(self, model: str, dtype: str) -> None:
            pass

        def get_tokenizer(self) -> Tokenizer:
            return Tokenizer()

        def generate(self, inputs: list, params: list, use_tqdm: bool) -> list:
            calls.append((inputs, params))
            done = types.SimpleNamespace(text="ok", token_ids=[1, 2], finish_reason="stop")
            return [types.SimpleNamespace(prompt_token_ids=i["prompt_token_ids"], outputs=[done]) for i in inputs]

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=LLM, SamplingParams=Params))
    from mindzero.llm import VLLMBackend

    out = VLLMBackend("org/model").generate(["ab", "cde", "f"], temperature=1.0, max_new_tokens=4, seed=[7, 3, 9])
    assert len(calls) == 1 and [len(i["prompt_token_ids"]) for i in calls[0][0]] == [2, 3, 1]
    assert [p.seed for p in calls[0][1]] == [7, 3, 9]
    assert [g[0].prompt_tokens for g in out] == [2, 3, 1]


class KeyedBackend(Backend):
    """A stand-in model whose answer is a function of (prompt, seed): one goal particle of some
    episode (so some parse and some do not), as a real model's would be."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.name, self.texts, self.usage, self.calls = "keyed", list(texts), UsageMeter(1000), []

    def sample(self, prompts: list[Prompt], n: int, temperature: float, max_new_tokens: int, seed: Any) -> list:
        self.calls.append(len(prompts))
        out = []
        for prompt, s in zip(prompts, seed):
            key = [zlib.crc32(json.dumps([prompt, s, j]).encode()) for j in range(n)]
            out.append([Generation(self.texts[k % len(self.texts)], 10, 3) for k in key])
        return out

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        raise AssertionError("not used")


def keyed_setup(samples: int = 1) -> tuple[list, AssistSettings, KeyedBackend, LLMSettings]:
    runs = episodes(EpisodeConfig(protocol="quick", episodes=3, episode_seed=5))
    texts = [t for e in runs for _, t in DOMAIN.hypothesis_texts(e, "compact")]
    settings = AssistSettings(seeds=[1, 2], max_steps=40, calibrate=False)
    llm = LLMSettings(temperature=1.0 if samples > 1 else 0.0, samples=samples)
    return runs, settings, KeyedBackend(texts), llm


def without_timing(samples: list[dict]) -> list[dict]:
    samples = copy.deepcopy(samples)
    for s in samples:
        s["reasoner"].pop("decisions_per_second")
    return samples


@pytest.mark.parametrize("samples", [1, 2])
def test_assistance_in_lock_step_equals_one_episode_at_a_time(samples: int) -> None:
    results = {}
    for batch in (1, 4):
        runs, settings, backend, llm = keyed_setup(samples)
        make = lambda seed, backend=backend, llm=llm: LLMReasoner(DOMAIN, backend, llm, seed)  # noqa: E731
        metrics, rows, curve = run_assist(DOMAIN, runs, settings, make, progress=False, batch=batch)
        results[batch] = (without_timing(rows), curve, {k: v for k, v in metrics.items() if "second" not in k})
        assert max(backend.calls) == min(batch, 6)  # every pending decision of a tick in one call
    assert results[1] == results[4]
    rows = results[1][0]
    assert len(rows) == 6 and len({r["t_helped"] for r in rows}) > 1
    assert 0 < rows[0]["reasoner"]["parse_failure_rate"] < 1 or 0 < rows[1]["reasoner"]["parse_failure_rate"] < 1


def test_a_resumed_lock_step_run_continues_with_the_same_samples() -> None:
    runs, settings, backend, llm = keyed_setup()
    make = lambda seed: LLMReasoner(DOMAIN, backend, llm, seed)  # noqa: E731
    whole = list(assist_samples(DOMAIN, runs, settings, make, AssistTotals(), progress=False, batch=4))
    totals = AssistTotals()
    first = list(itertools.islice(assist_samples(DOMAIN, runs, settings, make, totals, progress=False, batch=4), 3))
    rest = list(assist_samples(DOMAIN, runs, settings, make, copy.deepcopy(totals), progress=False, batch=4))
    assert without_timing(first + rest) == without_timing(whole)
    with pytest.raises(UserError, match="at least 1 episode"):
        next(assist_samples(DOMAIN, runs, settings, make, AssistTotals(), progress=False, batch=0))


def run_cli(argv: list[str], out: Path) -> list[dict]:
    assert main([*argv, "--out", str(out)]) == 0
    return [json.loads(line) for line in next(out.rglob("samples.jsonl")).read_text().splitlines()]


def test_cli_batch_size_changes_no_answer(tiny_model_dir: Path, tmp_path: Path) -> None:
    """gridworld assist and qa-eval with a real (tiny) model: --batch-size 1 and 4 write the same samples."""
    model = ["--reasoner", "llm", "--model", str(tiny_model_dir), "--max-new-tokens", "8", "--temperature", "1"]
    assist = ["gridworld", "assist", *model, "--protocol", "quick", "--episodes", "3", "--seeds", "1"]
    assist += ["--max-steps", "4", "--samples", "2"]
    data = tmp_path / "qa-data"
    assert main(["gridworld", "qa-data", "--train-episodes", "1", "--test-episodes", "3", "--images", "false",
                 "--out", str(data)]) == 0  # fmt: skip
    qa = ["gridworld", "qa-eval", "--data", str(data / "test.jsonl"), "--limit", "6", *model]
    for name, argv in (("assist", assist), ("qa", qa)):
        one = run_cli([*argv, "--batch-size", "1"], tmp_path / f"{name}1")
        four = run_cli([*argv, "--batch-size", "4"], tmp_path / f"{name}4")
        if name == "assist":
            one, four = without_timing(one), without_timing(four)
        assert one == four and len(one) >= 3
    assert len({s["text"] for s in four}) > 1  # sampled answers differ: the comparison can fail


def test_a_served_model_gets_concurrency_requests_at_once(openai_server: FakeOpenAIServer) -> None:
    openai_server.delay = 0.2
    prompts = [f"prompt {i}" for i in range(8)]
    answers, seconds = {}, {}
    for concurrency in (1, 8):
        openai_server.most_in_flight = 0
        backend = OpenAIBackend(openai_server.url, "fake-model", concurrency=concurrency)
        start = time.perf_counter()
        answers[concurrency] = backend.generate(prompts, temperature=1.0, max_new_tokens=5, seed=3)
        seconds[concurrency] = time.perf_counter() - start
        assert openai_server.most_in_flight == concurrency
    assert answers[1] == answers[8]
    assert seconds[1] >= 8 * 0.2 and seconds[8] < 4 * 0.2
    with pytest.raises(UserError, match="concurrency must be in"):
        OpenAIBackend(openai_server.url, "fake-model", concurrency=0)


def test_cli_concurrency_reaches_the_backend(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.delay = 0.05
    data = tmp_path / "qa-data"
    assert main(["gridworld", "qa-data", "--train-episodes", "1", "--test-episodes", "3", "--images", "false",
                 "--out", str(data)]) == 0  # fmt: skip
    argv = ["gridworld", "qa-eval", "--data", str(data / "test.jsonl"), "--reasoner", "llm", "--limit", "6"]
    argv += ["--model", f"openai:{openai_server.url}#fake-model", "--concurrency", "3", "--out", str(tmp_path / "qa")]
    assert main(argv) == 0
    assert openai_server.most_in_flight == 3
