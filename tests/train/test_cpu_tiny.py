"""The cpu-tiny preset: a scratch model with its own tokenizer, a label-free format warm start, GRPO
and the held-out learning curve, end to end on a few rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("trl")

from mindzero.core.config import from_flat  # noqa: E402
from mindzero.domains import get_domain  # noqa: E402
from mindzero.domains.base import TrainData  # noqa: E402
from mindzero.llm import load_backend  # noqa: E402
from mindzero.llm.tiny import build_scratch_model  # noqa: E402
from mindzero.train.base import ScratchSpec  # noqa: E402
from mindzero.train.ssrl import SSRLConfig, train_ssrl  # noqa: E402

TINY = ScratchSpec(hidden=32, layers=1, heads=2, vocab=400)


def _texts(task: str, style: str, seed: int, n_particles: int = 8) -> list[str]:
    domain = get_domain("gridworld")
    rows = domain.tasks[task].rows(
        TrainData(episodes=6, seed=seed, every=3, n_particles=n_particles, prompt_style=style)
    )
    rng = np.random.default_rng(seed)
    return [t for r in rows for t in (r["prompt"], domain.tasks[task].random_completion(r, n_particles, rng))]


def test_scratch_tokenizer_round_trips_every_generated_text(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    build_scratch_model(tmp_path / "m", _texts("assist", "relative", 0) + _texts("qa", "relative", 0), vocab_size=600)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "m")
    styles = ("relative", "anchored", "compact")
    unseen = [t for task in ("qa", "assist") for style in styles for t in _texts(task, style, 7)]
    for text in unseen:  # other episodes, and a prompt style the tokenizer was not trained on
        assert tokenizer.decode(tokenizer(text).input_ids) == text
    particle = _texts("assist", "relative", 3, n_particles=1)[1]
    tokens = tokenizer.convert_ids_to_tokens(tokenizer(particle).input_ids)
    assert tokens[:2] == [particle[0], "Ġ" + particle[2]]  # letter form: an object letter is one token
    words = tokenizer.convert_ids_to_tokens(tokenizer(" -3 12 g").input_ids)
    assert words == ["Ġ-3", "Ġ12", "Ġg"]  # numbers and value words of the prompts: one token each


def test_number_features_order_integer_tokens_by_value(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    texts = _texts("qa", "anchored", 0)
    build_scratch_model(tmp_path / "m", texts, vocab_size=600, hidden_size=32, number_features=6)
    build_scratch_model(tmp_path / "plain", texts, vocab_size=600, hidden_size=32)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "m")
    weight = AutoModelForCausalLM.from_pretrained(tmp_path / "m").get_input_embeddings().weight.detach()
    plain = AutoModelForCausalLM.from_pretrained(tmp_path / "plain").get_input_embeddings().weight.detach()
    numbers = {v: tokenizer(f" {v}").input_ids for v in range(-4, 15)}
    assert all(len(ids) == 1 for ids in numbers.values())  # each a single token of the vocabulary
    code = torch.stack([weight[ids[0], :6] for ids in numbers.values()])
    assert (code.sum(dim=1).diff() > 0).all()  # the summed code rises with the value, step by step
    letter = tokenizer(" g").input_ids[0]
    assert weight[letter, :6].abs().sum() == 0 and weight[letter, 6:].abs().sum() > 0  # other tokens: no code
    assert torch.equal(weight[:, 6:], plain[:, 6:])  # the rest of the init is the seed's, as without it
    assert (plain[[ids[0] for ids in numbers.values()], :6].sum(dim=1).diff() > 0).sum() < len(numbers) - 1


def test_cpu_tiny_qa_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "tiny"
    summary = train_ssrl(
        from_flat(SSRLConfig, 
            preset="cpu-tiny",
            task="qa",
            out=str(out),
            scratch=TINY,
            train_episodes=4,
            format_steps=2,
            max_steps=2,
            prompts_per_step=2,
            num_generations=2,
            eval_every=1,
            eval_questions=6,
        )
    )
    assert summary["steps"] == 2
    # Where the time to the first step went, in order (a slow GPU run shows its stuck phase).
    phases = ["setup", "data", "warm_start", "model_load", "trainer_setup", "train_start", "first_generation"]
    assert list(summary["phases"]) == [*phases, "first_step"]
    assert json.loads((out / "phases.json").read_text()) == summary["phases"]
    assert all(seconds >= 0 for seconds in summary["phases"].values())
    curve = [json.loads(line) for line in (out / "curves.jsonl").read_text().splitlines()]
    assert [r["step"] for r in curve] == [0, 1, 2]
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["n"] == 6 for r in curve)
    assert (out / "format" / "scratch" / "tokenizer.json").is_file()  # the model's own tokenizer
    backend = load_backend(summary["final_model"])  # an ordinary HF folder
    assert backend.model.num_parameters() < 200_000
    # Resume continues after the last checkpoint and reuses the scratch model and warm start.
    again = train_ssrl(
        from_flat(SSRLConfig, 
            preset="cpu-tiny", task="qa", out=str(out), scratch=TINY, train_episodes=4, format_steps=2,
            max_steps=3, prompts_per_step=2, num_generations=2, eval_every=1, eval_questions=6, resume=True,
        )
    )  # fmt: skip
    assert again["steps"] == 3
    curve = [json.loads(line) for line in (out / "curves.jsonl").read_text().splitlines()]
    assert [r["step"] for r in curve] == [0, 1, 2, 3]


def test_cpu_tiny_assist_curve_compares_with_exact(tmp_path: Path) -> None:
    out = tmp_path / "assist"
    train_ssrl(
        from_flat(SSRLConfig, 
            preset="cpu-tiny",
            task="assist",
            n_particles=2,
            out=str(out),
            scratch=TINY,
            train_episodes=2,
            every=6,
            format_steps=2,
            max_steps=1,
            prompts_per_step=2,
            num_generations=2,
            max_completion_length=24,
            eval_every=1,
            eval_episodes=1,
        )
    )
    row = json.loads((out / "curves.jsonl").read_text().splitlines()[-1])
    assert 0.0 <= row["parse_failure_rate"] <= 1.0 and row["decisions"] > 0
    assert row["uniform_kl_to_exact"] > 0 and row["exact_true_goal_prob"] > row["uniform_true_goal_prob"]


def test_warm_start_keeps_the_answer_a_function_of_the_prompt(tmp_path: Path) -> None:
    """The QA warm start fits the untrained model's own letter choices (label-free): afterwards the
    letter still depends on the prompt, where random letters would make it a constant."""
    from mindzero.inference.llm import LLMQAAnswerer, LLMSettings
    from mindzero.tasks.qa import evaluate_qa_llm
    from mindzero.train.format_sft import FormatSFTConfig, train_format_sft

    summary = train_format_sft(
        from_flat(FormatSFTConfig, 
            model="scratch",
            task="qa",
            prompt_style="relative",
            out=str(tmp_path / "fmt"),
            train_episodes=60,
            max_steps=60,
            batch_size=16,
            learning_rate=1e-3,
            save_steps=60,
            eval_prompts=8,
            max_new_tokens=4,
        )
    )
    assert summary["held_out"]["parse_failure_rate"] == 0.0  # the form is learned
    domain = get_domain("gridworld")
    rows = domain.heldout_questions(60, 5)
    answerer = LLMQAAnswerer(
        domain, load_backend(summary["final_model"]), "score", LLMSettings(prompt_style="relative")
    )
    _, samples = evaluate_qa_llm(rows, answerer)
    margins = np.array([s["scores"][0] - s["scores"][1] for s in samples])
    assert margins.std() > 0.1 and 0 < (margins > 0).mean() < 1  # both letters, chosen by prompt


def test_trainers_run_float32_on_cpu() -> None:
    """TRL's configs default to bf16 autocast; on a CPU that runs a tiny model's step 6-7x slower, so
    every trainer here asks for float32 there unless its options say otherwise."""
    import trl

    from mindzero.train.base import trainer_args, use_cpu
    from mindzero.train.trace_policy import TracePolicyConfig

    if not use_cpu():
        pytest.skip("a GPU is visible")
    config = TracePolicyConfig(out="unused")
    assert trl.SFTConfig(output_dir="unused", use_cpu=True).bf16  # what the fix is for
    for args_class in (trl.SFTConfig, trl.GRPOConfig):
        assert not trainer_args(args_class, config).bf16


def test_copy_warmup_comes_before_the_format_warm_start(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    out = tmp_path / "copy"
    train_ssrl(
        from_flat(SSRLConfig, 
            preset="cpu-tiny", task="qa", out=str(out), scratch=TINY, train_episodes=4, format_steps=2,
            copy_warmup_steps=3, max_steps=1, prompts_per_step=2, num_generations=2, eval_every=0,
        )
    )  # fmt: skip
    warm = out / "format" / "copy-warmup"
    record = json.loads((out / "format" / "format_sft_config.json").read_text())
    # the format SFT starts from the copy warm-up's model
    assert record["warm_start"]["copy_warmup_steps"] == 3 and record["model_path"] == str(warm)
    assert len((warm.with_suffix(".jsonl")).read_text().splitlines()) >= 1  # its loss log
    scratch, copied = (load_file(f / "model.safetensors") for f in (out / "format" / "scratch", warm))
    assert any(not (scratch[k] == copied[k]).all() for k in scratch)  # the warm-up trained the weights


def test_copy_warmup_is_for_scratch_models(tmp_path: Path) -> None:
    from mindzero.core.errors import UserError

    with pytest.raises(UserError, match="copy-warmup-steps is for --model scratch"):
        train_ssrl(from_flat(SSRLConfig, preset="cpu-small", out=str(tmp_path), copy_warmup_steps=10))
