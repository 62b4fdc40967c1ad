"""A story told as a text adventure's transcript or a play's script: the player's commands ("> go
to kitchen", "> wait", "> follow daniel") are the onlooker's, not the person's, and "Daniel is
here." or "[Lights up on the bathroom. MARK is there.]" places the person in the room the
heading or the stage direction names. :func:`read_transcript` drops the commands, takes a stage
note off a room heading ("BEDROOM (stage left): a cabinet ...") and writes where "here" and "there"
are; the reader reads the rest (room headings in capitals, "You can see ... here.", directions in
brackets) as it reads any story."""

from __future__ import annotations

import re

from mindzero.domains.household.mmtom.lexicon import room_words, text_note

#: A player's command after the game's prompt: "> look", "> go to bathroom", ">follow daniel",
#: "<100hp 100m 100mv> look in fridge", a bare prompt (lower case, at most six words: no sentence).
COMMAND = re.compile(r"^\s*(?:>|<[^<>\n]{1,40}>)\s*(?:[a-z][\w'-]*(?:\s+[\w'-]+){0,5})?\s*$")
#: A game's header over what a container holds: "cabinet (here) :", "fridge (in room):".
LISTING = re.compile(r"^\s*(?P<place>[a-z][a-z ]{1,30}?)\s*\((?:here|in room|in the room)\)\s*:\s*$", re.I)
#: "( 2) a wine glass", "[3] plate": a count before an item.
ITEM_COUNT = re.compile(r"^[(\[]\s*(\d{1,2})\s*[)\]]\s*(?:an?\s+)?")
EMPTY_LISTING = re.compile(r"^(?:it is |it's )?(?:empty|nothing)\b", re.I)
#: A line of a game's banner or help, no story.
BANNER = re.compile(
    r"\b(?:release \d+|serial number|inform \d|version \d|copyright|type help|for instructions)\b"
    r"|^\s*(?:which do you mean|i don't (?:understand|know the word)|you can't see any)\b",
    re.I,
)
#: A status line's counters beside a room heading: "LIVING ROOM        Score: 0   Moves: 3".
STATUS = re.compile(r"\s{2,}(?:score|moves|turns|time)\s*:.*$", re.I)
#: "is here", "is standing there", "waits here", "is on stage": the person's place is the scene's.
HERE = re.compile(
    r"(?<=\w )(?P<verb>is|are|was|were|stands?|stood|sits?|sat|waits?|waited)"
    r"(?P<how>\s+(?:standing|sitting|waiting|alone))?\s+(?:here|there|on stage|onstage)\b",
    re.I,
)
#: A script's words for where a scene starts: "AT RISE: WILLIAM stands ...", "JENNIFER is discovered in".
STAGE_WORDS = re.compile(
    r"^(?P<rise>\W*at rise\s*[:,-]\s*)"
    r"|(?<=\w )(?:(?P<be>is|are) )?discovered(?: (?:standing|sitting|alone))?\b(?= (?:in|at|on)\b)",
    re.I,
)
#: A radio or screen script's sound cue, a line of its own: "SOUND: Footsteps.", "MUSIC: A sting. Fade out."
CUE = re.compile(r"^\s*(?:SOUND|MUSIC|SFX|FX|F/X|ATMOS|GRAMS)\s*(?:\([^()]*\))?\s*:.*$")
#: The narrator's cue before what the narrator says: "NARRATOR: Daniel is in the living room."
NARRATOR = re.compile(r"^\s*(?:NARRATOR|STORYTELLER|CHORUS|VOICE(?: OVER)?|V\.?O\.?)\s*(?:\([^()]*\))?\s*:\s*")
#: A stage direction that lights or shows a room: "Lights up on the bathroom", "The kitchen. Morning."
LIGHTS = re.compile(r"\b(?:lights?(?:\s+(?:come|comes|go|goes))?\s+up\s+on|we see|at rise,?\s+in)\s+the\s+", re.I)


def _listings(lines: list[str]) -> list[dict]:
    """A game's list of what a container holds ("cabinet (here) :" over "     ( 2) a wine glass" lines)
    as one sentence on the header's line ("The cabinet has 2 wine glass in it."), in place."""
    notes = []
    for k, line in enumerate(lines):
        if not (head := LISTING.match(line)):
            continue
        j, items = k + 1, []
        while j < len(lines) and lines[j].strip() and lines[j][:1].isspace():
            items.append(ITEM_COUNT.sub(r"\1 ", lines[j].strip().rstrip(".")))
            lines[j], j = "", j + 1
        said = " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]
        empty = not items or EMPTY_LISTING.match(said)
        lines[k] = f"The {head['place']} is empty." if empty else f"The {head['place']} has {said} in it."
        notes.append(text_note(k + 1, "format", line[:80], "a game's list of a container's contents"))
    return notes


def read_transcript(text: str) -> tuple[str, list[dict]]:
    """The text without a transcript's commands and with "here" / "there" placed (module docstring);
    a note per line changed. A text with fewer than two command lines keeps its ">" lines (a quote)."""
    lines, rooms = text.split("\n"), room_words()
    commands = [k for k, line in enumerate(lines) if COMMAND.match(line)]
    if len(commands) < 2:
        commands = []
    else:  # a game's banner and its parser's questions; a status line's score beside a room heading
        commands += [k for k, line in enumerate(lines) if BANNER.search(line)]
        lines = [STATUS.sub("", line) for line in lines]
    why = "a player's command or the game's banner: no action"
    notes = [text_note(k + 1, "format", lines[k][:80], why) for k in commands]
    if commands:
        notes += _listings(lines)
    room = None
    for k, line in enumerate(lines):
        if k in commands:
            lines[k] = ""
            continue
        heading = re.match(rf"^\s*(?P<room>{rooms.pattern})\s*\([^()]*\)\s*(?=:|$)", line, re.I)
        if heading and heading["room"].isupper():  # "BEDROOM (stage left): ..." is the bedroom
            lines[k] = heading["room"] + line[heading.end() :]
        if (named := rooms.match(re.sub(r"^THE\s+", "", line.strip()))) and line.strip().isupper():
            room = named.group().lower()  # a room heading in capitals: "here" is that room below it
        if (lit := LIGHTS.search(lines[k])) and (shown := rooms.match(lines[k], lit.end())):
            room = shown.group().lower()  # "Lights up on the bathroom." sets the scene and tells nothing else
            lines[k] = lines[k][: lit.start()] + lines[k][shown.end() :].lstrip(".,;: ")
        lines[k] = STAGE_WORDS.sub(lambda m: "" if m["rise"] else m["be"] or "is", lines[k])
        lines[k] = CUE.sub("", NARRATOR.sub("", lines[k]))  # a radio script's cues; its narrator tells the story
        placed = HERE.sub(rf"\g<verb>\g<how> in the {room}", lines[k]) if room else lines[k]
        if placed != lines[k]:
            lines[k] = placed
            notes.append(text_note(k + 1, "format", line[:80], f"'here' read as the {room}"))
    return "\n".join(lines), notes
