"""Multi-room stories: the DEL engine against an independent who-saw-what tracker.

The tracker below knows nothing of Kripke models or of ``StoryWorld``: it keeps, per agent, where
that agent last saw each object (first order) and where it last saw another agent see it (second
order: both were in the room), with the rule a reader would state: an event in a room is seen by
exactly the agents in that room, and an agent entering a room sees the objects lying there. A new
container is in the room entered last (the generator moves objects only within their room, so no
later move places a container elsewhere; the engine is given the whole story all the same).
"""

from __future__ import annotations

import json
from itertools import permutations

from mindzero.cli import main
from mindzero.stories.generator import generate_stories
from mindzero.stories.semantics import StorySimulator
from mindzero.stories.templates import Distractor, Enter, Event, Exit, IsIn, Move, ObjectAt
from mindzero.stories.traces import check_trace, render_gold_trace


class WhoSawWhat:
    def __init__(self) -> None:
        self.room: dict[str, str] = {}
        self.container_room: dict[str, str] = {}
        self.where: dict[str, str] = {}
        self.last_entered: str | None = None
        self.beliefs: dict[tuple[str, ...], dict[str, str]] = {}

    def here(self, room: str) -> list[str]:
        return [a for a, r in self.room.items() if r == room]

    def see(self, observers: list[str], obj: str) -> None:
        for a in observers:
            self.beliefs.setdefault((a,), {})[obj] = self.where[obj]
            for b in observers:
                if b != a:
                    self.beliefs.setdefault((a, b), {})[obj] = self.where[obj]

    def step(self, event: Event) -> None:
        if isinstance(event, (Enter, IsIn)):
            new = [a for a in event.agents if self.room.get(a) != event.room]
            for a in new:
                self.room[a] = event.room
            self.last_entered = event.room
            if new:
                for obj, c in self.where.items():
                    if self.container_room[c] == event.room:
                        self.see(self.here(event.room), obj)
        elif isinstance(event, (ObjectAt, Move)):
            room = self.room[event.agent] if isinstance(event, Move) else self.last_entered
            room = self.container_room.setdefault(event.container, room)
            self.where[event.obj] = event.container
            self.see(self.here(room), event.obj)
        elif isinstance(event, Exit):
            del self.room[event.agent]

    def get(self, chain: tuple[str, ...], obj: str) -> str | None:
        return self.where.get(obj) if not chain else self.beliefs.get(chain, {}).get(obj)


def test_engine_equals_who_saw_what_on_multiroom_stories() -> None:
    """Every belief of order 0-2 about both objects, after every line of 300 stories; the first- and
    second-order beliefs at the end of each story count as its questions."""
    n_questions = n_checks = 0
    rooms_entered, reentries, singles, distractors, is_in = [], 0, 0, 0, 0
    for story in generate_stories(300, seed=21, mode="multiroom"):
        sim, tracker = StorySimulator(story.agents, story=story.events), WhoSawWhat()
        objects = sorted({e.obj for e in story.events if isinstance(e, ObjectAt)})
        chains = [c for k in (0, 1, 2) for c in permutations(story.agents, k)]
        visited: set[tuple[str, str]] = set()
        for event in story.events:
            if isinstance(event, (Enter, IsIn)):
                reentries += any((a, event.room) in visited for a in event.agents)
                visited.update((a, event.room) for a in event.agents)
                singles += len(event.agents) == 1
                is_in += isinstance(event, IsIn)
            distractors += isinstance(event, Distractor)
            sim.step(event)
            tracker.step(event)
            for obj in objects:
                for chain in chains:
                    assert sim.belief(chain, obj) == tracker.get(chain, obj), (story.story_id, event, chain, obj)
                    n_checks += 1
        for q, answer in zip(story.questions, story.answers):
            if q.order <= 2:
                assert answer == tracker.get(q.chain, q.obj)
        n_questions += len(objects) * sum(len(c) in (1, 2) for c in chains)
        rooms_entered.append(len({room for _, room in visited}))
    assert n_questions >= 5000 and n_checks > 50_000
    assert sum(n >= 2 for n in rooms_entered) > 200  # most stories use two rooms or more
    assert reentries > 300 and singles > 1000 and distractors > 150 and is_in > 150


def test_multiroom_labels_are_per_line_and_reproducible() -> None:
    a = list(generate_stories(20, seed=3, mode="multiroom"))
    b = list(generate_stories(20, seed=3, mode="multiroom"))
    assert [s.story_text() for s in a] == [s.story_text() for s in b]
    for s in a:
        assert [q.order for q in s.questions] == [0, 1, 2, 3, 4] and not s.tell
        for row, answer in zip(s.labels, s.answers):
            assert len(row) == len(s.events) and row[-1] == answer


def test_multiroom_gold_traces_pass_the_checker() -> None:
    """The PBM pipeline's per-step labels: every step of a multi-room gold trace checks as correct
    (a chain that never learnt where the object is has no final answer to be right about)."""
    for s in generate_stories(30, seed=4, mode="multiroom"):
        for q, row, answer in zip(s.questions, s.labels, s.answers):
            check = check_trace(render_gold_trace(s.events, q, row), row, answer)
            assert check.first_error is None and check.final_correct == (answer is not None)


def test_generate_cli_multiroom_mode(tmp_path) -> None:
    out = tmp_path / "mr"
    assert main(["stories", "generate", "--n", "4", "--mode", "multiroom", "--out", str(out), "--no-hf"]) == 0
    rows = [json.loads(line) for line in (out / "stories.jsonl").read_text().splitlines()]
    assert len(rows) == 20 and [r["question_order"] for r in rows[:5]] == [0, 1, 2, 3, 4]
    for row in rows:
        assert len(row["labels"]) == len(row["lines"]) and row["labels"][-1] == row["answer"]
        assert row["gold_trace"].count("## Step") == len(row["lines"])
    assert json.loads((out / "manifest.json").read_text())["config"]["mode"] == "multiroom"
