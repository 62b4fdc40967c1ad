"""Stories whose container rooms are implicit (issue 43): set (c), answered by hand.

``tests/data/stories_implicit/stories.yaml`` holds the stories, each question's hand answer and a
one-line derivation; impossible stories hold the one-line error they must raise. Every story runs
under both semantics; an answer given per semantics is checked under each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mindzero.core.errors import UserError
from mindzero.stories.events import Question, parse_question, read_story
from mindzero.stories.semantics import SEMANTICS, StorySimulator, engine_labels, story_agents

DATA = Path(__file__).resolve().parents[1] / "data" / "stories_implicit" / "stories.yaml"
RECORDS = yaml.safe_load(DATA.read_text())
ANSWERED = [r for r in RECORDS if "error" not in r]
IMPOSSIBLE = [r for r in RECORDS if "error" in r]


def run(story: str, semantics: str) -> StorySimulator:
    events = read_story(story).events
    sim = StorySimulator(story_agents(events), semantics, events)
    for event in events:
        sim.step(event)
    return sim


@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("record", ANSWERED, ids=[r["id"] for r in ANSWERED])
def test_hand_answers(record: dict, semantics: str) -> None:
    sim = run(record["story"], semantics)
    for q in record["questions"]:
        answer = q["answer"][semantics] if isinstance(q["answer"], dict) else q["answer"]
        assert sim.answer(parse_question(q["question"])) == answer, (q["question"], q["why"])


@pytest.mark.parametrize("semantics", SEMANTICS)
@pytest.mark.parametrize("record", IMPOSSIBLE, ids=[r["id"] for r in IMPOSSIBLE])
def test_impossible_moves_are_rejected(record: dict, semantics: str) -> None:
    with pytest.raises(UserError) as err:
        run(record["story"], semantics)
    assert record["error"] in str(err.value) and "\n" not in str(err.value)


def test_the_set() -> None:
    """At least 30 answered stories and 3 impossible ones; every order and question form is asked,
    and a few answers depend on the semantics."""
    questions = [q for r in ANSWERED for q in r["questions"]]
    asked = [parse_question(q["question"]) for q in questions]
    assert len(ANSWERED) >= 30 and len(IMPOSSIBLE) >= 3
    assert all(q["why"] for q in questions) and all(r["why"] for r in IMPOSSIBLE)
    assert {q.order for q in asked if q.form == "think"} == {0, 1, 2, 3, 4}
    assert {q.form for q in asked} == {"think", "look", "search", "beginning"}
    assert sum(isinstance(q["answer"], dict) for q in questions) >= 2


def test_a_later_move_places_the_container_from_the_start() -> None:
    """Hunter saw line 3 (the chest is in his closet), Emma never did, at every line."""
    events = read_story(ANSWERED[0]["story"]).events
    labels = {a: engine_labels(events, Question((a,), "lemon")) for a in ("Hunter", "Emma")}
    assert labels == {"Hunter": [None, None, "blue_treasure_chest", "red_bucket"], "Emma": [None] * 4}
