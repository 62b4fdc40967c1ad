"""The DEL engine against an independent table tracker, and the hitom/del difference."""

from __future__ import annotations

from itertools import permutations

import pytest
from belief_tables import BeliefTables

from mindzero.core.errors import UserError
from mindzero.epistemic import Atom, believes_chain
from mindzero.stories.events import parse_story
from mindzero.stories.generator import generate_stories
from mindzero.stories.semantics import StorySimulator, atom_name
from mindzero.stories.templates import Enter, Exit, Move, ObjectAt, PrivateTell, Stay


def test_engine_equals_table_tracker_on_generated_questions() -> None:
    """>= 5,000 generated questions (orders 0-4, Tell and No_Tell, 1-3 chapters), every line."""
    n_questions = n_checks = 0
    orders, tells = set(), set()
    for story in generate_stories(1000, seed=11):
        tables = BeliefTables(story.agents)
        for i, event in enumerate(story.events):
            tables.step(event)
            for q, row in zip(story.questions, story.labels):
                assert row[i] == tables.get(q.chain, q.obj), (story.story_id, i, q)
                n_checks += 1
        n_questions += len(story.questions)
        orders.update(q.order for q in story.questions)
        tells.add(story.tell)
    assert n_questions >= 5000 and orders == {0, 1, 2, 3, 4} and tells == {True, False}
    assert n_checks > 100_000


@pytest.mark.parametrize("semantics", ["hitom", "del"])
def test_engine_equals_tracker_on_every_chain(semantics: str) -> None:
    """All 206 chains of distinct agents after each story, for both semantics."""
    for story in generate_stories(60, seed=5, semantics=semantics):
        sim, tables = StorySimulator(story.agents, semantics), BeliefTables(story.agents, semantics)
        for event in story.events:
            sim.step(event)
            tables.step(event)
        obj = story.questions[0].obj
        for k in range(5):
            for chain in permutations(story.agents, k):
                assert sim.belief(chain, obj) == tables.get(chain, obj), (story.story_id, chain)


def test_answers_agree_with_formula_satisfaction() -> None:
    """belief() is the container c with M, w |= B_a1 ... B_ak at(o, c)."""
    story = next(iter(generate_stories(1, seed=3, lengths=(1,))))
    sim = StorySimulator(story.agents)
    for event in story.events:
        sim.step(event)
    for q, answer in zip(story.questions, story.answers):
        assert sim.state.holds(believes_chain(q.chain, Atom(atom_name(q.obj, answer))))
        for other in story.containers:
            if other != answer:
                assert not sim.state.holds(believes_chain(q.chain, Atom(atom_name(q.obj, other))))


STORY = """1 Amelia, Chloe, Liam, Owen and Benjamin entered the TV_room.
2 The celery is in the red_envelope.
3 Amelia exited the TV_room.
4 Chloe moved the celery to the green_bucket.
5 Chloe exited the TV_room.
6 Liam moved the celery to the red_bathtub.
7 Liam exited the TV_room.
8 Owen exited the TV_room.
9 Benjamin exited the TV_room.
10 Amelia, Chloe, Liam, Owen and Benjamin entered the waiting_room.
11 Liam publicly claimed that celery is in the white_bathtub now.
12 Benjamin privately told Liam that the celery is in the blue_drawer now."""


def run(semantics: str, upto: int | None = None) -> StorySimulator:
    events = parse_story(STORY)
    sim = StorySimulator(("Amelia", "Chloe", "Liam", "Owen", "Benjamin"), semantics)
    for event in events[:upto]:
        sim.step(event)
    return sim


@pytest.mark.parametrize("semantics", ["hitom", "del"])
def test_paper_appendix_example(semantics: str) -> None:
    sim = run(semantics)
    assert sim.belief((), "celery") == "red_bathtub"
    assert sim.belief(("Owen", "Liam", "Chloe"), "celery") == (
        "green_bucket" if semantics == "hitom" else "white_bathtub"  # the paper's question; see below
    )
    # Amelia and Chloe left before Liam, so they believe his public claim; Owen does not.
    assert sim.belief(("Amelia",), "celery") == "white_bathtub"
    assert sim.belief(("Chloe",), "celery") == "white_bathtub"
    assert sim.belief(("Owen",), "celery") == "red_bathtub"
    # Liam left before Benjamin, so he believes the private tell; nobody else heard it.
    assert sim.belief(("Liam",), "celery") == "blue_drawer"
    assert sim.belief(("Liam", "Benjamin"), "celery") == "blue_drawer"
    assert sim.belief(("Owen", "Liam"), "celery") == "red_bathtub"


def test_beliefs_are_null_before_the_location_is_stated() -> None:
    sim = run("hitom", upto=1)
    assert sim.belief((), "celery") is None
    assert sim.belief(("Owen", "Liam"), "celery") is None
    sim = run("hitom", upto=2)
    assert sim.belief(("Owen", "Liam"), "celery") == "red_envelope"


def test_semantics_differ_on_higher_order_effects_of_a_public_claim() -> None:
    """The documented example: after Liam's claim, what does Owen think Chloe thinks?

    hitom: communication only touches first/second-order beliefs of the speaker and believers,
    so Owen's view of Chloe stays at what both last saw (green_bucket). del: the trust rule is
    common knowledge, Owen heard the claim and knows Chloe (who left before Liam) believes it.
    Owen thinks Amelia thinks Chloe thinks shows the same gap at order 3.
    """
    hitom, dl = run("hitom"), run("del")
    # The paper's App. A question: its gold answer is Hi-ToM's green_bucket.
    assert hitom.belief(("Owen", "Liam", "Chloe"), "celery") == "green_bucket"
    assert dl.belief(("Owen", "Liam", "Chloe"), "celery") == "white_bathtub"
    assert hitom.belief(("Owen", "Chloe"), "celery") == "green_bucket"
    assert dl.belief(("Owen", "Chloe"), "celery") == "white_bathtub"
    assert hitom.belief(("Owen", "Amelia", "Chloe"), "celery") == "red_envelope"  # Amelia left first
    assert dl.belief(("Owen", "Amelia", "Chloe"), "celery") == "white_bathtub"
    # hitom's speaker thinks every listener believes him; in del Liam knows Owen does not.
    assert hitom.belief(("Liam", "Owen"), "celery") == "white_bathtub"
    assert dl.belief(("Liam", "Owen"), "celery") == "red_bathtub"


def test_semantics_agree_without_communication() -> None:
    for story in generate_stories(30, seed=2, lengths=(1, 2, 3)):
        if story.tell:
            continue
        a, b = StorySimulator(story.agents, "hitom"), StorySimulator(story.agents, "del")
        for event in story.events:
            a.step(event)
            b.step(event)
        for q in story.questions:
            assert a.belief(q.chain, q.obj) == b.belief(q.chain, q.obj)


def test_trust_rule() -> None:
    sim = run("hitom", upto=9)
    w = sim.world
    assert w.trusts("Liam", "Amelia", "celery") and w.trusts("Liam", "Chloe", "celery")
    assert not w.trusts("Liam", "Owen", "celery") and not w.trusts("Liam", "Benjamin", "celery")
    assert w.trusts("Benjamin", "Liam", "celery")


def test_outsiders_trust_and_entering_shows_the_room() -> None:
    events = [
        Enter(("Ann", "Bob"), "hall"),
        ObjectAt("pear", "red_box"),
        Move("Ann", "pear", "blue_box"),
        Exit("Ann", "hall"),
        Stay("Bob", "hall"),
        Exit("Bob", "hall"),
        Enter(("Ann", "Bob"), "waiting_room"),
        PrivateTell("Bob", "Cid", "pear", "green_box"),
        Enter(("Cid",), "hall"),
    ]
    sim = StorySimulator(("Ann", "Bob", "Cid"))
    for event in events[:-1]:
        sim.step(event)
    assert sim.belief(("Cid",), "pear") == "green_box"  # never in the hall: trusts Bob
    sim.step(events[-1])
    assert sim.belief(("Cid",), "pear") == "blue_box"  # entering the hall shows the pear
    assert sim.belief(("Ann", "Cid"), "pear") is None  # Ann saw neither the tell nor Cid enter
    assert sim.belief(("Bob", "Cid"), "pear") == "green_box"  # what Bob told Cid


def test_unknown_agent_and_semantics_raise() -> None:
    with pytest.raises(UserError, match="unknown semantics"):
        StorySimulator(("Ann",), "magic")
    with pytest.raises(UserError, match="unknown agent"):
        StorySimulator(("Ann",)).step(Move("Zed", "pear", "box"))


def test_models_stay_small() -> None:
    worst = max(s.max_worlds for s in generate_stories(90, seed=4))
    assert 2 < worst <= 40


def test_every_event_compiles_to_an_event_model_and_noops_are_identities() -> None:
    from mindzero.epistemic import Action, update

    story = next(s for s in generate_stories(9, seed=6) if s.tell and s.length == 3)
    sim = StorySimulator(story.agents)
    kinds = set()
    for event in story.events:
        action = sim.compile(event)
        assert isinstance(action, Action) and len(action.model.events) >= 1
        kinds.add(type(event).__name__)
        if action is sim.noop:
            before = [sim.belief(q.chain, q.obj) for q in story.questions]
            applied = update(sim.state, action)
            assert applied.model.n_worlds == sim.state.model.n_worlds
        sim.step(event)
        if action is sim.noop:
            assert [sim.belief(q.chain, q.obj) for q in story.questions] == before
    assert {"Enter", "ObjectAt", "Exit"} <= kinds and kinds & {"PublicClaim", "PrivateTell"}
