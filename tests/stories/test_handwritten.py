"""Hand-written multi-room stories, answered by hand (not generated): every question form.

Rules a reader applies: an event in a room is seen by exactly the agents in that room at that
line, and each of them sees the others see it; an agent entering a room sees the objects lying
there; entering a room leaves the previous one; 'The O is in the C.' happens in the container's
room, or for a new container in the room entered last. Claims follow Hi-ToM's trust rule per
room (``hitom`` semantics). ``None``: the agent never learnt where the object is.
"""

from __future__ import annotations

import pytest

from mindzero.stories.events import QUESTION_FORMS, parse_question, read_story
from mindzero.stories.semantics import StorySimulator, story_agents

STORIES = [
    (  # the example: a second single entry does not remove the first agent
        """1 Isabella entered the den.
2 Olivia entered the den.
3 The broccoli is in the blue_pantry.
4 Isabella exited the den.
5 Olivia moved the broccoli to the red_drawer.""",
        {
            "Where does Isabella think the broccoli is?": "blue_pantry",
            "Where will Olivia look for the broccoli?": "red_drawer",
            "Where does Olivia think that Isabella searches for the broccoli?": "blue_pantry",
            "Where was the broccoli at the beginning?": "blue_pantry",
            "Where is the broccoli really?": "red_drawer",
            "Where does Isabella think Olivia thinks the broccoli is?": "blue_pantry",
        },
    ),
    (  # two rooms at once: Ann is in the kitchen while the apple is handled in the garage
        """1 Ann entered the kitchen.
2 Bob entered the garage.
3 The apple is in the red_box.
4 Bob moved the apple to the blue_crate.""",
        {
            "Where does Ann think the apple is?": None,
            "Where will Bob look for the apple?": "blue_crate",
            "Where was the apple at the beginning?": "red_box",
            "Where does Bob think that Ann searches for the apple?": None,
        },
    ),
    (  # leave one room, enter another, come back
        """1 Ann and Bob entered the kitchen.
2 The pear is in the green_bowl.
3 Ann exited the kitchen.
4 Ann entered the garden.
5 The plum is in the red_pot.
6 Bob entered the garden.
7 Ann moved the plum to the blue_tub.
8 Ann entered the kitchen.
9 Bob moved the plum to the red_pot.""",
        {
            "Where does Ann think the plum is?": "blue_tub",
            "Where does Bob think Ann thinks the plum is?": "blue_tub",
            "Where does Ann think Bob thinks the pear is?": "green_bowl",
            "Where is the plum really?": "red_pot",
            "Where was the plum at the beginning?": "red_pot",
            "Where will Bob look for the plum?": "red_pot",
        },
    ),
    (  # re-entry shows the moved object, and Dee sees Cid see it
        """1 Cid entered the attic.
2 Dee entered the attic.
3 The lime is in the red_case.
4 Cid exited the attic.
5 Dee moved the lime to the green_jar.
6 Cid entered the attic.""",
        {
            "Where does Cid think the lime is?": "green_jar",
            "Where does Dee think that Cid searches for the lime?": "green_jar",
            "Where does Cid think Dee thinks the lime is?": "green_jar",
            "Where was the lime at the beginning?": "red_case",
        },
    ),
    (
        """1 Ann, Bob and Cid entered the hall.
2 The kiwi is in the red_box.
3 Cid exited the hall.
4 Bob moved the kiwi to the blue_box.
5 Bob exited the hall.
6 Ann moved the kiwi to the green_box.""",
        {
            "Where does Cid think the kiwi is?": "red_box",
            "Where does Bob think the kiwi is?": "blue_box",
            "Where does Bob think Ann thinks the kiwi is?": "blue_box",
            "Where does Ann think Bob thinks the kiwi is?": "blue_box",
            "Where does Ann think Cid thinks the kiwi is?": "red_box",
            "Where does Bob think Cid thinks the kiwi is?": "red_box",
            "Where is the kiwi really?": "green_box",
            "Where does Ann think Bob thinks Cid thinks the kiwi is?": "red_box",
        },
    ),
    (  # 'A is in the R.' places an agent; saying it again changes nothing
        """1 Eve is in the study.
2 The pen is in the red_cup.
3 Fay is in the study.
4 Eve is in the study.
5 Eve moved the pen to the blue_tray.""",
        {
            "Where will Fay look for the pen?": "blue_tray",
            "Where does Fay think that Eve searches for the pen?": "blue_tray",
            "Where was the pen at the beginning?": "red_cup",
        },
    ),
    (  # preferences are distractors, with or without the final period
        """1 Gus entered the cellar.
2 Gus likes the red_barrel
3 The onion is in the red_barrel.
4 Hal loves the onion.
5 Gus exited the cellar.
6 Hal entered the cellar.
7 Hal moved the onion to the green_sack.
8 Gus hates the green_sack.""",
        {
            "Where will Gus look for the onion?": "red_barrel",
            "Where does Hal think Gus thinks the onion is?": None,
            "Where is the onion really?": "green_sack",
        },
    ),
    (
        """1 Ivy entered the porch.
2 Jon and Kim entered the garage.
3 The nut is in the red_tin.
4 Jon exited the garage.
5 Jon entered the porch.
6 Kim moved the nut to the blue_tin.
7 Jon entered the garage.""",
        {
            "Where does Jon think the nut is?": "blue_tin",
            "Where does Ivy think the nut is?": None,
            "Where does Kim think Jon thinks the nut is?": "blue_tin",
            "Where does Jon think that Kim searches for the nut?": "blue_tin",
            "Where was the nut at the beginning?": "red_tin",
        },
    ),
    (  # two objects in two rooms
        """1 Ann entered the kitchen.
2 The fig is in the red_jar.
3 Bob entered the office.
4 The cup is in the blue_desk.
5 Ann entered the office.
6 Bob moved the cup to the green_shelf.
7 Bob entered the kitchen.
8 Bob moved the fig to the blue_bin.""",
        {
            "Where does Ann think the fig is?": "red_jar",
            "Where does Ann think the cup is?": "green_shelf",
            "Where does Bob think Ann thinks the fig is?": None,
            "Where does Ann think Bob thinks the cup is?": "green_shelf",
            "Where is the fig really?": "blue_bin",
            "Where was the cup at the beginning?": "blue_desk",
        },
    ),
    (  # a public claim: Ann left the hall before Bob, so she believes him
        """1 Ann and Bob entered the hall.
2 The egg is in the red_pan.
3 Ann exited the hall.
4 Bob moved the egg to the blue_pot.
5 Bob exited the hall.
6 Bob publicly claimed that egg is in the green_bowl.""",
        {
            "Where does Ann think the egg is?": "green_bowl",
            "Where does Bob think the egg is?": "blue_pot",
            "Where does Bob think Ann thinks the egg is?": "green_bowl",
            "Where is the egg really?": "blue_pot",
        },
    ),
    (  # the speaker is still in the room: a listener who left trusts it
        """1 Ann and Bob entered the hall.
2 The egg is in the red_pan.
3 Ann exited the hall.
4 Ann entered the garden.
5 Bob moved the egg to the blue_pot.
6 Bob publicly claimed that egg is in the green_bowl.""",
        {
            "Where will Ann look for the egg?": "green_bowl",
            "Where will Bob look for the egg?": "blue_pot",
        },
    ),
    (  # a private tell to a listener who left after the speaker is not believed
        """1 Ann and Bob entered the den.
2 The key is in the red_box.
3 Bob exited the den.
4 Ann moved the key to the blue_box.
5 Ann exited the den.
6 Bob privately told Ann that the key is in the green_box.""",
        {
            "Where does Ann think the key is?": "blue_box",
            "Where does Bob think Ann thinks the key is?": "green_box",
            "Where does Bob think the key is?": "red_box",
            "Where does Ann think Bob thinks the key is?": "red_box",
        },
    ),
    (  # a listener who was never in the key's room trusts
        """1 Ann entered the den.
2 The key is in the red_box.
3 Ann exited the den.
4 Cid entered the yard.
5 Ann privately told Cid that the key is in the blue_box.""",
        {
            "Where does Cid think the key is?": "blue_box",
            "Where does Cid think Ann thinks the key is?": "blue_box",
            "Where is the key really?": "red_box",
            "Where was the key at the beginning?": "red_box",
        },
    ),
    (
        """1 Liz entered the lab.
2 Max entered the lab.
3 The vial is in the red_rack.
4 Max exited the lab.
5 Max entered the shed.
6 Liz moved the vial to the green_rack.
7 Max exited the shed.
8 Max entered the lab.
9 Liz exited the lab.
10 Max moved the vial to the blue_rack.""",
        {
            "Where does Liz think the vial is?": "green_rack",
            "Where does Max think Liz thinks the vial is?": "green_rack",
            "Where does Liz think Max thinks the vial is?": "green_rack",
            "Where will Max look for the vial?": "blue_rack",
            "Where was the vial at the beginning?": "red_rack",
        },
    ),
    (  # a Hi-ToM chapter written with single entries
        """1 Ann entered the hall.
2 Bob entered the hall.
3 Cid entered the hall.
4 The cake is in the red_tin.
5 Ann exited the hall.
6 Bob moved the cake to the blue_tin.
7 Bob exited the hall.
8 Cid moved the cake to the green_tin.
9 Cid exited the hall.""",
        {
            "Where does Ann think the cake is?": "red_tin",
            "Where does Bob think the cake is?": "blue_tin",
            "Where does Cid think Bob thinks the cake is?": "blue_tin",
            "Where does Bob think Ann thinks the cake is?": "red_tin",
            "Where does Cid think that Ann searches for the cake?": "red_tin",
            "Where is the cake really?": "green_tin",
        },
    ),
    (  # a known container keeps its room: nobody sees the corn put into the barn's red_bin
        """1 Ann entered the barn.
2 The hay is in the red_bin.
3 The corn is in the blue_bin.
4 Ann exited the barn.
5 Ann entered the shed.
6 The corn is in the red_bin.""",
        {
            "Where does Ann think the corn is?": "blue_bin",
            "Where is the corn really?": "red_bin",
            "Where was the corn at the beginning?": "blue_bin",
            "Where will Ann look for the hay?": "red_bin",
        },
    ),
    (  # a group enters a room where someone already is
        """1 Ann entered the loft.
2 The ball is in the red_box.
3 Bob and Cid entered the loft.
4 Ann exited the loft.
5 Bob moved the ball to the blue_box.""",
        {
            "Where does Ann think Cid thinks the ball is?": "red_box",
            "Where does Cid think Bob thinks the ball is?": "blue_box",
            "Where does Bob think that Ann searches for the ball?": "red_box",
            "Where will Ann look for the ball?": "red_box",
        },
    ),
    (
        """1 Dan is in the bath.
2 The soap is in the red_tray.
3 Eva is in the hall.
4 Dan moved the soap to the blue_tray.
5 Eva is in the bath.
6 Dan is in the bath.""",
        {
            "Where does Eva think the soap is?": "blue_tray",
            "Where does Eva think Dan thinks the soap is?": "blue_tray",
            "Where was the soap at the beginning?": "red_tray",
            "Where does Dan think that Eva searches for the soap?": "blue_tray",
        },
    ),
    (  # three rooms
        """1 Ann entered the den.
2 Bob entered the hall.
3 Cid entered the yard.
4 The toy is in the red_box.
5 Bob entered the yard.
6 Cid entered the den.
7 Bob moved the toy to the blue_box.
8 Ann entered the yard.""",
        {
            "Where does Cid think the toy is?": "red_box",
            "Where does Ann think the toy is?": "blue_box",
            "Where does Ann think Bob thinks the toy is?": "blue_box",
            "Where does Bob think Cid thinks the toy is?": "red_box",
            "Where does Ann think Cid thinks the toy is?": None,
            "Where is the toy really?": "blue_box",
        },
    ),
    (
        """1 Ann and Bob entered the den.
2 The hat is in the red_box.
3 Ann made no movements and stayed in the den for 1 minute.
4 Bob exited the den.
5 Bob entered the hall.
6 Ann moved the hat to the blue_box.""",
        {
            "Where does Bob think the hat is?": "red_box",
            "Where does Ann think Bob thinks the hat is?": "red_box",
            "Where is the hat really?": "blue_box",
        },
    ),
    (
        """1 Ann entered the den.
2 The pie is in the red_box.
3 Bob entered the den.
4 Ann exited the den.
5 Bob moved the pie to the blue_box.
6 Ann entered the den.
7 Bob exited the den.
8 Ann moved the pie to the green_box.
9 Bob entered the den.""",
        {
            "Where does Bob think the pie is?": "green_box",
            "Where does Ann think Bob thinks the pie is?": "green_box",
            "Where was the pie at the beginning?": "red_box",
            "Where does Bob think that Ann searches for the pie?": "green_box",
        },
    ),
    (  # two objects in one room, seen by different agents
        """1 Ann entered the den.
2 The pen is in the red_box.
3 Bob entered the den.
4 The cup is in the blue_box.
5 Ann exited the den.
6 Bob moved the pen to the blue_box.
7 Bob moved the cup to the red_box.""",
        {
            "Where does Ann think the pen is?": "red_box",
            "Where does Ann think the cup is?": "blue_box",
            "Where does Bob think Ann thinks the cup is?": "blue_box",
            "Where is the cup really?": "red_box",
            "Where was the cup at the beginning?": "blue_box",
        },
    ),
    (  # one sentence per line, no numbers
        """Ann entered the den.
The fig is in the red_jar.
Ann exited the den.
Bob entered the den.
Bob moved the fig to the blue_jar.""",
        {
            "Where does Ann think the fig is?": "red_jar",
            "Where does Bob think Ann thinks the fig is?": None,
            "Where will Bob look for the fig?": "blue_jar",
        },
    ),
    (  # a listener who was never in the gem's room believes a claim from someone still there
        """1 Ann entered the den.
2 The gem is in the red_box.
3 Ann moved the gem to the blue_box.
4 Bob entered the hall.
5 Ann publicly claimed that gem is in the green_box.""",
        {
            "Where does Bob think the gem is?": "green_box",
            "Where does Bob think Ann thinks the gem is?": "green_box",
            "Where will Ann look for the gem?": "blue_box",
            "Where is the gem really?": "blue_box",
        },
    ),
    (  # a listener still in the room does not believe; hitom's speaker thinks it does
        """1 Ann and Bob entered the den.
2 The gem is in the red_box.
3 Ann exited the den.
4 Ann publicly claimed that gem is in the green_box.""",
        {
            "Where does Bob think the gem is?": "red_box",
            "Where does Ann think that Bob searches for the gem?": "green_box",
            "Where does Ann think the gem is?": "red_box",
        },
    ),
    (
        """1 Ann and Bob entered the den.
2 The map is in the red_box.
3 Ann exited the den.
4 Ann entered the hall.
5 Bob moved the map to the blue_box.
6 Bob exited the den.
7 Bob privately told Ann that the map is in the blue_box.""",
        {
            "Where does Ann think the map is?": "blue_box",
            "Where does Ann think Bob thinks the map is?": "blue_box",
            "Where does Bob think Ann thinks the map is?": "blue_box",
            "Where was the map at the beginning?": "red_box",
        },
    ),
    (  # entering shows every object in the room
        """1 Ann entered the den.
2 The pen is in the red_box.
3 The cup is in the blue_box.
4 Ann exited the den.
5 Bob entered the den.
6 Bob moved the cup to the red_box.""",
        {
            "Where will Ann look for the cup?": "blue_box",
            "Where does Bob think the pen is?": "red_box",
            "Where does Bob think Ann thinks the cup is?": None,
            "Where is the cup really?": "red_box",
        },
    ),
    (  # going to another room without an exit line stops observing the first
        """1 Ann entered the den.
2 Bob entered the den.
3 The pen is in the red_box.
4 Bob entered the hall.
5 Ann moved the pen to the blue_box.""",
        {
            "Where does Bob think the pen is?": "red_box",
            "Where does Ann think Bob thinks the pen is?": "red_box",
            "Where is the pen really?": "blue_box",
        },
    ),
    (
        """1 Ann, Bob and Cid entered the den.
2 The pen is in the red_box.
3 Cid entered the hall.
4 Dan entered the hall.
5 Bob moved the pen to the blue_box.
6 Ann entered the hall.
7 Bob moved the pen to the green_box.""",
        {
            "Where does Ann think Bob thinks Cid thinks the pen is?": "red_box",
            "Where does Bob think Ann thinks the pen is?": "blue_box",
            "Where does Dan think the pen is?": None,
            "Where will Bob look for the pen?": "green_box",
            "Where was the pen at the beginning?": "red_box",
        },
    ),
    (
        """1 Ann entered the den.
2 Ann saw a cat.
3 The pen is in the red_box.
4 Bob dislikes the pen
5 Bob entered the den.
6 Ann exited the den.
7 Bob moved the pen to the blue_box.
8 Ann loves the blue_box""",
        {
            "Where does Ann think the pen is?": "red_box",
            "Where does Bob think that Ann searches for the pen?": "red_box",
            "Where is the pen really?": "blue_box",
        },
    ),
]


@pytest.mark.parametrize("story,expected", STORIES, ids=[f"story{i + 1}" for i in range(len(STORIES))])
def test_hand_answered_story(story: str, expected: dict[str, str | None]) -> None:
    text = read_story(story + "\n" + "\n".join(expected))
    sim = StorySimulator(story_agents(text.events), story=text.events)
    for event in text.events:
        sim.step(event)
    assert [sim.answer(q) for q in text.questions] == list(expected.values())


def test_every_question_form_is_asked() -> None:
    questions = [parse_question(q) for _, qs in STORIES for q in qs]
    assert len(STORIES) >= 30
    assert {q.form for q in questions} == set(QUESTION_FORMS)
    assert {q.order for q in questions if q.form == "think"} == {0, 1, 2, 3}


def test_semantics_differ_when_a_listener_is_still_in_the_room() -> None:
    """Ann left the den and claims the gem moved; Bob, still in the den, sees it did not.

    hitom: the speaker thinks every listener believes her, so Ann thinks Bob searches the
    green_box. del: the trust rule is common knowledge and Ann knows Bob is still in the den (she
    saw him there when she left), so she knows he keeps the red_box. Bob's own belief is the same.
    """
    story = """1 Ann and Bob entered the den.
2 The gem is in the red_box.
3 Ann exited the den.
4 Ann publicly claimed that gem is in the green_box."""
    beliefs = {}
    for semantics in ("hitom", "del"):
        sim = StorySimulator(("Ann", "Bob"), semantics)
        for event in read_story(story).events:
            sim.step(event)
        beliefs[semantics] = (sim.belief(("Bob",), "gem"), sim.belief(("Ann", "Bob"), "gem"))
    assert beliefs == {"hitom": ("red_box", "green_box"), "del": ("red_box", "red_box")}
