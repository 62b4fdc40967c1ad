"""The household reader on home states pasted as data: JSON and YAML in a developer's own schema,
and VirtualHome relations, graph dumps and programs. Every text here was written for these tests."""

from __future__ import annotations

import pytest

from mindzero.core.errors import UserError
from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.mmtom.structured import rewrite_structured

GOAL = (
    "Which one of the following statements is more likely to be true? "
    "(a) {p} has been trying to get {a}. (b) {p} has been trying to get {b}."
)


def state(text: str) -> dict:
    return read_question(text).to_json()


def blockers(text: str) -> list[dict]:
    return read_question(text).blockers()


# --- JSON and YAML ----------------------------------------------------------------------------


def test_nested_json_rooms_with_a_list_per_cabinet_an_agent_and_action_objects() -> None:
    text = (
        '{"rooms": {"kitchen": {"fridge": ["plate", "cupcake", "cupcake"], "microwave": [],\n'
        '                       "cabinets": [["apple"], [], ["plate", "plate"]]},\n'
        '           "living_room": {"sofa": ["remote_control"], "coffee_table": []}},\n'
        ' "agent": {"name": "Omar", "room": "living_room"},\n'
        ' "actions": [{"verb": "walk", "object": "kitchen"}, {"verb": "walk", "object": "cabinet_2"},\n'
        '             {"verb": "open", "object": "cabinet_2"}, {"verb": "close", "object": "cabinet_2"},\n'
        '             {"verb": "walk", "object": "fridge"}],\n'
        ' "question": "Which one of the following statements is more likely to be true?",\n'
        ' "options": ["Omar has been trying to get an apple.", "Omar has been trying to get a cupcake."]}\n'
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"cupcake": 2, "plate": 1},
        "kitchen/microwave": {},
        "kitchen/kitchencabinet/1": {"apple": 1},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {"plate": 2},
        "livingroom/sofa": {"remotecontrol": 1},
        "livingroom/coffeetable": {},
    }
    assert s["story"] == {
        "person": "Omar",
        "start": "livingroom",
        "visits": ["kitchen/kitchencabinet/2 (opened)", "kitchen/fridge"],
    }
    assert s["query"]["options"] == ("apple", "cupcake")
    assert [u["part"] for u in s["unread"]] == ["format"]  # says what it read, blocks nothing


def test_a_list_of_furniture_records_with_counts_numbers_and_repeated_items() -> None:
    text = (
        "Here's the export:\n"
        '[{"room": "bedroom", "furniture": "desk", "count": 2},\n'
        ' {"room": "kitchen", "furniture": "kitchen_cabinet", "count": 4, "numbered": "from the left"},\n'
        ' {"room": "kitchen", "furniture": "cabinet", "number": 2, "contains": ["wine_glass", "wine_glass"]},\n'
        ' {"room": "kitchen", "furniture": "kitchen_table_1", "on": ["bag_of_chips"]},\n'
        ' {"room": "kitchen", "furniture": "stove", "inside": []}]\n'
        'Actions: ["walk kitchen", "walk_to cabinet 2", "open cabinet 2", "close cabinet 2", "walk stove"]\n'
        "Person: Leila, she starts in the bedroom.\n" + GOAL.format(p="Leila", a="a wine glass", b="a bag of chips")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "bedroom/desk": {},  # two desks are one place, as in prose
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"wineglass": 2},
        "kitchen/kitchencabinet/3": {},
        "kitchen/kitchencabinet/4": {},
        "kitchen/kitchentable": {"chips": 1},
        "kitchen/stove": {},
    }
    assert s["story"] == {
        "person": "Leila",
        "start": "bedroom",
        "visits": ["kitchen/kitchencabinet/2 (opened)", "kitchen/stove"],
    }


def test_yaml_with_counts_a_cabinet_list_per_position_and_the_question_as_fields() -> None:
    text = (
        "home:\n  kitchen:\n    fridge:\n      cupcake: 2\n      apple: 1\n    stove: {}   # empty\n"
        "    kitchen_cabinets:\n      - [plate]\n      - []\n      - [wine_glass, water_glass]\n"
        "  bathroom:\n    bathroom_cabinet: []\n"
        "episode:\n  agent: Tomas\n  start: bathroom\n  actions:\n    - walk: kitchen\n    - walk: fridge\n"
        "    - open: fridge\n    - close: fridge\n    - walk: kitchen_cabinet_3\n"
        "question:\n  text: Which one of the following statements is more likely to be true?\n"
        "  options:\n    - Tomas has been trying to get a wine glass.\n    - Tomas has been trying to get a cupcake.\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"apple": 1, "cupcake": 2},
        "kitchen/stove": {},
        "kitchen/kitchencabinet/1": {"plate": 1},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {"waterglass": 1, "wineglass": 1},
        "bathroom/bathroomcabinet": {},
    }
    assert s["story"]["start"] == "bathroom"
    assert s["story"]["visits"] == ["kitchen/fridge (opened)", "kitchen/kitchencabinet/3"]
    assert s["query"]["options"] == ("wineglass", "cupcake")


def test_fixture_records_with_dotted_ids_and_item_records_that_name_them() -> None:
    text = (
        '{"fixtures": [\n'
        '  {"id": "kit.cab1", "room": "kitchen", "type": "kitchen_cabinet", "pos": 1},\n'
        '  {"id": "kit.cab2", "room": "kitchen", "type": "kitchen_cabinet", "pos": 2},\n'
        '  {"id": "kit.fridge", "room": "kitchen", "type": "fridge", "empty": true},\n'
        '  {"id": "lr.cabinet", "room": "living_room", "type": "cabinet"}],\n'
        ' "items": [\n'
        '  {"item": "salmon", "qty": 2, "fixture": "kit.cab2"},\n'
        '  {"item": "remote_control", "qty": 1, "fixture": "lr.cabinet"},\n'
        '  {"item": "apple", "qty": 3, "fixture": "living_room.cabinet"}]}\n'
        '{"person": "Ines", "start_room": "living_room", "events": [\n'
        '  {"seq": 1, "verb": "walk_to", "target": "kit.cab1"}, {"seq": 2, "verb": "open", "target": "kit.cab1"},\n'
        '  {"seq": 3, "verb": "close", "target": "kit.cab1"}, {"seq": 4, "verb": "walk_to", "target": "kit.fridge"}]}\n'
        + GOAL.format(p="Ines", a="a salmon", b="a remote control")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"salmon": 2},
        "kitchen/fridge": {},
        "livingroom/cabinet": {"apple": 3, "remotecontrol": 1},
    }
    assert s["story"] == {
        "person": "Ines",
        "start": "livingroom",
        "visits": ["kitchen/kitchencabinet/1 (opened)", "kitchen/fridge"],
    }


def test_room_records_by_name_a_counted_cabinet_record_with_numbered_contents_and_a_query_field() -> None:
    text = (
        "```yaml\napartment:\n  rooms:\n    - name: kitchen\n      furniture:\n"
        "        - name: cabinets\n          kind: container\n          count: 3\n"
        "          contents:        # key = number from the left\n            1: [dish_bowl]\n            2: []\n"
        "            3: [cupcake, cupcake]\n        - name: microwave\n          kind: container\n"
        "          items: {salmon: 1}\n"
        "    - name: bedroom\n      furniture:\n        - name: desk\n          count: 2\n"
        "agent: Bo\nstart_room: bedroom\nactions:\n  - {op: walk, to: kitchen}\n  - {op: open, target: cabinets_1}\n"
        "  - {op: close, target: cabinets_1}\n  - {op: walk, to: microwave}\n"
        "query:\n  text: If Bo has been trying to get a cupcake, which one of the following statements is more likely"
        " to be true?\n  options:\n    a: Bo thinks that the cupcake is not inside the microwave.\n"
        "    b: Bo thinks that the cupcake is inside the microwave.\n```\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/kitchencabinet/1": {"dishbowl": 1},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {"cupcake": 2},
        "kitchen/microwave": {"salmon": 1},
        "bedroom/desk": {},
    }
    assert s["story"]["visits"] == ["kitchen/kitchencabinet/1 (opened)", "kitchen/microwave"]
    assert s["query"]["kind"] == "belief" and s["query"]["place"] == "kitchen/microwave"


def test_camel_case_keys_room_paths_a_location_field_and_event_phrases() -> None:
    text = (
        '{\n  "inventory": {\n    "kitchen/fridge": ["apple", "apple"],\n    "kitchen/stove": [],\n'
        '    "sofa": {"location": "livingRoom", "items": [{"name": "book", "count": 2}]},\n'
        '    "kitchen": {"cabinets": [{"number": 1, "contents": []}, {"number": 2, "contents": ["cupcake"]}]}\n'
        '  },\n  "startRoom": "livingRoom",\n  "personName": "Zoe",\n  "timeline": [\n'
        '    {"time": "09:00", "event": "walked to the kitchen"},\n'
        '    {"time": "09:01", "event": "opened the fridge"},\n'
        '    {"time": "09:02", "event": "closed the fridge"},\n'
        '    {"time": "09:03", "event": "walks to cabinet 2"}\n  ]\n}\n'
        "Is Zoe trying to get (a) a cupcake or (b) a book?\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"apple": 2},
        "kitchen/stove": {},
        "livingroom/sofa": {"book": 2},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"cupcake": 1},
    }
    assert s["story"] == {
        "person": "Zoe",
        "start": "livingroom",
        "visits": ["kitchen/fridge (opened)", "kitchen/kitchencabinet/2"],
    }


def test_python_quotes_action_pairs_and_one_action_object_a_line() -> None:
    py = (
        "{'person': 'Ravi', 'start_room': 'bedroom', 'home': {'kitchen': {'fridge': {'items': [{'item': 'apple', "
        "'qty': 2}]}, 'microwave': {'items': []}}, 'bedroom': {'desk': {'on': ['book']}}}, "
        "'actions': [['walk', 'kitchen'], ['walk', 'microwave'], ['open', 'microwave'], ['close', 'microwave']]}\n"
        "Is Ravi trying to get (a) an apple or (b) a book?\n"
    )
    s = state(py)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"apple": 2},
        "kitchen/microwave": {},
        "bedroom/desk": {"book": 1},
    }
    assert s["story"] == {"person": "Ravi", "start": "bedroom", "visits": ["kitchen/microwave (opened)"]}
    lines = (
        "The kitchen has a fridge with two apples in it and four cabinets. The third cabinet holds a plate; the "
        "others are empty.\nKofi is in the bedroom.\n"
        '{"t": 1, "action": "walk", "target": "kitchen"}\n{"t": 2, "action": "walk", "target": "kitchen cabinet 1"}\n'
        '{"t": 3, "action": "open", "target": "kitchen cabinet 1"}\n'
        '{"t": 4, "action": "close", "target": "kitchen cabinet 1"}\n{"t": 5, "action": "walk", "target": "fridge"}\n'
        "Is Kofi trying to get (a) a plate or (b) an apple?\n"
    )
    assert state(lines)["story"]["visits"] == ["kitchen/kitchencabinet/1 (opened)", "kitchen/fridge"]


def test_a_top_level_yaml_list_of_rooms_and_the_actions_as_one_string() -> None:
    text = (
        "- kitchen:\n    fridge: two apples, plate\n    cabinets:\n      1: empty\n      2: apple\n"
        "- bedroom:\n    desk: [book]\nperson: Eli\nstart: {room: bedroom}\n"
        "actions: walk kitchen, walk cabinet 2, open cabinet 2, close cabinet 2, walk fridge\n"
        "Is Eli trying to get (a) an apple or (b) a book?\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"apple": 2, "plate": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"apple": 1},
        "bedroom/desk": {"book": 1},
    }
    assert s["story"] == {
        "person": "Eli",
        "start": "bedroom",
        "visits": ["kitchen/kitchencabinet/2 (opened)", "kitchen/fridge"],
    }


def test_a_place_given_as_empty_and_as_holding_something_is_noted() -> None:
    text = (
        '{"person": "Al", "start": "kitchen", "layout": [\n'
        '  {"room": "kitchen", "furniture": "microwave", "inside": []},\n'
        '  {"room": "kitchen", "furniture": "microwave", "inside": ["cupcake"]}],\n'
        ' "actions": ["walk microwave"]}\nIs Al trying to get (a) a cupcake or (b) an apple?\n'
    )
    s = state(text)
    assert s["scene"]["places"] == {"kitchen/microwave": {"cupcake": 1}}
    assert any("as empty and as holding cupcake" in u["why"] for u in s["unread"])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"rooms": {"kitchen": {"fridge": ["apple"] "stove": []}}}\nIs Al after (a) an apple or (b) a plate?',
         "line 1: the JSON data does not parse (Expecting ',' delimiter, column 44)"),
        ("```json\n{\"kitchen\": {\"fridge\": [\"apple\",]}}\n```\nIs Al after (a) an apple or (b) a plate?",
         "line 2: the JSON block does not parse"),
        ("```yaml\nkitchen:\n  fridge: [apple\n  stove: []\n```\nIs Al after (a) an apple or (b) a plate?",
         "line 4: the YAML block does not parse"),
    ],
)  # fmt: skip
def test_data_that_does_not_parse_is_a_user_error_naming_the_line(text: str, says: str) -> None:
    with pytest.raises(UserError, match=says.replace("(", r"\(").replace(")", r"\)")):
        read_question(text)


def test_an_action_the_reader_has_no_word_for_blocks_the_answer() -> None:
    text = (
        '{"person": "Al", "start": "kitchen", "home": {"kitchen": {"fridge": ["apple"], "stove": ["salmon"]}},\n'
        ' "actions": ["walk fridge", "open fridge", "grab apple", "close fridge", "walk stove"]}\n'
        "Is Al trying to get (a) an apple or (b) a salmon?\n"
    )
    found = blockers(text)
    assert [(b["part"], b["unknown"]) for b in found] == [("actions", ["grab"])]


@pytest.mark.parametrize(
    "text",
    [
        "The kitchen has a fridge.\nQuestion: Is Al after (a) an apple or (b) a plate?\n",
        "## Kitchen\n- fridge: salmon\n  - apple\n- cabinets (from the left)\n  1. plate\n",
        "Kitchen:\n- fridge\n- stove\nBedroom: a desk [the big one]\n",
        "Room\tContainer\tContents\nKitchen\tfridge\tsalmon\n",
        "[KITCHEN] fridge={plate, cupcake}; stove\n#07 walks towards kitchen\n",
        "Sam is in the kitchen. He is ON the phone, then opens the fridge.\n",
    ],
)
def test_prose_tables_outlines_and_notation_are_left_to_the_other_passes(text: str) -> None:
    assert rewrite_structured(text) == (text, [])


# --- VirtualHome ------------------------------------------------------------------------------


def test_relations_an_empties_comment_a_header_and_a_step_numbered_program() -> None:
    text = (
        "character: Noor\ninit_room: bathroom\n\n# relations (kitchencabinet ids = cabinets from the left)\n"
        "bathroomcabinet_1 INSIDE bathroom\nkitchencabinet_1 INSIDE kitchen\nkitchencabinet_2 INSIDE kitchen\n"
        "kitchencabinet_3 INSIDE kitchen\nfridge_1 INSIDE kitchen\nsofa_1 INSIDE livingroom\nsofa_2 INSIDE kitchen\n"
        "condimentbottle_1 INSIDE kitchencabinet_2\ncondimentbottle_2 INSIDE kitchencabinet_2\n"
        "wineglass_1 INSIDE fridge_1\nremotecontrol_1 ON sofa_1\ndishbowl_1 ON sofa_2\n"
        "# empty: kitchencabinet_1, kitchencabinet_3, bathroomcabinet_1\n\n## program\n"
        "01 [walk] <kitchen> (1)\n02 [walk] <kitchencabinet> (1)\n03 [open] <kitchencabinet> (1)\n"
        "04 [close] <kitchencabinet> (1)\n05 [walk] <sofa> (1)\n"
        + GOAL.format(p="Noor", a="a condiment bottle", b="a remote control")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "bathroom/bathroomcabinet": {},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"condimentbottle": 2},
        "kitchen/kitchencabinet/3": {},
        "kitchen/fridge": {"wineglass": 1},
        "livingroom/sofa": {"remotecontrol": 1},
        "kitchen/sofa": {"dishbowl": 1},
    }
    # "<sofa> (1)" is the living room's: the walk there goes through the living room
    assert s["story"] == {
        "person": "Noor",
        "start": "bathroom",
        "visits": ["kitchen/kitchencabinet/1 (opened)", "livingroom/sofa"],
    }


def test_a_summary_grouped_by_room_with_instance_numbers_and_counts() -> None:
    text = (
        "ep 12 -- Hugo, starts in livingroom\n(kitchencabinet (n) = nth cabinet from the left)\n\n"
        "bedroom: cabinet (1), desk\n  INSIDE cabinet (1): book x2, apple\n"
        "livingroom: sofa, coffeetable\n  ON coffeetable: plate, wine glass\n  ON sofa: -- empty --\n"
        "kitchen: kitchencabinet x3, fridge\n  INSIDE kitchencabinet (2): salmon\n  INSIDE fridge: cupcake x2\n\n"
        "program:\n[walk] <kitchen> (1)\n[walk] <kitchencabinet> (2)\n[open] <kitchencabinet> (2)\n"
        "[close] <kitchencabinet> (2)\n[walk] <bedroom> (1)\n[walk] <cabinet> (1)\n"
        + GOAL.format(p="Hugo", a="a book", b="a salmon")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "bedroom/cabinet": {"apple": 1, "book": 2},
        "bedroom/desk": {},
        "livingroom/sofa": {},
        "livingroom/coffeetable": {"plate": 1, "wineglass": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"salmon": 1},
        "kitchen/kitchencabinet/3": {},
        "kitchen/fridge": {"cupcake": 2},
    }
    assert s["story"] == {
        "person": "Hugo",
        "start": "livingroom",
        "visits": ["kitchen/kitchencabinet/2 (opened)", "bedroom/cabinet"],
    }


def test_edges_with_class_dot_id_nodes_and_an_id_range_of_empty_places() -> None:
    text = (
        "# graph dump -- char: Vera, init room: kitchen.7\n"
        "edges:\n  fridge.70 INSIDE kitchen.7\n  kitchencabinet.1 INSIDE kitchen.7\n"
        "  kitchencabinet.2 INSIDE kitchen.7\n"
        "  kitchencabinet.3 INSIDE kitchen.7\n  desk.80 INSIDE bedroom.8\n  book.501 ON desk.80\n"
        "  water_glass.502 INSIDE fridge.70\n  water_glass.503 INSIDE fridge.70\n"
        "# nothing INSIDE: kitchencabinet.1-3\n"
        "script:\n  [walk] <kitchencabinet> (3)\n  [open] <kitchencabinet> (3)\n  [close] <kitchencabinet> (3)\n"
        "  [walk] <desk> (80)\n" + GOAL.format(p="Vera", a="a water glass", b="a book")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"waterglass": 2},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {},
        "kitchen/kitchencabinet/3": {},
        "bedroom/desk": {"book": 1},
    }
    assert s["story"] == {
        "person": "Vera",
        "start": "kitchen",
        "visits": ["kitchen/kitchencabinet/3 (opened)", "bedroom/desk"],
    }


def test_a_json_graph_with_arbitrary_cabinet_ids_ranks_them_and_says_so() -> None:
    text = (
        '{"nodes": [{"id": 1, "class_name": "character"}, {"id": 11, "class_name": "bedroom"},\n'
        '  {"id": 56, "class_name": "kitchen"}, {"id": 131, "class_name": "kitchencabinet"},\n'
        '  {"id": 132, "class_name": "kitchencabinet"}, {"id": 140, "class_name": "fridge"},\n'
        '  {"id": 141, "class_name": "floor"}, {"id": 200, "class_name": "cupcake"}, {"id": 201, '
        '"class_name": "salmon"}],\n'
        ' "edges": [{"from_id": 1, "relation_type": "INSIDE", "to_id": 11},\n'
        '  {"from_id": 131, "relation_type": "INSIDE", "to_id": 56}, {"from_id": 132, "relation_type": "INSIDE", '
        '"to_id": 56},\n'
        '  {"from_id": 140, "relation_type": "INSIDE", "to_id": 56}, {"from_id": 141, "relation_type": "INSIDE", '
        '"to_id": 56},\n'
        '  {"from_id": 200, "relation_type": "INSIDE", "to_id": 132}, {"from_id": 200, "relation_type": "INSIDE", '
        '"to_id": 56},\n'
        '  {"from_id": 201, "relation_type": "INSIDE", "to_id": 140}, {"from_id": 140, "relation_type": "CLOSE", '
        '"to_id": 131}]}\n'
        "[walk] <kitchen> (56)\n[walk] <kitchencabinet> (131)\n[open] <kitchencabinet> (131)\n"
        "[close] <kitchencabinet> (131)\n[walk] <fridge> (140)\nIs Hana trying to get (a) a cupcake or (b) a salmon?\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/fridge": {"salmon": 1},
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"cupcake": 1},
    }
    assert s["story"] == {
        "person": "Hana",
        "start": "bedroom",
        "visits": ["kitchen/kitchencabinet/1 (opened)", "kitchen/fridge"],
    }
    notes = " ".join(u["why"] for u in s["unread"])
    assert "ids 131, 132 as cabinets 1 to 2" in notes and "floor" in notes and "CLOSE edges" in notes


def test_a_node_table_with_an_idx_column_and_edges_between_bare_ids() -> None:
    text = (
        "replay dump\nNODES\n  id  class_name   idx\n   1  character      1  (Lin)\n   5  bedroom        1\n"
        "   6  kitchen        1\n  20  kitchencabinet 1\n  21  kitchencabinet 2\n  30  desk           1\n"
        "  40  apple          1\n  41  book           1\nEDGES (from_id REL to_id)\n   1 INSIDE 5\n  20 INSIDE 6\n"
        "  21 INSIDE 6\n  30 INSIDE 5\n  40 INSIDE 21\n  41 ON     30\n"
        "# containers with no INSIDE edges (empty): 20 kitchencabinet#1\n"
        "PROGRAM (numbers in () are the idx column)\n[Walk] <kitchen> (1)\n[Walk] <kitchencabinet> (1)\n"
        "[Open] <kitchencabinet> (1)\n[Close] <kitchencabinet> (1)\n[Walk] <kitchencabinet> (2)\n"
        "Is Lin trying to get (a) an apple or (b) a book?\n"
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"apple": 1},
        "bedroom/desk": {"book": 1},
    }
    assert s["story"] == {
        "person": "Lin",
        "start": "bedroom",
        "visits": ["kitchen/kitchencabinet/1 (opened)", "kitchen/kitchencabinet/2"],
    }


def test_pddl_facts_semicolon_comments_and_a_script_as_a_python_list() -> None:
    text = (
        "init facts + executed script\n; kitchencabinet_1..2 numbered from the left\n"
        "(inside_room kitchencabinet_1 kitchen)\n(inside_room kitchencabinet_2 kitchen)\n"
        "(inside_room stove_1 kitchen)\n"
        "(inside_room coffeetable_1 livingroom)\n(inside salmon_1 stove_1)\n(inside salmon_2 stove_1)\n"
        "(inside cupcake_1 kitchencabinet_2)\n(ontop book_1 coffeetable_1)\n; kitchencabinet_1 -> empty\n"
        "(inside_room char0 livingroom)\n\n"
        "['<char0> [walk] <kitchen> (1)',\n '<char0> [walk] <kitchencabinet> (1)',\n"
        " '<char0> [open] <kitchencabinet> (1)',\n '<char0> [close] <kitchencabinet> (1)',\n"
        " '<char0> [walk] <stove> (1)']\n" + GOAL.format(p="Rosa", a="a salmon", b="a cupcake")
    )
    s = state(text)
    assert s["scene"]["places"] == {
        "kitchen/kitchencabinet/1": {},
        "kitchen/kitchencabinet/2": {"cupcake": 1},
        "kitchen/stove": {"salmon": 2},
        "livingroom/coffeetable": {"book": 1},
    }
    assert s["story"] == {
        "person": "Rosa",
        "start": "livingroom",
        "visits": ["kitchen/kitchencabinet/1 (opened)", "kitchen/stove"],
    }


@pytest.mark.parametrize(
    "relations",
    [
        "(plate_1, INSIDE, kitchencabinet_1)\n(plate_2, INSIDE, kitchencabinet_1)\n(kitchencabinet_1, INSIDE, kitchen)",
        "INSIDE(plate_1, kitchencabinet_1)\nINSIDE(plate_2, kitchencabinet_1)\nINSIDE(kitchencabinet_1, kitchen)",
        "plate_1 -[INSIDE]-> kitchencabinet_1\nplate_2 -> INSIDE -> kitchencabinet_1\n"
        "kitchencabinet_1 --INSIDE--> kitchen",
        "relations: [plate_1 INSIDE kitchencabinet_1, plate_2 INSIDE kitchencabinet_1, "
        "kitchencabinet_1 INSIDE kitchen]",
        "plate x2 INSIDE kitchencabinet_1\nkitchencabinet_1 INSIDE kitchen",
        "- plate INSIDE kitchencabinet_1\n- plate INSIDE kitchencabinet_1\n- kitchencabinet_1 INSIDE kitchen",
    ],
)
def test_relations_as_tuples_calls_arrows_a_list_on_one_line_and_counted(relations: str) -> None:
    text = (
        relations
        + "\nkitchencabinet_2 INSIDE kitchen\n[walk] <kitchencabinet> (2)\nIs Ty after (a) a plate or (b) an apple?"
    )
    s = state(text)
    assert s["scene"]["places"] == {"kitchen/kitchencabinet/1": {"plate": 2}, "kitchen/kitchencabinet/2": {}}
    assert s["story"]["visits"] == ["kitchen/kitchencabinet/2"]


def test_program_steps_the_reader_cannot_read_block_the_answer() -> None:
    text = (
        "character: Jo\nmicrowave_1 INSIDE kitchen\npudding_1 INSIDE microwave_1\nJo is in the bathroom.\n"
        "<char0> [WalkTowards] <kitchen> (1)\n<char0> [Walk] <microwave> (1)\n<char0> [Open] <microwave> (1)\n"
        "<char0> [PutIn] <dishbowl> (1) <microwave> (1)\nIs Jo trying to get (a) a pudding or (b) a dish bowl?\n"
    )
    r = read_question(text)
    assert r.story.to_json()["visits"] == ["kitchen/microwave (opened)"]
    assert [(b["part"], b["unknown"]) for b in r.blockers()] == [("actions", ["putin"])]


def test_a_legend_numbering_cabinets_from_the_right_turns_them_round() -> None:
    text = (
        "(kitchencabinet ids run right to left)\nkitchencabinet_1 INSIDE kitchen\nkitchencabinet_2 INSIDE kitchen\n"
        "kitchencabinet_3 INSIDE kitchen\napple_1 INSIDE kitchencabinet_1\nchar0 INSIDE kitchen\n"
        "[walk] <kitchencabinet> (1)\nIs Ty after (a) an apple or (b) a plate?\n"
    )
    s = state(text)
    assert s["scene"]["places"]["kitchen/kitchencabinet/3"] == {"apple": 1}
    assert s["story"]["visits"] == ["kitchen/kitchencabinet/3"]


def test_one_stray_bracket_line_is_no_program() -> None:
    text = "Sam [walk] <fridge> is in the kitchen.\nThe fridge has an apple.\nIs Sam after (a) an apple or (b) a plate?"
    assert rewrite_structured(text) == (text, [])


def test_a_heading_over_a_json_action_list_names_the_person_and_a_start_said_after_it_is_the_start() -> None:
    text = (
        "What's inside the apartment:\n"
        '{"kitchen": {"fridge": ["salmon"], "microwave": ["cupcake"]}, "bedroom": {"desk": []}}\n'
        'Actions taken by Mark:\n["walk kitchen", "walk fridge", "open fridge", "close fridge", "walk microwave"]\n'
        "Mark starts in the bedroom.\n" + GOAL.format(p="He", a="a salmon", b="a cupcake")
    )
    s = state(text)
    assert s["story"] == {
        "person": "Mark",
        "start": "bedroom",
        "visits": ["kitchen/fridge (opened)", "kitchen/microwave"],
    }


def test_another_character_or_a_room_the_reader_lacks_blocks_instead_of_being_dropped() -> None:
    text = (
        "fridge_1 INSIDE kitchen\napple_1 INSIDE fridge_1\ntable_1 INSIDE dining_room\nchar0 INSIDE bedroom\n"
        "<char0> [walk] <kitchen> (1)\n<char1> [walk] <fridge> (1)\n<char0> [walk] <dining_room> (1)\n"
        "Is Mo trying to get (a) an apple or (b) a plate?\n"
    )
    r = read_question(text)
    assert r.story.to_json()["visits"] == ["room kitchen"]
    assert [b["why"] for b in r.blockers()] == [
        "another character (char1) acts: the reader follows one person",
        "'dining room' is no room or furniture the reader knows",
    ]
    assert "left out: diningroom" in r.unread[0]["why"]


def test_a_note_on_an_action_record_is_kept_as_the_users_sentence() -> None:
    text = (
        '{"person": "Ana", "start_room": "bedroom", "home": {"kitchen": {"fridge": ["apple"], "stove": []}},\n'
        ' "events": [{"verb": "walk_to", "target": "kitchen"},\n'
        '            {"verb": "walk_to", "target": "fridge", "note": "she is about to open the fridge"}]}\n'
        "Is Ana trying to get (a) an apple or (b) a plate?\n"
    )
    assert state(text)["story"]["visits"] == ["kitchen/fridge"]
    assert "\nShe is about to open the fridge.\n" in rewrite_structured(text)[0]


# --- REPL dumps, home-automation configs, API responses -----------------------------------------


def test_an_ipython_repr_dump_with_contents_maps_keyed_by_ids_read_after_the_rooms() -> None:
    text = (
        "In [7]: snapshot\n"
        "Out[7]:\n"
        "{'agent': 'Tomas',\n"
        " 'in': {'cabinet_1': ('apple',), 'cabinet_2': [], 'kitchencabinet_1': [], 'kitchencabinet_2': ['plate']},\n"
        " 'on': {'sofa_1': ['book']},\n"
        " 'rooms': {'bedroom': ['cabinet_1'], 'living_room': ['sofa_1', 'cabinet_2'],\n"
        "           'kitchen': ['kitchencabinet_1', 'kitchencabinet_2']},\n"
        " 'start_room': 'bedroom'}\n"
        ">>> print(open('tomas.txt').read())\n"
        "[walk] <kitchen> (1)\n[walk] <kitchencabinet> (1)\n[open] <kitchencabinet> (1)\n"
        + GOAL.format(p="Tomas", a="an apple", b="a plate")
    )
    got = state(text)
    places = got["scene"]["places"]
    assert places["bedroom/cabinet"] == {"apple": 1} and places["livingroom/cabinet"] == {}
    assert places["kitchen/kitchencabinet/2"] == {"plate": 1} and places["livingroom/sofa"] == {"book": 1}
    assert got["story"]["start"] == "bedroom" and got["story"]["person"] == "Tomas"
    assert not blockers(text)


def test_home_assistant_style_yaml_with_entity_ids_an_occupant_and_a_logbook() -> None:
    text = (
        "home:\n"
        "  occupant: person.nadia\n"
        "  areas:\n"
        "    kitchen:\n"
        "      entities:\n"
        "        - entity_id: appliance.kitchen_fridge\n"
        "          contents: {salmon: 1}\n"
        "        - entity_id: container.kitchen_cabinet_1\n"
        "          contents: {}\n"
        "    living_room:\n"
        "      entities:\n"
        "        - entity_id: furniture.living_room_sofa\n"
        "          on_top: {remote_control: 2}\n"
        "events:\n"
        "  - {event: start, area: living_room}\n"
        "  - {event: walk_to, target: area.kitchen}\n"
        "  - {event: walk_to, target: appliance.kitchen_fridge, note: 'recording stops here'}\n"
        + GOAL.format(p="Nadia", a="a salmon", b="a remote control")
    )
    got = state(text)
    places = got["scene"]["places"]
    assert places["kitchen/fridge"] == {"salmon": 1} and places["kitchen/kitchencabinet/1"] == {}
    assert places["livingroom/sofa"] == {"remotecontrol": 2}
    assert got["story"]["start"] == "livingroom" and got["story"]["person"] == "Nadia"
    assert got["story"]["visits"][-1].startswith("kitchen/fridge")
    assert not blockers(text)


def test_a_graphql_request_is_left_out_and_its_response_read_with_room_named_targets() -> None:
    text = (
        "The API answers with the flat. Activity ends at seq 3.\n"
        "query Flat {\n  flat(occupant: \"Ivo\") {\n    rooms { name furniture { type items { name count } } }\n"
        "    activity { seq verb target }\n  }\n}\n"
        '{"data": {"flat": {"rooms": [\n'
        ' {"name": "bedroom", "furniture": [{"type": "cabinet", "items": [{"name": "book", "count": 1}]}]},\n'
        ' {"name": "kitchen", "furniture": [{"type": "cabinet", "items": []}]}],\n'
        ' "activity": [{"seq": 0, "verb": "is_in", "target": "kitchen"},\n'
        '  {"seq": 1, "verb": "walk_to", "target": "bedroom"},\n'
        '  {"seq": 2, "verb": "walk_to", "target": "bedroom cabinet"},\n'
        '  {"seq": 3, "verb": "open", "target": "bedroom cabinet"}]}}}\n'
        + GOAL.format(p="Ivo", a="a book", b="an apple")
    )
    got = state(text)
    assert got["scene"]["places"]["bedroom/cabinet"] == {"book": 1}
    assert got["story"]["start"] == "kitchen"
    assert got["story"]["visits"][-1] == "bedroom/cabinet (opened)"
    assert not blockers(text)


def test_a_prompt_line_alone_is_no_data_and_text_without_data_is_untouched() -> None:
    text = ">>> print(x)\nMark is in the kitchen."
    assert rewrite_structured(text) == (text, [])
