"""The household reader on stories pasted from other formats: a chat export, a spreadsheet's
columns and a Markdown outline. Every story here was written for these tests."""

from __future__ import annotations

import pytest

from mindzero.domains.household.mmtom.formats import rewrite_formats
from mindzero.domains.household.mmtom.reader import read_question

ACTIONS = "Ravi is in the bedroom. He walks to the kitchen and goes to the microwave, opens it and closes it.\n"
QUESTION = "Is Ravi trying to get (a) a salmon or (b) a cupcake?"


def state(text: str) -> dict:
    return read_question(text).to_json()


def places(text: str) -> dict:
    return state(text)["scene"]["places"]


@pytest.mark.parametrize(
    "stamp",
    ["[08:41] {who}: {said}", "04/11/2026, 08:41 - {who}: {said}", "08:41 AM {who}: {said}", "{who} — 08:41\n{said}"],
)
def test_a_chat_export_reads_as_its_messages_and_chatter_is_no_person(stamp: str) -> None:
    messages = [
        ("Kim", "flat is a bedroom and a kitchen"),
        ("Leo", "kitchen has a fridge with a salmon in it and a microwave"),
        ("Kim", "microwave has a cupcake"),
        ("Ada", "lol ok"),
        ("Kim", "so Ravi starts in the bedroom"),
        ("Leo", "he goes to the kitchen, walks up to the microwave, opens it and shuts it"),
        ("Ada", "then he walks towards the fridge"),
        ("Kim", QUESTION),
    ]
    text = "\n".join(stamp.format(who=who, said=said) for who, said in messages)
    s = state(text)
    assert s["scene"]["places"] == {"kitchen/fridge": {"salmon": 1}, "kitchen/microwave": {"cupcake": 1}}
    visits = ["kitchen/microwave (opened)", "kitchen/fridge"]
    assert s["story"] == {"person": "Ravi", "start": "bedroom", "visits": visits}
    assert [u["part"] for u in s["unread"] if u["why"]][:1] == ["format"]  # says it read a chat


def test_spreadsheet_columns_with_a_header_a_legend_and_counts() -> None:
    sheet = (
        "copied from my sheet:\n"
        "Room\tContainer\tContents\n"
        "Kitchen\tfridge\tsalmon\n"
        "Kitchen\tcabinet 1 (from the left)\t(none)\n"
        "Kitchen\tcabinet 2\tplate x2\n"
        "Kitchen\tmicrowave\tcupcake, apple\n"
        "Bedroom\tdesk\t\n"
        "(none) = empty, blank = not described\n"
    )
    assert places(sheet + ACTIONS + QUESTION) == {
        "kitchen/fridge": {"salmon": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"plate": 2},
        "kitchen/microwave": {"apple": 1, "cupcake": 1},
        "bedroom/desk": {},
    }


def test_a_pipe_table_whose_places_carry_their_room_and_an_item_per_row() -> None:
    table = (
        "| Where | Item | Qty |\n|---|---|---|\n"
        "| kitchen fridge | salmon | 1 |\n| kitchen fridge | apple | 3 |\n"
        "| microwave | cupcake | 1 |\n| bedroom cabinet | - | 0 |\n| kitchen table | book | 1 |\n"
        '"-" means empty\n'
    )
    assert places(table + ACTIONS + QUESTION) == {
        "kitchen/fridge": {"apple": 3, "salmon": 1},
        "kitchen/microwave": {"cupcake": 1},
        "bedroom/cabinet": {},
        "kitchen/kitchentable": {"book": 1},
    }


def test_a_markdown_outline_with_nested_contents_numbered_cabinets_and_sub_places() -> None:
    outline = (
        "# Ravi's flat\n\n## Kitchen\n- fridge\n  - salmon\n  - 2 apples\n- cabinets (from the left)\n"
        "  1. plate\n  2. **empty**\n- two tables\n  - one table: a book\n  - the other table: a cupcake\n"
        "- microwave: *empty*\n\n## Bedroom\n- desk\n\n### What happened\n"
    )
    s = state(outline + ACTIONS + QUESTION)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"apple": 2, "salmon": 1},
        "kitchen/kitchencabinet/1": {"plate": 1},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchentable": {"book": 1, "cupcake": 1},  # as prose: the apartment's tables are one place
        "kitchen/microwave": {},
        "bedroom/desk": {},
    }
    assert s["story"]["start"] == "bedroom"


def test_prose_and_other_headings_pass_through_unchanged() -> None:
    prose = "# Notes\nThe kitchen has a fridge | a fridge with a salmon in it.\nRavi is in the bedroom: he sleeps.\n"
    assert rewrite_formats(prose) == (prose, [])


def test_comma_separated_columns_with_quoted_cells_and_a_bold_room_over_bullets() -> None:
    pasted = (
        "Room,Container,Contents,Qty\nKitchen,fridge,\"salmon, apple\",1\nKitchen,microwave,cupcake,2\n"
        "Bedroom,desk,,\n\n**Bathroom**\n- cabinet: empty\n"
    )
    assert places(pasted + ACTIONS + QUESTION) == {
        "kitchen/fridge": {"apple": 1, "salmon": 1},
        "kitchen/microwave": {"cupcake": 2},
        "bedroom/desk": {},
        "bathroom/bathroomcabinet": {},
    }


def test_a_list_of_rooms_in_prose_is_no_csv_table() -> None:
    prose = "Rooms, kitchen, bedroom\nThe kitchen has a fridge, a stove, and a table.\n"
    assert rewrite_formats(prose) == (prose, [])


def test_a_blank_room_cell_is_the_room_above_and_a_telegram_export_reads() -> None:
    sheet = "Room\tPlace\tContents\nKitchen\tfridge\tsalmon\n\tmicrowave\tcupcake\nBedroom\tdesk\t-\n"
    assert places(sheet + ACTIONS + QUESTION) == {
        "kitchen/fridge": {"salmon": 1},
        "kitchen/microwave": {"cupcake": 1},
        "bedroom/desk": {},
    }
    chat = (
        "Kim, [05.12.26 19:02]\nthe flat: a bedroom and a kitchen. the kitchen has a microwave with a cupcake in it\n"
        "Leo, [05.12.26 19:03]\nRavi is in the bedroom, he goes to the kitchen and walks up to the microwave\n"
        f"Kim, [05.12.26 19:04]\n{QUESTION}\n"
    )
    s = state(chat)
    assert s["story"] == {"person": "Ravi", "start": "bedroom", "visits": ["kitchen/microwave"]}
    assert s["scene"]["places"] == {"kitchen/microwave": {"cupcake": 1}}


def test_an_outline_with_number_ranges_a_plain_list_head_and_prose_under_a_room_heading() -> None:
    outline = (
        "## Kitchen\nFurniture: 6 cabinets, a fridge and a microwave.\n"
        "- cabinets\n  - 1-3: *empty*\n  - 4, 5: plate\n"
        "\nCabinet six, if you count from the left:\n1. apple\n\n- fridge: salmon\n\n## Bedroom\n- **desk**: book\n"
        "\n### What happened\n1. Ravi is in the bedroom.\n"
        "2. He walks to the kitchen and goes to the **fourth** cabinet.\n"
    )
    s = state(outline + QUESTION)
    places = s["scene"]["places"]
    assert places == {
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {},
        "kitchen/kitchencabinet/4": {"plate": 1},
        "kitchen/kitchencabinet/5": {"plate": 1},
        "kitchen/kitchencabinet/6": {"apple": 1},
        "kitchen/fridge": {"salmon": 1},
        "kitchen/microwave": {},
        "bedroom/desk": {"book": 1},
    }
    assert s["story"]["visits"] == ["kitchen/kitchencabinet/4"]


@pytest.mark.parametrize(
    "heading", ["Log - Ravi", "--- events, Ravi ---", "What Ravi did:", "Ravi's log", "ravi - log"]
)
def test_a_log_heading_makes_the_lines_under_it_the_persons_actions(heading: str) -> None:
    story = (
        "Kitchen: a fridge and a microwave with a cupcake. Inside the fridge you will find a salmon.\n"
        f"{heading}\n1. in the bedroom\n2. walks to the kitchen\n3. walks towards the microwave\n"
    )
    s = state(story + QUESTION)
    assert s["story"] == {"person": "Ravi", "start": "bedroom", "visits": ["kitchen/microwave"]}
    assert s["scene"]["places"] == {"kitchen/fridge": {"salmon": 1}, "kitchen/microwave": {"cupcake": 1}}


def test_a_letter_its_greeting_and_sign_off_name_nobody_who_acts() -> None:
    letter = (
        "Hi Sam,\n\nOur flat has a kitchen and a lounge. The kitchen has a fridge with a salmon in it and a "
        "microwave with a cupcake in it.\n\nThis morning Dev was in the lounge. He went into the kitchen and "
        "headed for the fridge.\n\nDo you reckon he was after (a) a salmon or (b) a cupcake?\n\nCheers,\nPriya\n"
    )
    s = state(letter)
    assert s["story"] == {"person": "Dev", "start": "livingroom", "visits": ["kitchen/fridge"]}
    assert [u["part"] for u in s["unread"]] == ["format"]


def test_markdown_notes_with_the_question_first_a_checklist_and_the_actions_before_the_apartment() -> None:
    notes = (
        "> **Question:** Is Ravi trying to get\n> - (a) a salmon or\n> - (b) a cupcake?\n\n"
        "**What Ravi did**\n1. He's in the bedroom.\n2. He goes to the kitchen.\n"
        "- [x] walks towards the fridge\n\n---\n\n"
        "* _Kitchen_\n    * fridge: a salmon\n    * cabinets (from the left):\n        * `#1` — _empty_\n"
        "        * `#2`, `#3` — a cupcake\n\n| Cupboard (from the left) | Contents |\n|---|---|\n| 4th | a plate |\n"
        "| 5th | |\n(blank cell = I didn't note what's there)\n"
    )
    s = state(notes)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"salmon": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"cupcake": 1},
        "kitchen/kitchencabinet/3": {"cupcake": 1},
        "kitchen/kitchencabinet/4": {"plate": 1},
    }  # the 5th: its blank cell says nothing, so no place is made of it
    assert s["story"] == {"person": "Ravi", "start": "bedroom", "visits": ["kitchen/fridge"]}
    assert s["query"]["options"] == ("salmon", "cupcake")


def test_a_teachers_label_a_title_before_the_name_and_a_heading_that_names_a_day() -> None:
    scenario = (
        "Scenario for my students: Mrs. Okafor's kitchen contains a fridge and two cabinets. Cabinet one is "
        "empty; cabinet two holds a wine glass. The fridge contains two apples. Mrs. Okafor enters from the "
        "living room. She checks cabinet one, closing it, and approaches the fridge.\n"
        "Which is more plausible? (a) She wants an apple. (b) She wants a wine glass.\n"
    )
    s = state(scenario)
    assert s["story"] == {"person": "Okafor", "start": "livingroom",
                          "visits": ["kitchen/kitchencabinet/1 (opened)", "kitchen/fridge"]}  # fmt: skip
    assert s["scene"]["places"]["kitchen/kitchencabinet/2"] == {"wineglass": 1}
    timeline = (
        "Timeline (Saturday)\n8:02am - Kai wakes up in the bedroom\n8:05am - heads to the kitchen\n"
        "8:07am - goes to the second cupboard. Cupboard 2 has a plate, btw\n"
        "Kitchen: a fridge with a salmon in it.\nQ: is Kai after (a) a salmon or (b) a plate?\n"
    )
    s = state(timeline)
    assert s["story"] == {"person": "Kai", "start": "bedroom", "visits": ["kitchen/kitchencabinet/2"]}
    assert s["scene"]["places"]["kitchen/kitchencabinet/2"] == {"plate": 1}


def test_cabinets_listed_by_ordinal_under_a_bold_count_and_an_instruction_after_the_options() -> None:
    text = (
        "# Tomas's flat\n\n## Kitchen\n- fridge\n  - a salmon\n- **4 cabinets** (numbered from the left)\n"
        "  - 1st: empty\n  - 2nd from the left: a cupcake\n  - third: two plates\n  - 4th: empty\n\n"
        "### What happened\n1. Tomas is in the kitchen.\n"
        "2. He walks to the 3rd kitchen cabinet, opens it, closes it.\n\n"
        "**Question:** Which is more likely?\n- (a) Tomas has been trying to get a cupcake.\n"
        "- (b) Tomas has been trying to get a salmon.\n\nAnswer with a or b."
    )
    read = state(text)
    assert read["scene"]["places"]["kitchen/kitchencabinet/2"] == {"cupcake": 1}
    assert read["scene"]["places"]["kitchen/kitchencabinet/3"] == {"plate": 2}
    assert read["scene"]["places"]["kitchen/kitchencabinet/1"] == {}
    assert read["story"]["person"] == "Tomas"  # not "Answer", the capital that starts the last line
