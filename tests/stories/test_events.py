"""Story sentences: render/parse round trip and errors that name the bad line."""

from __future__ import annotations

import pytest

from mindzero.core.errors import UserError
from mindzero.stories.events import Question, parse_question, parse_story, read_story
from mindzero.stories.templates import (
    Distractor,
    Enter,
    Exit,
    IsIn,
    Move,
    ObjectAt,
    PrivateTell,
    PublicClaim,
    Stay,
    parse_line,
)

EVENTS = [
    Enter(("Amelia", "Chloe", "Liam"), "TV_room"),
    Enter(("Amelia",), "hall"),
    ObjectAt("celery", "red_envelope"),
    Move("Chloe", "celery", "green_bucket"),
    Stay("Owen", "TV_room"),
    Exit("Owen", "TV_room"),
    Distractor("Chloe", "lost his", "watch"),
    Distractor("Noah", "dislikes the", "sweet_potato"),
    Distractor("Noah", "loves the", "red_box"),
    Distractor("Noah", "hates the", "pear"),
    IsIn("Owen", "TV_room"),
    PublicClaim("Liam", "celery", "white_bathtub"),
    PrivateTell("Benjamin", "Liam", "celery", "blue_drawer"),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_render_parse_round_trip(event) -> None:
    assert parse_line(event.render()) == event


def test_claims_with_now_and_article_parse() -> None:
    assert parse_line("Liam publicly claimed that celery is in the white_bathtub now.") == PublicClaim(
        "Liam", "celery", "white_bathtub"
    )
    assert parse_line("Benjamin privately told Liam that the celery is in the blue_drawer now.") == PrivateTell(
        "Benjamin", "Liam", "celery", "blue_drawer"
    )


def test_unparseable_line_names_number_and_text() -> None:
    story = "1 Amelia and Chloe entered the hall.\n2 The celery is in the red_box.\n3 Chloe juggled the celery.\n"
    with pytest.raises(UserError, match=r"line 3.*Chloe juggled the celery"):
        parse_story(story)


def test_unnumbered_line_after_start_is_an_error() -> None:
    with pytest.raises(UserError, match=r"line 2"):
        parse_story("1 Amelia and Chloe entered the hall.\nThe celery is in the red_box.")


def test_preamble_blank_lines_and_end_marker_are_skipped() -> None:
    story = "Read the following story.\n1 Amelia and Chloe entered the hall.\n\n2 The celery is in the red_box.\n\n***"
    assert parse_story(story) == [Enter(("Amelia", "Chloe"), "hall"), ObjectAt("celery", "red_box")]


def test_empty_story_is_an_error() -> None:
    with pytest.raises(UserError):
        parse_story("\n\n")


@pytest.mark.parametrize(
    "question",
    [
        Question((), "celery"),
        Question(("Owen",), "celery"),
        Question(("Owen", "Liam"), "celery"),
        Question(("Owen", "Liam", "Chloe", "Amelia"), "sweet_potato"),
        Question(("Owen",), "celery", "look"),
        Question(("Owen", "Liam"), "celery", "search"),
        Question((), "celery", "beginning"),
    ],
)
def test_question_round_trip(question: Question) -> None:
    assert parse_question(question.render()) == question


def test_bad_question_raises() -> None:
    with pytest.raises(UserError, match="unparseable question"):
        parse_question("Who ate the celery?")


def test_distractors_parse_without_the_final_period() -> None:
    assert parse_line("Noah loves the pear") == Distractor("Noah", "loves the", "pear")


def test_unnumbered_story_with_questions() -> None:
    story = read_story("Ann entered the hall.\nThe pear is in the red_box.\nWhere will Ann look for the pear?\n")
    assert story.events == [Enter(("Ann",), "hall"), ObjectAt("pear", "red_box")]
    assert story.numbers == [1, 2] and story.questions == [Question(("Ann",), "pear", "look")]


def test_unknown_sentences_are_ignored_only_when_asked_and_counted() -> None:
    story = "1 Ann entered the hall.\n2 Ann juggled.\n3 The pear is in the red_box.\n4 Ann sang a song."
    with pytest.raises(UserError, match=r"line 2.*Ann juggled"):
        read_story(story)
    read = read_story(story, ignore_unknown=True)
    assert read.ignored == [2, 4] and read.numbers == [1, 3] and len(read.events) == 2


def test_unknown_question_in_a_story_names_its_line() -> None:
    with pytest.raises(UserError, match=r"line 2: unparseable question: 'Where did Ann go\?'"):
        read_story("Ann entered the hall.\nWhere did Ann go?")


TEMPLATES = (
    "Anna entered the kitchen.\nBen entered the kitchen.\nThe apple is in the box.\n"
    "Anna moved the apple to the red_basket.\nBen exited the kitchen.\nAnna moved the apple to the box.\n"
)
OWN_WORDS = (
    "Anna and Ben are in the kitchen. The apple is in the box. Anna puts the apple into the red basket.\n"
    "Next, Ben leaves the kitchen. Then Anna quietly moves the apple back into the box.\n"
    "Where does Ben believe the apple is? Where does Anna believe Ben thinks the apple is? Where is the apple now?"
)


def test_a_story_in_its_own_words_is_read_as_the_templates_it_means() -> None:
    """A Sally-Anne story as a person writes it (several sentences a line, other verbs, a container
    of two words, adverbs): the same beliefs as the template story, every rewrite listed. Before, its
    first sentence was an error."""
    from mindzero.stories.ask import ask

    own, templates = read_story(OWN_WORDS), read_story(TEMPLATES)
    assert own.events[1:] == templates.events[2:] and own.events[0] == Enter(("Anna", "Ben"), "kitchen")
    assert [q.render() for q in own.questions] == [
        "Where does Ben really think the apple is?",
        "Where does Anna think Ben thinks the apple is?",
        "Where is the apple really?",
    ]
    answers = [a["answer"] for a in ask(own.events, own.questions, "hitom", own.numbers)["answers"]]
    assert answers == ["red_basket", "red_basket", "box"]
    quietly = (2, "Then Anna quietly moves the apple back into the box.", "Anna moved the apple to the box.")
    assert quietly in own.reworded
    assert len(own.reworded) == 7 and read_story(TEMPLATES).reworded == []


@pytest.mark.parametrize(
    "line",
    ["Anne swapped the marble and the ball.", "The marble rolled under the bed.", "He left."],
)
def test_a_wording_not_known_is_still_an_error_naming_it(line: str) -> None:
    with pytest.raises(UserError, match="unparseable sentence"):
        read_story("Sally and Anne are in the room. " + line)


def test_sally_and_anne_in_their_own_words() -> None:
    """The classic false-belief story as it is usually told: a possessive container, "took ... and
    put it in", and "She" for the agent of the sentence before."""
    from mindzero.stories.ask import ask

    story = read_story(
        "Sally and Anne are in the playroom. The marble is in Sally's basket. Sally leaves the playroom.\n"
        "Anne took the marble out of Sally's basket and put it in the box. She left the playroom.\n"
        "Where would Sally look for her marble first? Where is the marble now?"
    )
    assert story.events[1:] == [
        ObjectAt("marble", "Sally_basket"), Exit("Sally", "playroom"), Move("Anne", "marble", "box"),
        Exit("Anne", "playroom"),
    ]  # fmt: skip
    answers = [a["answer"] for a in ask(story.events, story.questions, "hitom", story.numbers)["answers"]]
    assert answers == ["Sally_basket", "box"]
    with pytest.raises(UserError, match="She left"):  # after a group, "She" is nobody in particular
        read_story("Sally and Anne are in the playroom. She left the playroom.")
    took = read_story("Anne is in the hall. Anne took the marble out and then put it in the box.")
    assert took.events[-1] == Move("Anne", "marble", "box")  # not the object "marble_out"


@pytest.mark.parametrize(
    ("line", "event"),
    [("Ann whispered to Bob that the pen is in the red bag.", PrivateTell("Ann", "Bob", "pen", "red_bag")),
     ("Ann told everyone that the pen is in the bag.", PublicClaim("Ann", "pen", "bag")),
     ("Ann stayed in the hall for a while.", Stay("Ann", "hall"))],
)  # fmt: skip
def test_telling_and_staying_in_own_words(line: str, event) -> None:
    assert read_story("Ann and Bob are in the hall. The pen is in the box. " + line).events[-1] == event


def test_leaving_without_naming_the_room_leaves_the_room_they_are_in() -> None:
    story = read_story("Sally and Anne are in the playroom. Sally leaves the room. Anne left.")
    assert story.events[1:] == [Exit("Sally", "playroom"), Exit("Anne", "playroom")]
    with pytest.raises(UserError, match="She left"):  # Sally is in no room any more
        read_story("Sally and Anne are in the playroom. Sally left the playroom. She left.")


def test_going_to_and_coming_back_to_a_room_enter_it() -> None:
    story = read_story("Sally and Anne went to the playroom. Sally left. Sally came back to the playroom.")
    assert story.events == [
        Enter(("Sally", "Anne"), "playroom"),
        Exit("Sally", "playroom"),
        Enter(("Sally",), "playroom"),
    ]
