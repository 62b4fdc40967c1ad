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
    assert len(notes) == 1 and notes[0]["part"] == "shorthand" and all(repr(s) in notes[0]["why"] for s in shorts)


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


EXPORT = """home export | zones: kitchen, bedroom
LEGEND: @ = starting room; -> = walks towards; furniture={...} = what is in or on it
[KITCHEN] fridge={plate, apple (2)}; stove=EMPTY; 4 x cabinet
[KITCHEN] cabinets from the left #1 empty #2 cupcake #3 empty #4 salmon
kitchen/microwave: wine glass (3)
[BEDROOM] desk={book}; 2 x sofa
--- events, Nadia ---
[09:00:00]  @ bedroom
[09:00:05]  -> kitchen
[09:00:09]  -> kitchen cabinet #2
[09:00:10]  opens kitchen cabinet #2
[09:00:12]  closes kitchen cabinet #2
[09:00:20]  -> fridge
QUERY: If Nadia has been trying to get a salmon, which is more likely? (a) Nadia thinks the salmon is inside the
fridge. (b) Nadia thinks the salmon is not inside the fridge.
"""


def test_a_smart_home_export_with_braces_paths_counts_and_a_time_stamped_log() -> None:
    reading = read_question(EXPORT)
    places = reading.to_json()["scene"]["places"]
    assert places["kitchen/fridge"] == {"plate": 1, "apple": 2} and places["kitchen/stove"] == {}
    assert [places[f"kitchen/kitchencabinet/{i}"] for i in (1, 2, 3, 4)] == [{}, {"cupcake": 1}, {}, {"salmon": 1}]
    assert places["kitchen/microwave"] == {"wineglass": 3} and places["bedroom/desk"] == {"book": 1}
    story = reading.to_json()["story"]
    assert story["start"] == "bedroom"  # "@ bedroom", @ defined in the legend as the starting room
    assert story["visits"] == ["kitchen/kitchencabinet/2 (opened)", "kitchen/fridge"]
    assert (reading.query.goal, reading.query.place) == ("salmon", "kitchen/fridge")
    assert not reading.blockers()
    # the legend line is no statement about the apartment and the log is no run-on to cut
    assert {u["part"] for u in reading.unread} <= {"shorthand", "notation", "description"}


def test_an_undefined_arrow_still_moves_the_person_and_a_room_heading_arrow_does_not() -> None:
    text = (
        "Layout (BR=bedroom, KT=kitchen, LR=living room)\n"
        "KT: fridge [salmon x2, apple], cupboards 1-3 (1: plate; 2: empty; 3: cupcake)\n"
        "LIVING ROOM > sofa: remote control; coffee table\n"
        "BR: desk [book x3]\n"
        "Ravi @ LR 08:00\n08:01 -> KT\n08:02 opens cupboard 2, shuts it\n08:03 -> fridge\n"
        "Q: Ravi after (a) apple or (b) cupcake?\n"
    )
    reading = read_question(text)
    places = reading.to_json()["scene"]["places"]
    assert places["kitchen/fridge"] == {"salmon": 2, "apple": 1} and places["livingroom/sofa"] == {"remotecontrol": 1}
    assert places["kitchen/kitchencabinet/3"] == {"cupcake": 1} and places["bedroom/desk"] == {"book": 3}
    story = reading.to_json()["story"]
    assert story["start"] == "livingroom"
    assert story["visits"] == ["kitchen/kitchencabinet/2 (opened)", "kitchen/fridge"]  # "-> fridge" is a walk


def test_an_arrow_after_a_room_lists_what_it_holds() -> None:
    text = (
        "Kitchen -> fridge (2 apples), microwave (a cupcake)\nBedroom -> 2 desks, a sofa\n"
        "Lou @ bedroom\n-> kitchen\n-> microwave\nQ: Is Lou after (a) an apple or (b) a cupcake?\n"
    )
    reading = read_question(text)
    places = reading.to_json()["scene"]["places"]
    assert places["kitchen/fridge"] == {"apple": 2} and places["kitchen/microwave"] == {"cupcake": 1}
    assert "bedroom/sofa" in places and "bedroom/desk" in places  # a description, not a walk to them
    assert reading.to_json()["story"]["visits"] == ["kitchen/microwave"]


def test_same_after_a_place_and_a_colon_repeats_the_last_action_there() -> None:
    text = (
        "Kitchen: fridge with a salmon; cabinets 1-4, all empty.\n"
        "Mark: starts in the bedroom → kitchen → cabinet #2: open, close → #4: same → #1, #3: same → fridge\n"
        "Q: Mark after (a) salmon or (b) apple?\n"
    )
    visits = read_question(text).to_json()["story"]["visits"]
    opened = [f"kitchen/kitchencabinet/{n} (opened)" for n in (2, 4, 1, 3)]
    assert visits == [*opened, "kitchen/fridge"]
