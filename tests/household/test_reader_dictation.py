"""The household reader on stories told without punctuation (dictated to a phone, or typed as one
run-on): :mod:`mindzero.domains.household.mmtom.dictation` cuts them where a speaker starts
something new. Every story here was written for these tests; each asserts the state its meaning gives."""

from __future__ import annotations

from mindzero.domains.household.mmtom.dictation import punctuate_run_ons
from mindzero.domains.household.mmtom.reader import read_question

DICTATED = (
    "okay so the apartment has a kitchen a bedroom and a living room um in the kitchen there's a fridge a stove "
    "and four cabinets the first cabinet has two apples and the second one has a wine glass the third and fourth "
    "cabinets are empty and the fridge has a salmon and a plate living room has a sofa and a coffee table on the "
    "coffee table there's a book okay so mary is in the living room she walks to the kitchen and goes to the second "
    "cabinet and opens it and closes it then she walks toward the fridge so which is more likely option a mary has "
    "been trying to get an apple or option b mary has been trying to get a salmon answer a or b"
)


def test_a_dictated_story_is_cut_into_its_sentences_and_read_whole() -> None:
    reading = read_question(DICTATED)
    places = reading.to_json()["scene"]["places"]
    assert places["kitchen/kitchencabinet/1"] == {"apple": 2}
    assert places["kitchen/kitchencabinet/2"] == {"wineglass": 1}
    assert places["kitchen/kitchencabinet/3"] == places["kitchen/kitchencabinet/4"] == {}
    assert places["kitchen/fridge"] == {"salmon": 1, "plate": 1}  # not the living room's: cut before "living room has"
    assert places["livingroom/coffeetable"] == {"book": 1}
    story = reading.to_json()["story"]
    assert story["person"] == "Mary" and story["start"] == "livingroom"
    assert story["visits"] == ["kitchen/kitchencabinet/2 (opened)", "kitchen/fridge"]
    assert reading.query.options == ("apple", "salmon")
    notes = [u for u in reading.unread if u["part"] == "dictation"]
    assert len(notes) == 1 and "sentence breaks" in notes[0]["why"] and not notes[0]["acts"]
    assert not reading.blockers()


def test_a_place_that_opens_a_clause_starts_a_new_sentence_not_the_last_ones_place() -> None:
    # "a salmon cooking in the stove in the living room there's ...": the salmon is in the stove,
    # and the living room's sentence starts at "in the living room", not at "in the stove"
    text = (
        "so the flat has a kitchen and a living room the kitchen has a stove a fridge and two cabinets the first "
        "cabinet has an apple and the second cabinet's empty and there's a salmon cooking in the stove in the living "
        "room there's a sofa and on the sofa there's a remote control and the fridge is empty too um tom starts out in "
        "the living room then he goes to the kitchen and walks over to the stove question does tom think the salmon "
        "is inside the stove option a yes option b no"
    )
    places = read_question(text).to_json()["scene"]["places"]
    assert places["kitchen/stove"] == {"salmon": 1}
    assert places["livingroom/sofa"] == {"remotecontrol": 1}
    assert places["kitchen/kitchencabinet/1"] == {"apple": 1} and places["kitchen/kitchencabinet/2"] == {}


def test_punctuated_text_is_left_exactly_as_it_is() -> None:
    text = "The kitchen has a fridge. The fridge holds an apple and a plate and a salmon. " * 6
    assert punctuate_run_ons(text) == (text, [])
    short = "okay so mary is in the kitchen she walks to the fridge"  # under the run-on length: left alone
    assert punctuate_run_ons(short) == (short, [])


def test_repeating_a_process_with_two_places_opens_both() -> None:
    # "He repeats this process with the third and second kitchen cabinets." (an MMToM-QA wording the
    # reader missed until written as dictation showed it): both are opened and closed
    text = (
        "The kitchen has four cabinets and a microwave. The first cabinet holds a plate; the others are empty.\n"
        "Dan is in the kitchen. He walks to the first kitchen cabinet, opens it and closes it. He repeats this process "
        "with the third and second kitchen cabinets. Then he walks towards the microwave.\n"
        "What is Dan trying to get? (a) a plate (b) a salmon"
    )
    visits = read_question(text).to_json()["story"]["visits"]
    assert visits[:3] == [f"kitchen/kitchencabinet/{i} (opened)" for i in (1, 3, 2)]


def test_a_dictated_question_asked_by_name_and_theres_without_an_apostrophe() -> None:
    text = (
        "ok so theres a kitchen and a bedroom um the kitchen has a fridge a microwave and three cupboards the fridge "
        "has two apples and a salmon and the microwave has a cupcake the first cupboard has a plate and the other two "
        "are empty in the bedroom theres a desk with a book on it alright so priya starts in the bedroom she walks to "
        "the kitchen opens the fridge closes it and then walks over to the microwave so is priya looking for option a "
        "an apple or option b a cupcake"
    )
    reading = read_question(text)
    places = reading.to_json()["scene"]["places"]
    # "... are empty in the bedroom theres a desk": the cupboards stay in the kitchen
    assert places["kitchen/kitchencabinet/1"] == {"plate": 1} and "bedroom/cabinet" not in places
    assert places["bedroom/desk"] == {"book": 1}
    story = reading.to_json()["story"]
    assert (story["person"], story["start"]) == ("Priya", "bedroom")  # named in "so is priya looking for"
    assert story["visits"] == ["kitchen/fridge (opened)", "kitchen/microwave"]
    assert reading.query.options == ("apple", "cupcake")


def test_a_childs_retelling_misspellings_and_chains_of_and() -> None:
    """Two-edit misspellings of long words ("cubbord"), a paragraph line that ends without a full
    stop, clauses chained by "and" with no comma, and "opens and closes each one" after a list of
    places told over several sentences."""
    story = (
        "there is a kichen and a bedroom. the kichen has a fridge and three cubbords and a micowave and a salmon is in "
        "the fridge and a cupcake and an apple are in the micowave and the cubbords are empty\n"
        "tom is in the bedroom and then he goes to the kichen and then he goes up to the third cubbord and then the "
        "first one and then the second and he opens and closes each one and then he walks to the fridge\n"
    )
    s = read_question(story + "is tom trying to get (a) a salmon or (b) a cupcake")
    assert s.to_json()["scene"]["places"] == {
        "kitchen/fridge": {"salmon": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {},
        "kitchen/microwave": {"apple": 1, "cupcake": 1},
    }
    opened = [f"kitchen/kitchencabinet/{n} (opened)" for n in (3, 1, 2)]
    assert s.to_json()["story"]["visits"] == [*opened, "kitchen/fridge"]
