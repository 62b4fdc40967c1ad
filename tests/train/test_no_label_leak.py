"""No mental-state label reaches a trainer: permuting every episode's true goal (and every QA
answer) leaves the SSRL and format-warm-start batches byte-identical."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mindzero.domains.gridworld.ssrl as gridworld_ssrl
from mindzero.core.config import from_flat  # noqa: E402
from mindzero.domains import get_domain
from mindzero.train.format_sft import FormatSFTConfig, format_rows
from mindzero.train.ssrl import SSRLConfig, resolve_config, training_rows


def rows_of(config: SSRLConfig) -> list[dict]:
    return training_rows(config, get_domain(config.domain).tasks[config.task])


def _bytes(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows).encode()


def _permute(rows: list[dict], keys: tuple[str, ...], seed: int) -> list[dict]:
    """The same rows with the values of ``keys`` shuffled between rows (labels of other episodes)."""
    order = np.random.default_rng(seed).permutation(len(rows))
    return [{**row, **{k: rows[int(j)][k] for k in keys}} for row, j in zip(rows, order)]


@pytest.mark.parametrize("style", ["compact", "relative", "anchored"])
def test_assist_batches_ignore_the_true_goal(monkeypatch, style) -> None:
    options = {"train_episodes": 6, "every": 3, "n_particles": 8, "prompt_style": style}
    config = resolve_config(from_flat(SSRLConfig, task="assist", **options))
    original = gridworld_ssrl.assist_rows
    generated = original(gridworld_ssrl.TrainData(episodes=6, seed=0, every=3, n_particles=8, prompt_style=style))
    assert len({tuple(r["goal"]) for r in generated}) > 1  # there are labels to permute
    fmt = from_flat(FormatSFTConfig, train_episodes=6, every=3, n_particles=8, prompt_style=style)
    baseline, fmt_baseline = _bytes(rows_of(config)), _bytes(format_rows(fmt))
    monkeypatch.setattr(gridworld_ssrl, "assist_rows", lambda data, *a, **k: _permute(original(data), ("goal",), 1))
    assert _bytes(rows_of(config)) == baseline
    assert _bytes(format_rows(fmt)) == fmt_baseline  # the format warm start's random targets too
    monkeypatch.setattr(gridworld_ssrl, "assist_rows", original)
    assert "goal" not in rows_of(config)[0]


def test_qa_batches_ignore_answers_and_goals(monkeypatch) -> None:
    config = resolve_config(from_flat(SSRLConfig, task="qa", train_episodes=8, prompt_style="relative"))
    original = gridworld_ssrl.build_split
    rows = original("train", 8, 0, progress=False)
    assert {r["answer"] for r in rows} == {"a", "b"}
    baseline = _bytes(rows_of(config))
    monkeypatch.setattr(
        gridworld_ssrl,
        "build_split",
        lambda *a, **k: _permute(original(*a, **k), ("answer", "goal", "choices", "episode_id"), 2),
    )
    assert _bytes(rows_of(config)) == baseline
    leaked = {"answer", "goal", "choices"} & set(rows_of(config)[0])
    assert not leaked
