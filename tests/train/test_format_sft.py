"""Format warm start: random valid targets that carry no goal information; SFT mechanics on a tiny model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from mindzero.core.config import from_flat  # noqa: E402
from mindzero.core.errors import UserError  # noqa: E402
from mindzero.core.human import HumanParams  # noqa: E402
from mindzero.domains.gridworld.hypotheses import parse_goal_particles  # noqa: E402
from mindzero.domains.gridworld.ssrl import AssistTask, object_names  # noqa: E402
from mindzero.envs.gridworld.layout import parse_layout  # noqa: E402
from mindzero.train.format_sft import FormatSFTConfig, format_rows, train_format_sft  # noqa: E402


def test_targets_parse_on_their_scene_and_ignore_the_goal() -> None:
    from mindzero.envs.gridworld.episodes import generate_episodes

    config = from_flat(FormatSFTConfig, train_episodes=40, every=1, n_particles=2)
    rows = format_rows(config)
    goals = {ep.layout.to_text(): ep.goal for ep in generate_episodes(40, seed=0, prefix="ssrl")}
    assert len(goals) == 40  # every episode has its own layout: the layout identifies the episode
    task = AssistTask()
    named_true_goal = 0
    for row in rows:
        # chat rows with the reward's columns, no goal label
        assert set(row) == {"prompt", "completion", *task.columns} and row["n_particles"] == 2
        assert row["prompt"][0]["role"] == "user" and row["completion"][0]["role"] == "assistant"
        text = row["completion"][0]["content"]
        result = parse_goal_particles(text, object_names(parse_layout(row["layout"])))
        assert result.ok and len(result.probs) == 2, result.reason
        assert task.context(row, HumanParams()).parse(text).hypotheses == result.hypotheses  # what the reward reads
        named_true_goal += any(set(g) == set(goals[row["layout"]]) for g in result.hypotheses)
    # Random pairs: 2 of 28 name the true goal by chance (7 %), not the goal-seeking rate.
    assert len(rows) > 300 and named_true_goal / len(rows) < 0.12, named_true_goal / len(rows)
    # Same seed, same targets; another seed, other targets.
    assert [r["completion"] for r in format_rows(config)] == [r["completion"] for r in rows]
    other = format_rows(from_flat(FormatSFTConfig, train_episodes=40, every=1, n_particles=2, seed=1))
    assert [r["completion"] for r in other] != [r["completion"] for r in rows]


def test_qa_targets_are_random_letters_whatever_the_answer() -> None:
    rows = format_rows(from_flat(FormatSFTConfig, train_episodes=20, task="qa", prompt_style="relative"))
    letters = [r["completion"][0]["content"] for r in rows]
    assert set(letters) == {"(a)", "(b)"} and 0.3 < letters.count("(a)") / len(letters) < 0.7
    assert all(r["prompt"][0]["content"].startswith("q") for r in rows)  # relative prompts


def test_bad_options_are_one_line_errors() -> None:
    with pytest.raises(UserError, match="n-particles"):
        format_rows(from_flat(FormatSFTConfig, train_episodes=1, n_particles=0))
    with pytest.raises(UserError, match="--data-prompt-style long is not one of domain gridworld.s"):
        train_format_sft(from_flat(FormatSFTConfig, prompt_style="long"))
    with pytest.raises(UserError, match="unknown task"):
        format_rows(from_flat(FormatSFTConfig, train_episodes=1, task="chess-moves"))
    with pytest.raises(UserError, match="unknown domain"):
        format_rows(from_flat(FormatSFTConfig, train_episodes=1, domain="chess"))


def test_two_steps_save_a_model_and_report_the_held_out_check(tiny_model_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "fmt"
    config = from_flat(FormatSFTConfig, 
        model=str(tiny_model_dir),
        out=str(out),
        train_episodes=2,
        max_steps=2,
        batch_size=2,
        save_steps=1,
        eval_prompts=2,
        max_new_tokens=8,
    )
    summary = train_format_sft(config)
    assert summary["steps"] == 2 and (out / "final" / "config.json").is_file()
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log] == [1, 2] and all(e["loss"] > 0 for e in log)
    held = json.loads((out / "summary.json").read_text())["held_out"]
    assert held["prompts"] == 2 and held["parse_failure_rate"] == 1.0  # a random tiny model writes no JSON


def _untrained_assist_model(folder: Path) -> tuple[list[dict], object, object]:
    """One-particle letter-form rows of 12 episodes, and a tiny untrained scratch model and tokenizer."""
    from transformers import AutoModelForCausalLM

    from mindzero.train.base import CHAT_ROLES, ScratchSpec, build_scratch, load_tokenizer

    rows = format_rows(from_flat(FormatSFTConfig, train_episodes=12, n_particles=1, prompt_style="relative"))
    texts = [t for r in rows for t in (r["prompt"][0]["content"], r["completion"][0]["content"])]
    path = build_scratch(folder, [*texts, *CHAT_ROLES], ScratchSpec(hidden=32, layers=1), 0)
    return rows, load_tokenizer(path), AutoModelForCausalLM.from_pretrained(str(path))


def test_own_choices_drawn_at_a_temperature_vary_where_the_argmax_repeats(tmp_path: Path) -> None:
    """``choice_temperature`` > 0 draws each target letter from the untrained model's own
    (standardised) scores: more distinct first letters than the argmax gives, the same ones for
    the same seed, and every answer still names two different objects."""
    from mindzero.train.format_sft import own_choices, tokenized

    rows, tokenizer, model = _untrained_assist_model(tmp_path / "scratch")

    def first_letters(temperature: float, seed: int) -> list[str]:
        items = [tokenized(r, tokenizer) for r in rows]
        own_choices(model, tokenizer, items, AssistTask.choice_tokens, temperature, seed)
        answers = [tokenizer.decode([t for t, m in zip(x["input_ids"], x["completion_mask"]) if m]) for x in items]
        pairs = [a.split()[:2] for a in answers]
        assert all(len(p) == 2 and p[0] != p[1] for p in pairs), answers[:5]
        return [p[0] for p in pairs]

    greedy, drawn = first_letters(0.0, 0), first_letters(0.5, 0)
    assert len(set(drawn)) > len(set(greedy)) and len(set(drawn)) >= 5
    assert first_letters(0.5, 0) == drawn and first_letters(0.5, 1) != drawn


def test_balanced_own_choices_spread_the_first_letter_over_the_objects(tmp_path: Path) -> None:
    """``balance`` removes the per-letter bias an untrained model shares across prompts: the
    argmax then picks many first letters, none of them for most prompts."""
    from collections import Counter

    from mindzero.train.format_sft import own_choices, tokenized

    rows, tokenizer, model = _untrained_assist_model(tmp_path / "scratch")
    items = [tokenized(r, tokenizer) for r in rows]
    own_choices(model, tokenizer, items, AssistTask.choice_tokens, balance=True)
    answers = [tokenizer.decode([t for t, m in zip(x["input_ids"], x["completion_mask"]) if m]) for x in items]
    first = Counter(a.split()[0] for a in answers)
    assert len(first) >= 6 and max(first.values()) < 0.4 * len(answers), first


def test_answers_longer_than_the_generation_budget_are_a_clear_error() -> None:
    """A budget that cuts more than 5 % of the taught answers is refused (GRPO would cut them and
    they would not parse); one that holds them passes."""
    from mindzero.train.format_sft import check_answer_budget

    items = [{"completion_mask": [0] * 5 + [1] * (n + 1)} for n in [20] * 90 + [30] * 10]  # n tokens + end of turn
    check_answer_budget(items, 30, 2)
    with pytest.raises(UserError, match=r"answers of 2 particles take 20 tokens .* raise it to at least 30"):
        check_answer_budget(items, 24, 2)
