"""The household reader on notes and exam items: abbreviations the writer defines ("kitchen (K)",
"cab = cabinet", "-> = walks towards"), bullet lists with "x3" counts, headings without colons, and
an exam's "the subject" and "Determine which ... is more likely". Every story here was written for
these tests; each asserts the state its meaning gives."""

from __future__ import annotations

from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.mmtom.shorthand import definitions, expand_shorthand

NOTES = """Rooms: kitchen (K), living room (LR), bathroom (BA).
Abbrev: cab = cabinet, MW = microwave, -> = walks towards.
K
- cab x3, MW, fridge
- cab 1: apple x2
- cab 2, cab 3: empty
- MW: salmon
- fridge: plate, cupcake x2
LR -- sofa, coffee table
- sofa: book x3
BA -- cab, empty
TRACE Omar
- starts LR
- -> K, -> K cab 2, opens, closes
- -> MW
Q: if Omar has been trying to get a salmon, which is more likely?
(a) Omar thinks salmon is inside MW.
(b) Omar thinks salmon is not inside MW.
"""


def test_defined_abbreviations_are_written_out_and_the_legend_says_nothing_about_the_apartment() -> None:
    shorts = {d.short: d.full for d in definitions(NOTES)}
    assert shorts == {"K": "kitchen", "LR": "living room", "BA": "bathroom", "cab": "cabinet", "MW": "microwave",
                      "->": "walks towards"}  # fmt: skip
    text, notes = expand_shorthand(NOTES)
    assert "Rooms:" not in text and "Abbrev" not in text  # legends are taken out, lines kept
    assert text.count("\n") == NOTES.count("\n")
    assert "kitchen cabinet 2" in text and "inside microwave" in text
    assert {n["text"] for n in notes} == set(shorts) and all(n["part"] == "shorthand" for n in notes)


def test_an_engineers_notes_are_read_whole() -> None:
    reading = read_question(NOTES)
    places = reading.to_json()["scene"]["places"]
    assert places["kitchen/kitchencabinet/1"] == {"apple": 2}
    assert places["kitchen/kitchencabinet/2"] == places["kitchen/kitchencabinet/3"] == {}
    assert places["kitchen/microwave"] == {"salmon": 1} and places["kitchen/fridge"] == {"plate": 1, "cupcake": 2}
    assert places["livingroom/sofa"] == {"book": 3}  # "LR -- sofa" heads its own lines: not the fridge's line
    assert places["bathroom/bathroomcabinet"] == {}
    story = reading.to_json()["story"]
    assert story["start"] == "livingroom"  # "- starts LR": a trace's line without a name
    assert story["visits"] == ["kitchen/kitchencabinet/2 (opened)", "kitchen/microwave"]
    assert (reading.query.kind, reading.query.goal, reading.query.place) == ("belief", "salmon", "kitchen/microwave")


def test_nothing_is_expanded_that_the_text_does_not_define() -> None:
    text = "K: a fridge with an apple. Ann is in the K. She walks to the fridge. Does Ann think the apple is in it?"
    assert expand_shorthand(text) == (text, [])
    # a short word the lexicon knows is no abbreviation ("table (top)" defines nothing)
    assert definitions("the kitchen table (top) holds a plate") == []


def test_an_exam_item_with_the_subject_and_an_unmarked_question_heading() -> None:
    text = (
        "Consider the following scenario.\n\nI. Setting\nThe apartment has a kitchen and a living room. The kitchen "
        "has a fridge and a microwave; there is a plate in the fridge, and a cupcake and an apple in the microwave. "
        "The living room has a sofa and a desk; there are two books on the sofa, and a remote control and a wine glass "
        "on the desk.\n\nII. Events\nLena is in the living room at the outset. She walks towards the kitchen. Finally, "
        "the subject walks towards the microwave and is about to open it.\n\nIII. Question\nAssume that Lena has been "
        "trying to get a cupcake. Determine which one of the following statements is more likely to be true.\n"
        "A. Lena thinks that the cupcake is inside the microwave.\nB. Lena thinks that the cupcake is not inside the "
        "microwave.\nSelect the more plausible option."
    )
    reading = read_question(text)
    places = reading.to_json()["scene"]["places"]
    # "two books on the sofa, and a remote control and a wine glass on the desk": the objects
    # after ", and" lead their own place, they are not the sofa's
    assert places["livingroom/sofa"] == {"book": 2}
    assert places["livingroom/desk"] == {"remotecontrol": 1, "wineglass": 1}
    assert places["kitchen/microwave"] == {"cupcake": 1, "apple": 1}
    assert reading.to_json()["story"]["visits"][-1] == "kitchen/microwave"
    assert (reading.query.goal, reading.query.place) == ("cupcake", "kitchen/microwave")
    assert not reading.blockers()
