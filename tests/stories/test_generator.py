"""Generator structure, labels and byte-level determinism of the exports."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mindzero.cli import main
from mindzero.stories.generator import generate_stories
from mindzero.stories.semantics import WAITING_ROOM
from mindzero.stories.templates import Distractor, Enter, Move, PrivateTell, PublicClaim, Stay


def test_stories_have_the_hi_tom_shape() -> None:
    stories = list(generate_stories(90, seed=8))
    assert Counter(s.length for s in stories) == {1: 30, 2: 30, 3: 30}
    assert Counter(s.tell for s in stories) == {True: 45, False: 45}
    n_lines = n_distractors = 0
    for s in stories:
        assert len(s.agents) == 5 and len(set(s.containers)) == 15
        rooms = [e for e in s.events if isinstance(e, Enter) and e.room != WAITING_ROOM]
        assert [len(e.agents) for e in rooms] == [5, 3, 4][: s.length]
        acting = [e.agent for e in s.events if isinstance(e, (Move, Stay))]
        assert acting == [a for e in rooms for a in e.agents]  # each agent acts once, in order
        talk = [e for e in s.events if isinstance(e, (PublicClaim, PrivateTell))]
        assert bool(talk) == s.tell
        assert [q.order for q in s.questions] == [0, 1, 2, 3, 4]
        for q, row, answer in zip(s.questions, s.labels, s.answers):
            assert len(set(q.chain)) == q.order and set(q.chain) <= set(s.agents)
            assert len(row) == len(s.events) and row[-1] == answer and answer in s.containers
            assert row[0] is None  # nobody knows where the object is before it is stated
        n_lines += len(s.events)
        n_distractors += sum(isinstance(e, Distractor) for e in s.events)
    rate = n_distractors / (n_lines - n_distractors)
    assert 0.06 < rate < 0.14


def test_same_seed_same_stories_different_seed_different() -> None:
    a = [s.story_text() for s in generate_stories(10, seed=1)]
    b = [s.story_text() for s in generate_stories(10, seed=1)]
    c = [s.story_text() for s in generate_stories(10, seed=2)]
    assert a == b and a != c


def test_generate_cli_same_seed_same_bytes(tmp_path) -> None:
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main(["stories", "generate", "--n", "6", "--out", str(out), "--seed", "4"]) == 0
        outs.append(out)
    for rel in ("stories.jsonl", "manifest.json", "hf/data-00000-of-00001.arrow", "hf/state.json"):
        assert (outs[0] / rel).read_bytes() == (outs[1] / rel).read_bytes(), rel
    rows = [json.loads(line) for line in (outs[0] / "stories.jsonl").read_text().splitlines()]
    assert len(rows) == 30 and rows[0]["gold_trace"].startswith("## Step 1 ##")
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_from_disk(str(outs[0] / "hf"))
    assert ds.num_rows == 30 and ds[7]["labels"] == rows[7]["labels"]


def test_generate_cli_rejects_bad_arguments(tmp_path, capsys) -> None:
    assert main(["stories", "generate", "--n", "0", "--out", str(tmp_path)]) == 2
    assert "--n must be in [1, 1000000]" in capsys.readouterr().err
    assert main(["stories", "generate", "--n", "1", "--out", str(tmp_path), "--lengths", "4"]) == 2
    assert "--lengths must be one of 1, 2, 3; got 4" in capsys.readouterr().err
