"""The household reader on a text adventure's transcript and a play's script: the player's
commands are no action of the person, and "here" / "there" is the room of the heading or the stage
direction. Every text here was written for these tests."""

from __future__ import annotations

from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.mmtom.transcript import read_transcript

ADVENTURE = """HOUSE OF NINA
> look

KITCHEN
You can see a fridge and a microwave here. The fridge holds a salmon. The microwave is empty.

> go to bedroom

BEDROOM
You can see a desk and a cabinet here. The cabinet holds two books.
Nina is here.

> follow nina

Nina walks to the kitchen. Nina opens the microwave. Nina closes the microwave.
> wait
Nina walks towards the fridge.

QUESTION: Is Nina trying to get (a) a salmon or (b) a book?"""

PLAY = """SETTING: a flat - a bedroom and a kitchen.
BEDROOM (stage right): a desk and a cabinet; in the cabinet, a book.
KITCHEN (upstage): a fridge with a cupcake in it, and a stove.

[Lights up on the bedroom. OMAR is there, reading.]
OMAR: Right.
[He crosses to the kitchen and opens the fridge. He shuts it.]

DISCUSSION QUESTION: Is Omar trying to get (a) a cupcake or (b) a book?"""


def test_a_transcripts_commands_are_the_players_and_here_is_the_heading_room() -> None:
    read = read_question(ADVENTURE).to_json()
    assert read["story"]["start"] == "bedroom"  # "Nina is here." under BEDROOM, not the player's "> go to bedroom"
    assert read["story"]["visits"] == ["kitchen/microwave (opened)", "kitchen/fridge"]
    assert read["scene"]["places"]["bedroom/cabinet"] == {"book": 2}


def test_a_plays_stage_notes_on_headings_and_the_lit_room() -> None:
    read = read_question(PLAY).to_json()
    assert read["scene"]["places"]["bedroom/cabinet"] == {"book": 1}  # "BEDROOM (stage right):" is the bedroom
    assert read["story"]["start"] == "bedroom"
    assert read["story"]["visits"] == ["kitchen/fridge (opened)"]


def test_a_quoted_line_or_a_question_is_left_as_written() -> None:
    text = "> the fridge is empty\nIs there a plate on the table? Mark is there."
    assert read_transcript(text) == (text, [])  # one quoted line is no transcript; no room heading or lights


def test_a_mud_prompt_a_games_banner_and_a_character_discovered_in_a_room() -> None:
    mud = (
        "TINY HOUSE\nRelease 3 / Serial number 250101 / Inform 7\n\n<20hp 5m> look\nTHE KITCHEN\n"
        "You can see a fridge and a stove here. The fridge holds a salmon. The stove is empty.\n"
        "Sam is standing here.\n<20hp 5m> follow sam\nSam walks to the stove. Sam opens the stove. Sam closes it.\n"
        "<20hp 5m>\nQUESTION: Is Sam trying to get (a) a salmon or (b) a cupcake?"
    )
    read = read_question(mud).to_json()
    assert read["story"]["start"] == "kitchen"
    assert read["story"]["visits"] == ["kitchen/stove (opened)"]
    assert not read_question(mud).blockers()
    discovered = "[OMAR discovered standing in the bedroom.]"
    play = PLAY.replace("[Lights up on the bedroom. OMAR is there, reading.]", discovered)
    assert read_question(play).to_json()["story"]["start"] == "bedroom"


def test_a_games_list_of_what_a_container_holds() -> None:
    mud = (
        "<hp> look\nTHE KITCHEN\n   A fridge stands here.\n   A stove stands here.\n<hp> look in fridge\n"
        "fridge (here) :\n     ( 2) a plate\n     a salmon\n<hp> look in stove\nstove (here) :\n     It is empty.\n"
        "Ada is standing here.\n<hp> follow ada\nAda walks over to the stove.\n"
        "QUIZ: Is Ada trying to get (a) a salmon or (b) a plate?"
    )
    read = read_question(mud).to_json()
    assert read["scene"]["places"]["kitchen/fridge"] == {"plate": 2, "salmon": 1}
    assert read["scene"]["places"]["kitchen/stove"] == {}
    assert read["story"] == {"person": "Ada", "start": "kitchen", "visits": ["kitchen/stove"]}


def test_a_status_line_a_parsers_question_and_a_radio_scripts_cues() -> None:
    asked = "> look in cabinet\nWhich do you mean, the first cabinet or the second cabinet?\n> go to bedroom"
    game = ADVENTURE.replace("KITCHEN\n", "KITCHEN                     Score: 0   Moves: 1\n")
    game = game.replace("> go to bedroom", asked)
    assert read_question(game).to_json()["story"]["start"] == "bedroom"
    radio = PLAY.replace(
        "[Lights up on the bedroom. OMAR is there, reading.]",
        "SOUND: A door. Footsteps, close on mic, OMAR breathing.\nNARRATOR: Omar is in the bedroom.",
    )
    read = read_question(radio).to_json()
    assert read["story"]["start"] == "bedroom" and read["story"]["visits"] == ["kitchen/fridge (opened)"]
