"""Contents told when the person opens a container, as a storyteller walks through a flat: moved
out of the action and read as the apartment at the start. Every story here was written for these
tests."""

from __future__ import annotations

from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.mmtom.revealed import move_revealed_contents

QUESTION = "\nIs Lea trying to get (a) a salmon or (b) a cupcake?"
FLAT = "Lea's flat has a kitchen and a living room. The kitchen has a fridge, a microwave, three cabinets and a stove. "


def read(story: str) -> dict:
    return read_question(FLAT + story + QUESTION).to_json()


def test_contents_in_a_dash_a_colon_a_semicolon_or_a_relative_clause_belong_to_what_was_opened() -> None:
    story = (
        "Lea is in the living room. She walks into the kitchen, goes to the third cabinet, opens it — two plates — and "
        "closes it. Then she opens the fridge: nothing inside. She shuts it. She opens the microwave; a salmon "
        "and an apple were in there. She closes it. She opens the first cabinet, which held a book, and closes it."
    )
    read_ = read(story)
    places = read_["scene"]["places"]
    assert places["kitchen/kitchencabinet/3"] == {"plate": 2}
    assert places["kitchen/fridge"] == {}
    assert places["kitchen/microwave"] == {"salmon": 1, "apple": 1}
    assert places["kitchen/kitchencabinet/1"] == {"book": 1}
    assert read_["story"]["visits"] == [
        "kitchen/kitchencabinet/3 (opened)",
        "kitchen/fridge (opened)",
        "kitchen/microwave (opened)",
        "kitchen/kitchencabinet/1 (opened)",
    ]


def test_it_after_reaching_a_container_a_room_reached_and_what_she_would_find() -> None:
    story = (
        "Lea starts in the living room - a sofa and a desk in there. She heads into the kitchen. "
        "There's a kitchen table there with a cupcake on it. She walks to the second cabinet. "
        "(It's empty, as it happens.) She goes to the stove and is about to open it. "
        "If she does, she'll find a salmon inside."
    )
    places = read(story)["scene"]["places"]
    assert set(places) >= {"livingroom/sofa", "livingroom/desk", "kitchen/kitchentable"}
    assert places["kitchen/kitchentable"] == {"cupcake": 1}
    assert places["kitchen/kitchencabinet/2"] == {}
    assert places["kitchen/stove"] == {"salmon": 1}


def test_a_label_of_what_was_never_opened_is_no_action() -> None:
    story = (
        "Lea is in the kitchen. She opens the fridge — empty — and closes it.\n"
        "What she never opened: the microwave had a cupcake in it, and the stove a salmon."
    )
    read_ = read(story)
    assert read_["scene"]["places"]["kitchen/microwave"] == {"cupcake": 1}
    assert read_["story"]["visits"] == ["kitchen/fridge (opened)"]


def test_a_description_that_only_mentions_inside_is_left_as_written() -> None:
    text = "The kitchen has a stove and a fridge. Inside the fridge, there are two apples."
    assert move_revealed_contents(text) == (text, [])
    said = "She opens the fridge - she is hungry - and closes it."  # an aside about her, no contents
    assert move_revealed_contents(said)[0] == said


def test_an_answer_after_whats_inside_an_and_theres_and_a_picture_of_the_room() -> None:
    story = (
        "Lea starts in the living room. She goes to the kitchen. Picture it: a fridge, a microwave, a stove and "
        "three cabinets. She opens the microwave. What's inside? A cupcake and a plate. She closes it. She opens the "
        "first cabinet, and there's a book in there. She shuts it. She opens the fridge. Nothing, it's empty."
    )
    text = "Lea's flat has a kitchen and a living room. " + story + QUESTION
    places = read_question(text).to_json()["scene"]["places"]
    assert places["kitchen/microwave"] == {"cupcake": 1, "plate": 1}
    assert places["kitchen/kitchencabinet/1"] == {"book": 1}
    assert places["kitchen/fridge"] == {}


def test_a_bedtime_tellings_tag_questions_and_its_question_about_what_was_inside() -> None:
    story = (
        "One day Lea was in the living room. And off she went to the kitchen. She went over to the microwave, and "
        "she opened it - and what do you think was inside? Two plates! So she shut it again. Then she opened the "
        "stove, and it was empty as well, wasn't it? And she closed it up."
    )
    read_ = read(story)
    assert read_["story"]["start"] == "livingroom"
    assert read_["story"]["visits"] == ["kitchen/microwave (opened)", "kitchen/stove (opened)"]
    assert read_["scene"]["places"]["kitchen/microwave"] == {"plate": 2}
