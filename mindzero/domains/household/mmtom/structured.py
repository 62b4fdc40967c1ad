"""Home states and episodes pasted as data, rewritten into the line form the reader takes (one
place a line, ``kitchen > fridge: plate, cupcake x2.``, as :mod:`.formats` writes its entries) and
into one plain sentence per action ("Mark walks towards the 3rd kitchen cabinet."):

- **JSON or YAML in the user's own schema**, in a ```` ``` ```` fence or not, pretty-printed or
  compact (PyYAML also takes unquoted keys and Python's quotes): rooms over furniture over contents
  (a list, an ``item: count`` map, a string), lists of records (``{"room": ..., "furniture": ...,
  "inside": [...], "count": 8}``), numbered cabinets (``kitchen_cabinet_3``, ``cabinets: {1: {...}}``,
  a list of lists under ``cabinets``), the person and start room (``"person"``, ``starts_in``), the
  actions as strings ("open fridge", "walk_to kitchen_cabinet_2", ``[walk] <fridge> (1)``) or
  objects (``{"action": "open", "target": "fridge"}``), the question and options as fields;
- **VirtualHome**: relations one a line or as a list (``apple_2 INSIDE kitchencabinet_1``,
  ``apple.101 INSIDE cabinet.22``, ``(plate_1, ON, kitchentable_1)``, ``a -[ON]-> b``), edges
  between bare node ids under a node table (``22: cabinet``), a graph dump (``{"nodes": [...],
  "edges": [...]}``), a summary grouped by room (``kitchen: fridge, kitchencabinet x8`` over
  ``INSIDE fridge: apple x2``), a line of empty places (``# empty: cabinet_2, kitchencabinet.1-8``),
  a header (``character: Mark``, ``init_room: kitchen``, ``char0 INSIDE bedroom``) and a program
  (``[walk] <kitchencabinet> (3)``, ``<char0> [open] <fridge> (1)``, with step numbers).

Instance numbers of kitchen cabinets are their numbers from the left when they run 1..n (as
MMToM-QA's writers and VirtualHome's scripts number them); other ids are put in order, and the
reading notes it; a legend saying "right to left" turns them round. Other furniture's ids only tie
a program's ``<cabinet> (22)`` to its place. VirtualHome's CLOSE / FACING / HOLDS edges and an
object's INSIDE its room say nothing here. An action the reader has no word for (``[grab]``,
``[putin]``, "switch on") is an unread action, which blocks the answer. Text around the data (prose,
the question) is left as it is; data that looks like JSON but does not parse is a UserError.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

import yaml

from mindzero.core.errors import UserError, plural
from mindzero.domains.household.mmtom.formats import Entry
from mindzero.domains.household.mmtom.lexicon import display_name, household_words, lexicon, text_note

#: A text this pass may apply to, each form behind a cheap test: a fence or a line opening a JSON
#: value, a YAML key over an indented key, a VirtualHome relation or program step.
TRIGGERS = (
    (
        ("```", "{", "["),
        re.compile(r"^[ \t]*(?:```|\{[ \t]*(?:$|[\"'{\[}]|\w+[\"']?[ \t]*:)|\[[ \t]*(?:$|[\"'{\[\]]))", re.M),
    ),
    (
        (":\n", ":\r", ": \n", ":\t\n"),
        re.compile(
            r"^(?:-[ \t]+)?[A-Za-z_][\w .-]{0,40}:[ \t]*(?:#[^\n]*)?\n(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]+[\w\"'-][^\n:]*:",
            re.M,
        ),
    ),
    ((": [", ": {", ":[", ":{"), re.compile(r"^[A-Za-z_][\w .-]{0,40}:[ \t]*[\[{]", re.M)),
    (("]<", "] <", "]\t<"), re.compile(r"\[[A-Za-z_ ]{2,20}\][ \t]*<")),
    (
        ("INSIDE", "ON", "CLOSE", "FACING"),
        re.compile(
            r"(?<=[\w)>][ \t])(?:INSIDE|ON|CLOSE|FACING)[ \t]+<?[a-z]|^[ \t]*(?:INSIDE|ON)[ \t]+\w[^\n]*:", re.M
        ),
    ),
)
FENCE = re.compile(r"^\s*```\s*([\w+-]*)\s*$")
JSON_START = re.compile(r"^\s*(?:\{\s*(?:$|[\"'{\[}]|\w+[\"']?\s*:)|\[\s*(?:$|[\"'{\[\]]))")
#: A YAML key line with nothing after it ("apartment:"), or with a flow value ("furniture: [a, b]").
YAML_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w .-]{0,40}):[ \t]*(?:#.*)?$")
YAML_FLOW = re.compile(r"^(?P<key>[A-Za-z_][\w .-]{0,40}):[ \t]*[\[{]")
YAML_ITEM = re.compile(r"^-[ \t]+[A-Za-z_][\w .-]{0,40}:[ \t]*$")
YAML_TOP = re.compile(r"^[A-Za-z_][\w .-]{0,40}:(?:\s|$)")
YAML_NESTED = re.compile(r"^[ \t]+(?:-[ \t]+)?[\w\"'][\w .\"'-]*:(?:\s|$)|^[ \t]*-[ \t]+[\[{]")

#: A VirtualHome node: a class with an optional instance id ("kitchencabinet_3", "cabinet.22",
#: "<fridge> (1)", "apple[2]") or, under a node table, a bare id.
NODE = r"<?[A-Za-z][A-Za-z_]*?>?(?:\s*[_.#:]?\s*[(\[]?\s*\d+\s*[)\]]?)?|\d+"
#: A relation's subject with a count: "plate x3", "3x plate", "plate (x3)".
COUNTED_NODE = r"(?:\d+\s*[x×]\s*)?<?[A-Za-z][A-Za-z_]*?>?(?:\s*\(?[x×]\s*\d+\)?)?"
RELATIONS = "INSIDE|ON|IN|CLOSE|FACING|HOLDS_RH|HOLDS_LH|HOLDS|BETWEEN|ON_TOP_OF|INSIDE_OF|SITTING|LYING|ONTOP"
RELATION = re.compile(
    rf"^\(?\s*(?P<a>{NODE}|{COUNTED_NODE})(?:\s*(?:,|-+>?|=+>?)\s*\[?|\s+\[?|\[)\s*(?P<rel>{RELATIONS})"
    rf"(?:\s*\]?\s*(?:,|-*>|=+>|:)\s*|\s*\]\s*|\s+)(?P<b>{NODE})\s*\)?$"
    rf"|^(?P<rel2>{RELATIONS})\s*\(\s*(?P<a2>{NODE})\s*,\s*(?P<b2>{NODE})\s*\)$",
    re.I,
)
#: A PDDL fact: "(inside apple_1 fridge_1)", "(inside_room fridge_1 kitchen)", "(ontop plate_1 table_1)".
FACT = re.compile(rf"^\(\s*(?P<rel>[A-Za-z_]+)\s+(?P<a>{NODE})\s+(?P<b>{NODE})\s*\)$")
PREDICATES = {
    "inside": "INSIDE", "in": "INSIDE", "inside_room": "INSIDE", "in_room": "INSIDE", "obj_inside": "INSIDE",
    "on": "ON", "ontop": "ON", "on_top": "ON", "on_top_of": "ON", "obj_ontop": "ON", "close": "CLOSE",
    "next_to": "CLOSE", "facing": "FACING", "holds_rh": "HOLDS_RH", "holds_lh": "HOLDS_LH", "holds": "HOLDS",
}  # fmt: skip
#: A line's list mark or step number ("- ", "3. ", "007 ", "step 3:").
STEP = re.compile(r"^\s*(?:[-*•]\s+|(?:step\s*)?\d{1,4}\s*[.):-]?\s+(?=\S)|(?:step|s|t)?\s*\d{1,4}\s*[.):]\s*)", re.I)
#: A VirtualHome program step: "[walk] <kitchencabinet> (3)", "<char0> [putin] <apple> (2) <fridge> (1)".
PROGRAM = re.compile(
    r"^(?:<(?P<char>char\d*)>\s*|(?P<who>[A-Z][a-z]+)\s*:\s*)?\[(?P<verb>[A-Za-z_ ]{2,20})\]\s*"
    r"(?P<args>(?:<[^<>\n]+>\s*(?:\(\s*\d+(?:\.\d+)?\s*\))?\s*){0,2})\s*(?:(?:#|//).*)?$"
)
ARG = re.compile(r"<([^<>]+)>\s*(?:\(\s*(\d+)(?:\.\d+)?\s*\))?")
#: A summary's contents line: "INSIDE cabinet (1): cupcake, book x2", "ON sofa: dish bowl".
SUMMARY = re.compile(rf"^(?P<rel>INSIDE|ON|IN)\s+(?P<place>{NODE})\s*[:=-]\s*(?P<items>.*)$", re.I)
#: A place's contents on its own line: "fridge_1: cupcake_1, cupcake_2", "kitchencabinet (4): empty".
PLACE_LINE = re.compile(rf"^(?P<place>{NODE})\s*[:=]\s*(?P<items>.*)$")
#: A line of empty places: "# empty: cabinet_2, kitchencabinet_1", "nothing INSIDE: kitchencabinet.1-8".
EMPTIES = re.compile(
    r"^(?:#+|//|;+)?\s*(?=[^:\n]{0,60}\b(?:empty|nothing|no (?:contents|items|objects|inside))\b)"
    r"[^:\n]{0,60}:\s*(?P<items>.+)$",
    re.I,
)
#: One empty place: "kitchencabinet_2 -> empty", "; bathroomcabinet_1: empty", "fridge_1 is empty".
EMPTY_ONE = re.compile(
    r"^(?:#+|//|;+)?\s*(?P<items>[^:\n]{1,200}?)\s*(?:->|=>|:|=|\bis\b|\bare\b|\bare all\b)\s*(?:empty|nothing)\.?$",
    re.I,
)
#: A node with an id range: "kitchencabinet.1-8", "kitchencabinet_1..8", "kitchencabinet (1-8)".
RANGE = re.compile(r"^<?([A-Za-z][A-Za-z_]*?)>?\s*[_.#:]?\s*\(?\s*(\d+)\s*(?:-|–|\.\.|to)\s*_?(\d+)\s*\)?$")
#: An item of a list of empty places with its node id first: "207 kitchencabinet#2".
ID_FIRST = re.compile(r"^(?P<id>\d+)\s+(?P<cls>[A-Za-z][A-Za-z_]*)(?:\s*#\s*\d+)?$")
#: A node table line under "nodes:": "22: cabinet", "22 cabinet (bedroom)", "id=22 class=cabinet".
NODE_LINE = re.compile(
    r"^\(?(?:id\s*[:=]\s*)?(?P<id>\d+)\)?\s*[:=,|-]?\s*(?:class(?:_name)?\s*[:=]\s*)?<?(?P<cls>[A-Za-z][A-Za-z_ ]*?)>?"
    r"(?:\s*[|,]?\s*(?:idx\s*[:=]\s*)?(?P<idx>\d+))?\s*(?:\((?P<aside>[^()]*)\))?\s*$"
)
#: A table's column names ("id  class_name  idx", "from_id REL to_id"): they say nothing here.
COLUMNS = frozenset(
    "id class class_name name idx index instance category from to from_id to_id rel relation relation_type type "
    "node nodes edge edges src dst source target | , -".split()
)
PERSON_KEY = re.compile(
    r"\b(?i:char(?:acter)?\d*|agent|person|actor|subject|protagonist|who|name)\s*[:=]\s*(?:<char\d*>\s*)?(?P<name>[A-Z][a-z]+)\b"
)
START_KEY = re.compile(
    r"\b(?:init(?:ial)?[ _]?(?:room|location)|start(?:ing)?[ _]?(?:room|location)|starts?[ _]in|start"
    r"|begins?[ _]in|location)\s*[:=]?\s*(?:the\s+)?"
    r"(?P<room><?[A-Za-z][A-Za-z_]*(?:\s+room)?>?(?:[._#]?\d+|\s*\(\d+\))?)",
    re.I,
)
NAMED_START = re.compile(
    r"\b(?P<name>[A-Z][a-z]+),?\s+(?:starts|begins|is)\s+in\s+(?:the\s+)?(?P<room>[a-z_]+(?: room)?)"
)
#: A comment, a section heading ("program:", "## scene relations", "edges:") or a legend in brackets.
COMMENT = re.compile(r"^(?:#|//|%|;)")
SECTION = re.compile(
    r"^[^\w\n]{0,5}[\w ]{0,30}\b(?:relations?|edges?|nodes?|scene|graph|program|script|actions?|steps?|state|"
    r"episode|facts?|init)\b[\w ]{0,30}(?:\(.*\))?\s*:?\s*$",
    re.I,
)
LEGEND = re.compile(r"^\(.*\b(?:ids?|numbers?|\(n\)|nth|left|right)\b.*\)\.?$", re.I)
REVERSED = re.compile(r"right[\s_-]*to[\s_-]*left|from[\s_]the[\s_]right", re.I)
#: Words that make a contents value empty.
EMPTY = re.compile(r"^[\s(\[{-]*(?:-+|–|—|none|empty|nothing|n/?a|null|nil)?[\s)\]}-]*$", re.I)
#: A count written with an item: "2 apples", "apple x2", "apples (x2)", "apple: 2", "3x plate".
COUNTED = re.compile(r"^(?:(?P<n>\d+)\s*[x×*]?\s+(?P<a>.+)|(?P<b>.+?)\s*(?:\(\s*)?[x×*:]\s*(?P<m>\d+)\s*\)?)$", re.I)

#: Document keys by what their value is (normalized: lower case, "_" between words).
KEYS = {
    "person": {"person", "character", "char", "agent", "actor", "who", "subject", "protagonist", "name",
               "person_name", "character_name", "agent_name", "occupant", "resident", "tenant"},
    "start": {"start_room", "starts_in", "start", "init_room", "initial_room", "start_location", "starting_room",
              "location", "current_room", "starting_location", "initial_location", "init_location", "begins_in",
              "start_in", "room", "in_room", "initial_position", "start_position", "position"},
    "actions": {"actions", "program", "script", "steps", "events", "trajectory", "history", "action_log", "log",
                "sequence", "action_sequence", "observed_actions", "moves", "timeline", "what_happened", "did",
                "logbook", "activity", "activities", "journal", "audit_log", "event_log"},
    "question": {"question", "q", "query", "prompt", "ask", "question_text", "text"},
    "options": {"options", "choices", "answers", "alternatives", "candidates"},
    "contents": {"contents", "content", "contains", "inside", "in", "items", "objects", "holds", "holding", "stuff",
                 "things", "on", "on_top", "ontop", "on_it", "in_it", "objects_inside", "items_inside",
                 "objects_on", "items_on", "has"},
    "places": {"furniture", "containers", "surfaces", "places", "appliances", "storage", "fixtures", "entities",
               "devices"},
    "home": {"apartment", "home", "house", "flat", "rooms", "layout", "scene", "state", "home_state", "world",
             "environment", "env", "map", "graph", "init_graph", "initial_state", "episode", "data", "story",
             "inventory", "household", "world_state", "scene_graph", "areas", "zones", "spaces"},
    "note": {"note", "notes", "comment", "remark", "annotation"},
    "count": {"count", "qty", "quantity", "n", "amount", "how_many", "copies"},
    "number": {"number", "num", "no", "nr", "index", "position", "pos", "cabinet_number", "slot", "order_from_left"},
    "place_name": {"furniture", "container", "place", "surface", "appliance", "where", "item", "unit"},
    "verb": {"action", "verb", "act", "type", "op", "command", "do", "event", "kind", "name"},
    "target": {"target", "object", "obj", "to", "where", "destination", "place", "location", "at", "into",
               "container", "furniture", "what", "arg", "args", "argument", "item", "room", "area", "entity",
               "entity_id"},
}  # fmt: skip
#: Action words by the reader's verb; the rest of VirtualHome's are actions the reader cannot read.
VERBS = {
    "walk": {"walk", "walkto", "walktowards", "walktoward", "goto", "go", "run", "runto", "move", "moveto",
             "navigate", "navigateto", "approach", "headto", "head", "enter", "find", "gotowards", "reach"},
    "open": {"open", "opened", "opens"},
    "close": {"close", "closed", "closes", "shut", "shuts"},
}  # fmt: skip
#: VirtualHome's and other simulators' actions the reader has no word for.
OTHER_VERBS = frozenset(
    "grab pick pickup take putin putback put place drop release puton putoff switchon switchoff turnon turnoff "
    "drink eat wash rinse wipe pour sit standup lie sleep wakeup lookat look turnto watch pointat point touch "
    "push pull cut type read plugin plugout greet squeeze scrub".split()
)


def rewrite_structured(text: str) -> tuple[str, list[dict]]:
    """(the text with its JSON, YAML and VirtualHome parts as the reader's lines and sentences, notes)."""
    if not any(any(c in text for c in cheap) and form.search(text) for cheap, form in TRIGGERS):
        return text, []
    lines = text.split("\n")
    home = _Home()
    scaffold = _scaffolding(lines, home)
    blocks = _documents(lines, home)
    _virtualhome(lines, blocks, home)
    if not home.kinds:
        return text, []
    _told_start(lines, home)
    _legends(lines, home, scaffold)
    home.finish()
    return home.render(lines)


#: A REPL's or shell's input line around pasted data: ">>> pprint(scene)", "In [4]: state", "$ cat ep.json",
#: "PS C:\\> Get-Content x.json", "irb(main):001:0> puts ...", "sqlite> select ...", "mysql> ...".
PROMPT = re.compile(
    r"^\s*(?:>>>|In \[\d+\]:|\$|PS [^>\n]{0,80}>|irb\([^)\n]*\)[:\d]*>"
    r"|(?:sqlite|mysql|psql|postgres|redis[^>\n]*)[=#]?>)\s*(?P<cmd>\S.*)?$"
)
#: Input that is code or a command ("pprint(g)", "x = load()", "cat a.json | jq .", "curl -s ..."), not prose.
COMMAND = re.compile(
    r"^(?:[\w.]+\s*\(.*\)\s*;?|[\w.\[\]'\"]+\s*=\s*\S.*|(?:cat|head|tail|jq|curl|http|less|more|type|python\d?|node"
    r"|gql|Get-Content|gc|yq|sqlite3|echo|print|puts|pp|select|from)\b.*|[\w.]+)$",
    re.I,
)
#: An output prompt before the data: "Out[4]: {...", "=> {...", "$1 = {...", "[1] ".
OUT_PROMPT = re.compile(r"^\s*(?:Out\[\d+\]:|=>|\$\d+ =)\s*(?=[\[{(])")
#: A file banner: head's / tail's "==> ep/script.txt <==", "--- scene.json ---", "=== file: a.yaml ===".
BANNER = re.compile(
    r"^\s*(?:==>.*<==|(?:-{3,}|={3,})\s*(?:file:?\s*)?[\w./\\ -]+\.\w{1,5}\b.*?(?:-{3,}|={3,}))\s*$", re.I
)
#: A GraphQL operation over its response ("query FlatState {" ... "}"): the request, not the data.
GRAPHQL = re.compile(r"^\s*(?:query|mutation|subscription|fragment)\b[^{}\n]*\{\s*$")
#: A sentence explaining the data's notation ("[] = checked and empty.", '"items": null means no data.',
#: "kitchencabinet_N is ...") or saying where the data stops ("The script stops after the second [Walk].").
NOTATION = re.compile(
    r"\[\]|\{\}|\b(?:null|None|nil)\s*(?:=|means\b|stands\b)|[=:]\s*(?:null|None|nil)\b|[\"'][\w ]+[\"']\s*:"
    r"|\b[a-z]+_N\b|\[[A-Za-z_]+\]|\bseq\s+\d"
)
DATA_ENDS = re.compile(
    r"\b(?:script|log|logbook|program|activity|trace|events?|data|response|dump|run)\b[^.?!]{0,40}"
    r"\b(?:ends?|stops?|finishes|cuts? off)\b"
)
#: What a sentence that ends the data may tell all the same: a walk, an opening, a closing.
TOLD = re.compile(r"\b(?:walk\w*|head\w*|goes|went|going|open\w*|clos\w*|mov\w*)\b", re.I)


def _scaffolding(lines: list[str], home: _Home) -> list[int]:
    """REPL and shell input lines, output prompts, file banners and GraphQL requests around the
    data: the prompts taken off, the rest marked used (left out once data is read); their lines."""
    found = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if m := OUT_PROMPT.match(line):
            lines[k] = line[m.end() :]
        elif (m := PROMPT.match(line)) and (not m["cmd"] or COMMAND.match(m["cmd"].strip())):
            found.append(k)
        elif BANNER.match(line):
            found.append(k)
        elif GRAPHQL.match(line):
            depth, j = 0, k
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                j += 1
                if depth <= 0:
                    break
            if depth == 0:
                found += range(k, j)
                k = j
                continue
        k += 1
    home.used += found
    return found


def _legend(sentence: str) -> bool:
    """A sentence on the data's notation, or on where the data stops that tells no walk, opening or closing."""
    if re.search(r"\b(?:left|right|order|first|last)\b", sentence, re.I):
        return False  # "kitchencabinet_N counts from the right": how the data numbers, which the prose reads
    if DATA_ENDS.search(sentence) and re.search(r"\[[A-Za-z_]+\]", sentence):
        return True  # "The script stops after the second [Walk] (she is heading to ...)": the data's own step
    if TOLD.search(sentence) or household_words().search(NOTATION.sub(" ", sentence)):
        return False  # "Cabinets with [] are empty: kitchencabinet_3, ...": it tells something of the home
    return bool(NOTATION.search(sentence) or DATA_ENDS.search(sentence))


def _legends(lines: list[str], home: _Home, scaffold: list[int]) -> None:
    """Prose sentences about the data's notation or where it stops, left out (the data says it)."""
    used, gone = set(home.used) | set(home.fences), []
    for k, line in enumerate(lines):
        if k in used or not line.strip() or not (NOTATION.search(line) or DATA_ENDS.search(line)):
            continue
        pieces = re.split(r"(?<=[.!])\s+", line.strip())
        keep = [p for p in pieces if "?" in p or re.match(r"\(?[a-eA-E]\)", p) or not _legend(p)]
        if len(keep) < len(pieces):
            gone.append(k)
            lines[k] = " ".join(keep)
    if gone or scaffold:
        said = [f"{len(scaffold)} prompt, command or banner line(s)"] if scaffold else []
        said += [f"sentences on the data's notation ({len(gone)} line(s))"] if gone else []
        first = min([*gone, *scaffold])
        home.notes.append(text_note(first + 1, "format", "", "left out: " + ", ".join(said)))


#: A sentence that says only where the person starts ("Mark starts in the bedroom.", "She began in the
#: kitchen."): said after data actions, it is still the start.
STARTS = re.compile(
    r"^\s*(?:(?P<name>[A-Z][a-z]+)|[Hh]e|[Ss]he|[Tt]hey)\s+(?:starts|started|begins|began)(?:\s+out)?\s+in\s+"
    r"(?:the\s+)?(?P<room>[A-Za-z_ ]+?)\s*\.?\s*$"
)


def _told_start(lines: list[str], home: _Home) -> None:
    """A prose line saying where the person starts, when the actions came as data: read as the start
    (in text order it would come after the actions it precedes)."""
    if home.start or not home.actions:
        return
    for k, line in enumerate(lines):
        m = STARTS.match(line) if k not in home.used else None
        if m and home.room_of(m["room"]) and (not m["name"] or not home.person or m["name"] == home.person):
            home.start, home.person = home.room_of(m["room"]), home.person or m["name"]
            home.used.append(k)
            return


# --- names ------------------------------------------------------------------------------------


@cache
def _index() -> dict[str, tuple[str, str]]:
    """Each room, furniture and object phrase of the lexicon without spaces ("bottleofwine",
    "kitchencabinet", "livingroom") -> (section, id)."""
    lex, out = lexicon(), {}
    for section, table in (("room", lex.rooms), ("furniture", lex.furniture), ("object", lex.objects)):
        for phrase, key in table.items():
            out.setdefault(re.sub(r"[\s-]+", "", phrase), (section, key))
    return out


def _words(raw: object) -> str:
    """A name as words: "kitchen_cabinet" → "kitchen cabinet", "KitchenCabinet" → "kitchen cabinet"."""
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(raw).strip().strip("<>\"'`*"))
    return " ".join(re.sub(r"[_.\-]+", " ", s).lower().split())


def _split_number(raw: object) -> tuple[str, int | None]:
    """("kitchen cabinet", 3) from "kitchen_cabinet_3", "cabinet #3", "cabinet (3)", "kitchencabinet3",
    "3rd cabinet"; (words, None) when no number ends or starts it."""
    s = str(raw).strip().strip("<>\"'`*").strip()
    m = re.match(r"^(?P<name>.*?[A-Za-z])[\s_.#:(\[-]*(?P<n>\d{1,4})(?:st|nd|rd|th)?\s*[)\]]?$", s)
    if m:
        return _words(m["name"]), int(m["n"])
    m = re.match(r"^#?(?P<n>\d{1,2})(?:st|nd|rd|th)?[\s_-]+(?P<name>[A-Za-z].*)$", s)
    if m:
        return _words(m["name"]), int(m["n"])
    words = _words(s)
    first, _, rest = words.partition(" ")
    if rest and first in lexicon().ordinals:
        return rest, lexicon().ordinals[first]
    return words, None


def _lookup(words: str) -> tuple[str, str] | None:
    """(section, id) of a name's words ("bottle of wine" → ("object", "wine"); "kitchen cabinets" →
    ("furniture", "cabinet")), plurals too; None for a name the lexicon lacks."""
    index = _index()
    parts = words.split()
    for k in range(len(parts), -1, -1):  # as written, then each word singular ("bottles of wine")
        tried = parts if k == len(parts) else [*parts[:k], re.sub(r"(?<=[^s])e?s$", "", parts[k]), *parts[k + 1 :]]
        found = index.get("".join(tried))
        if found:
            return found
    return None


def _kitchen_named(words: str) -> bool:
    return words.replace(" ", "").startswith("kitchen")


@cache
def _said() -> dict[str, str]:
    """A room's or furniture kind's words as the reader reads them: its first lexicon phrase."""
    lex, out = lexicon(), {}
    for table in (lex.rooms, lex.furniture):
        for phrase, key in table.items():
            out.setdefault(key, phrase)
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _norm_key(key: object) -> str:
    """A key as "_"-joined lower-case words: "startRoom", "start-room", "Start Room" → "start_room"."""
    return re.sub(r"[\s\-.]+", "_", re.sub(r"([a-z])([A-Z])", r"\1_\2", str(key).strip()).lower())


# --- the home ---------------------------------------------------------------------------------


@dataclass
class _Place:
    room: str | None
    kind: str  # a furniture kind of the lexicon, or the words of one it lacks
    number: int | None
    items: Counter = field(default_factory=Counter)
    described: bool = False  # its contents were given (perhaps as empty)

    def said(self) -> str:
        return f"kitchen cabinet {self.number}" if self.number is not None else _said().get(self.kind, self.kind)

    def phrase(self) -> str:
        """How an action names it: "the 3rd kitchen cabinet", "the fridge"."""
        return f"the {_ordinal(self.number)} kitchen cabinet" if self.number is not None else f"the {self.said()}"

    def entry(self) -> str:
        contents = [f"{item} x{n}" if n > 1 else item for item, n in self.items.items()]
        listed = [", ".join(contents)] if contents else ["empty"] if self.described else []
        return Entry(_said().get(self.room, self.room) if self.room else None, self.said(), listed).line()


@dataclass
class _Action:
    verb: str  # walk, open, close; "say" (a sentence kept as written); or a word the reader lacks
    target: object  # as written: a name, a VirtualHome (class, id), or None
    line: int
    text: str


class _Home:
    """What the data says: places and their contents, the person, where they start, what they did,
    the question; then the reader's lines for it (:meth:`render`)."""

    def __init__(self) -> None:
        self.places: dict[tuple, _Place] = {}  # (room, kind, number) -> place, in the order named
        self.nodes: dict[tuple, tuple] = {}  # VirtualHome (class, id) -> ("room", r) | ("place", key) | ("cabinet", id)
        self.cabinet_ids: dict[tuple, int] = {}  # a kitchen cabinet's (class, id) -> id, numbered by finish()
        self.pending: dict[tuple, list] = {}  # contents of those cabinets, given once numbered
        self.classes: dict[int, str] = {}  # a node table's id -> class
        self.aliases: dict[tuple, tuple] = {}  # (class, idx) -> (class, id): a table's instance numbers
        self.ids: dict[str, tuple] = {}  # a record's id ("kitchen.fridge") -> its place
        self.moved: dict[tuple, tuple] = {}  # a place's key when first named without its room -> its key
        self.person: str | None = None
        self.start: str | None = None
        self.question: str | None = None
        self.options: list[str] = []
        self.actions: list[_Action] = []
        self.used: list[int] = []  # lines read as data (left out or replaced)
        self.fences: list[int] = []
        self.scene_at: int | None = None  # the first line that says where things are
        self.kinds: list[str] = []  # "JSON", "YAML", "VirtualHome relations", ...
        self.notes: list[dict] = []
        self.skipped: Counter = Counter()  # what the data says that the reader has no use for
        self.declared_cabinets = 0
        self.reversed = False  # kitchen cabinets numbered from the right
        self.total = 0  # the highest cabinet number, when they are turned round

    def seen(self, line: int) -> None:
        self.scene_at = line if self.scene_at is None else min(self.scene_at, line)

    def place(self, room: str | None, name: object, line: int, number: int | None = None) -> tuple | None:
        """The key of the place ``name`` names in ``room`` (made if new); None if it is no furniture."""
        words, n = _split_number(name)
        number = number if number is not None else n
        found = _lookup(words)
        if (found and found[0] != "furniture") or not words:
            return None
        kind = found[1] if found else words
        if room is None and (kind in lexicon().kitchen_only or (kind == "cabinet" and _kitchen_named(words))):
            room = "kitchen"
        if not (kind == "cabinet" and (room == "kitchen" or (room is None and number is not None))):
            number = None
        key = (room, kind, number)
        if key not in self.places:
            roomless = (None, kind, number)
            if room is not None and roomless in self.places:  # named first without its room
                self.places[key] = self.places.pop(roomless)
                self.places[key].room = room
                self.moved[roomless] = key
            else:
                self.places[key] = _Place(room, kind, number)
        self.seen(line)
        return key

    def cabinets(self, room: str | None, name: object, count: int, line: int) -> None:
        """``count`` numbered kitchen cabinets (a count of other furniture is one place, as in prose)."""
        words = _split_number(name)[0]
        found = _lookup(words)
        if found and found[1] == "cabinet" and (room == "kitchen" or (room is None and _kitchen_named(words))):
            self.declared_cabinets = max(self.declared_cabinets, count)
            for n in range(1, count + 1):
                self.place("kitchen", words, line, n)
        else:
            self.place(room, name, line)

    def fill(self, key: tuple | None, items: list[tuple[str, int]] | None) -> None:
        """Give a place its items (None: nothing said; []: empty)."""
        key = self.current(key)
        if key is None or items is None or key not in self.places:
            return
        place = self.places[key]
        if place.described and (not place.items) != (not items):  # told empty, and told holding something
            said = ", ".join(i for i, _ in items or place.items.items())
            why = f"the data gives {place.said()} as empty and as holding {said}: read as holding it"
            self.notes.append(text_note((self.scene_at or 0) + 1, "format", place.said(), why))
        place.described = True
        for item, n in items:
            place.items[item] += n

    def current(self, key: tuple | None) -> tuple | None:
        """A place's key now (one named first without its room has moved to its room)."""
        while key in self.moved and key not in self.places:
            key = self.moved[key]
        return key

    def give(self, node: tuple | None, items: list[tuple[str, int]] | None) -> None:
        """Items to a node's place; a kitchen cabinet known by its id gets them once numbered."""
        if node is None:
            return
        if node[0] == "place":
            self.fill(node[1], items)
        elif node[0] == "cabinet":
            self.pending.setdefault(node[1], []).append(items)

    def ref(self, ref: object, room: str | None, line: int) -> tuple | None:
        """The place an item record names: a fixture's id, or a name ("kitchen.fridge", "fridge")."""
        if str(ref) in self.ids:
            return self.ids[str(ref)]
        prefix, name = _room_prefixed(str(ref))
        return self.place(prefix or room, name, line)

    def room_of(self, name: object) -> str | None:
        found = _lookup(_split_number(name)[0]) if isinstance(name, str) else None
        return found[1] if found and found[0] == "room" else None

    def finish(self) -> None:
        """Kitchen cabinets known by ids numbered (the ids when they run within 1..n, else their
        order, noted), their contents given; every cabinet turned round if numbered from the right."""
        ids = sorted(set(self.cabinet_ids.values()))
        if ids:
            n = max(self.declared_cabinets, len(ids))
            direct = all(1 <= i <= n for i in ids)
            if not direct:
                shown = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
                why = f"read kitchen cabinet ids {shown} as cabinets 1 to {len(ids)} from the left, in id order"
                self.notes.append(text_note((self.scene_at or 0) + 1, "format", shown, why))
            rank = {i: (i if direct else k) for k, i in enumerate(ids, start=1)}
            for node, raw in self.cabinet_ids.items():
                self.nodes[node] = ("place", self.place("kitchen", "kitchen cabinet", self.scene_at or 0, rank[raw]))
                for items in self.pending.get(node, []):
                    self.fill(self.nodes[node][1], items)
        if self.reversed:
            total = max((p.number or 0) for p in self.places.values())
            renamed = {}
            for key, place in self.places.items():
                if place.number is not None:
                    place.number = total + 1 - place.number
                    key = (place.room, place.kind, place.number)
                renamed[key] = place
            moved = {old: (p.room, p.kind, p.number) for old, p in zip(self.places, self.places.values())}
            self.places = renamed
            self.nodes = {k: (v[0], moved.get(v[1], v[1])) if v[0] == "place" else v for k, v in self.nodes.items()}
            self.total = total

    def target(self, raw: object, here: str | None) -> tuple | None:
        """What an action's target names: ("room", r), ("place", key), ("words", text) of a known kind,
        or ("unknown", text): a room or furniture the lexicon lacks."""
        if isinstance(raw, tuple):  # a VirtualHome (class, id), or (class, idx) of a node table
            cls, ident, words = raw
            node = (cls, ident) if (cls, ident) in self.nodes else self.aliases.get((cls, ident), (cls, ident))
            if node in self.nodes and self.nodes[node][0] in ("room", "place"):
                return self.nodes[node]
            # a kitchen cabinet's number is its id; other words as written ("dining room" stays two words)
            raw = f"{cls} {ident}" if ident is not None and _kitchen_named(cls) else words
        if isinstance(raw, (str, int)) and str(raw) in self.ids:
            return ("place", self.ids[str(raw)])
        if not isinstance(raw, str) or not raw.strip():
            return None
        prefix, raw = _room_prefixed(raw)
        here = prefix or here
        text = re.sub(r"^(?:(?:to|towards|toward|into|at|up to|the)\s+)+", "", raw.strip(), flags=re.I)
        if room := self.room_of(text):
            return ("room", room)
        words, number = _split_number(text)
        found = _lookup(words)
        if not found or found[0] != "furniture":
            return ("unknown", words) if words else None
        kind = found[1]
        if kind == "cabinet" and number is not None and (_kitchen_named(words) or here == "kitchen"):
            if self.reversed:
                number = self.total + 1 - number
            key = ("kitchen", "cabinet", number)
            return ("place", key) if key in self.places else ("words", f"{_ordinal(number)} kitchen cabinet")
        same = [k for k, p in self.places.items() if p.kind == kind and p.number is None]
        if len({self.places[k].room for k in same}) == 1:
            return ("place", same[0])
        here_too = [k for k in same if self.places[k].room == here]
        if here_too:
            return ("place", here_too[0])
        return ("words", _said().get(kind, words))

    def say(self, act: _Action, person: str, here: str | None) -> tuple[list[str], str | None]:
        """The sentences of one action, and the room the person is in after it."""
        if act.verb == "say":  # a sentence of the user's own, as a sentence
            said = _end(act.text)
            return [said[:1].upper() + said[1:]], here
        if act.verb.endswith(" acting"):
            self.notes.append(
                _blocking(act, f"another character ({act.verb[:-7]}) acts: the reader follows one person")
            )
            return [], here
        if act.verb not in VERBS:
            why = f"the reader has no word for {act.verb!r} (it reads walking, opening, closing)"
            self.notes.append(_blocking(act, why if act.verb != "?" else "not read as an action"))
            return [], here
        got = self.target(act.target, here)
        if got is None:
            self.notes.append(_blocking(act, "no place or room named"))
            return [], here
        verb = {"walk": "walks towards", "open": "opens", "close": "closes"}[act.verb]
        kind, what = got
        if kind == "unknown":  # "[walk] <dining_room> (1)": where to is not known, so neither is what follows
            self.notes.append(_blocking(act, f"{what!r} is no room or furniture the reader knows"))
            return [], here
        if kind == "room":
            return [f"{person} {verb} the {_said().get(what, what)}."], what if act.verb == "walk" else here
        if kind == "words":
            return [f"{person} {verb} the {what}."], here
        place = self.places.get(self.current(what))
        if place is None:
            self.notes.append(_blocking(act, "the place it names is not one place of the data"))
            return [], here
        said = []
        if act.verb == "walk" and place.room and here and place.room != here:
            said.append(f"{person} walks towards the {_said().get(place.room, place.room)}.")
        said.append(f"{person} {verb} {place.phrase()}.")
        return said, (place.room or here) if act.verb == "walk" else here

    def render(self, lines: list[str]) -> tuple[str, list[dict]]:
        """The text with the data's lines replaced: every place at the first line that placed
        anything, each action at its own line (the start before the first), the question last."""
        used = sorted(set(self.used + self.fences))
        slots: dict[int, list[str]] = {k: [] for k in used}
        if self.scene_at is not None:
            slots.setdefault(self.scene_at, []).extend(p.entry() for p in self.places.values())
        asked = " ".join([self.question or "", *self.options])
        person = self.person or _name_in(asked or "\n".join(lines[-8:])) or "The person"
        here = self.start
        start = f"{person} is in the {_said().get(self.start, self.start)}." if self.start else None
        for act in sorted(self.actions, key=lambda a: a.line):  # stable: a document's actions in its order
            said, here = self.say(act, person, here)
            if start:
                said, start = [start, *said], None
            slots.setdefault(act.line, []).extend(said)
        if start:
            slots.setdefault(self.scene_at if self.scene_at is not None else used[0], []).append(start)
        out = [("\n".join(slots[k]) if k in slots else line) for k, line in enumerate(lines)]
        if self.question:
            labelled = " ".join(f"({chr(97 + k)}) {_unlabel(o)}" for k, o in enumerate(self.options))
            out.append(f"{str(self.question).strip()} {labelled}".strip())
        first = used[0]
        n, m = len(self.places), len(self.actions)
        why = f"read {' and '.join(dict.fromkeys(self.kinds))} as {n} {plural('place', n)}, {m} {plural('action', m)}"
        if self.skipped:
            why += "; left out: " + ", ".join(f"{w} ({n})" if n > 1 else w for w, n in self.skipped.most_common(8))
        notes = [text_note(first + 1, "format", lines[first][:80], why), *self.notes]
        return "\n".join(out), sorted(notes, key=lambda n: n["line"])


def _end(said: str) -> str:
    said = said.strip()
    return said if not said or said[-1] in ".!?" else said + "."


def _unlabel(option: object) -> str:
    return re.sub(r"^\s*\(?[a-eA-E][).:]\s+", "", str(option)).strip()


def _blocking(act: _Action, why: str) -> dict:
    """An unread action: the answer may depend on it."""
    return {"line": act.line + 1, "part": "actions", "text": act.text[:80], "unknown": [act.verb], "why": why,
            "names": [], "acts": True}  # fmt: skip


def _name_in(asked: str) -> str | None:
    """The person's name as a question says it ("If Susan has been ...", "Is Mark looking ...")."""
    m = re.search(
        r"\b(?!(?:Which|What|If|The|Answer|Please|Is|Does|Do|Q|Question|Where|Who|Why|How)\b)([A-Z][a-z]+)(?:'s)?\s+"
        r"(?:has|had|is|was|thinks?|believes?|wants?|might|may|will|would|looking|trying)\b",
        asked,
    )
    return m[1] if m else None


# --- items ------------------------------------------------------------------------------------


def _item(raw: object, count: object = 1) -> tuple[str, int] | None:
    """(the item as the reader reads it, count) from "2 apples", "bottle_of_wine", "apple x2"."""
    text = str(raw).strip().strip(".;").strip()
    if not text or EMPTY.match(text):
        return None
    m = COUNTED.match(text)
    n = int(count) if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
    if m:
        text, n = (m["a"], int(m["n"])) if m["n"] else (m["b"], int(m["m"]))
    elif (first := text.split(maxsplit=1))[0].lower() in lexicon().numbers and len(first) == 2:
        text, n = first[1], lexicon().numbers[first[0].lower()]  # "two apples"
    words, ident = _split_number(text)  # "apple_2", "apple.101": an instance, one item
    words = re.sub(r"^(?:an?|one|the)\s+", "", words if ident is not None else _words(text))
    found = _lookup(words)
    if found and found[0] == "object":
        return display_name(found[1]), n
    return words, n


def _items(value: object) -> list[tuple[str, int]] | None:
    """A contents value as items: a list ("plate", "2 apples", {"name": ..., "count": ...}), an
    ``item: count`` map, a string ("plate, 2 apples"); [] for empty; None for nothing said."""
    if value is None or value is True:
        return None
    if isinstance(value, str):
        if EMPTY.match(value):
            return []
        parts = re.split(r"\s*(?:,|;|\band\b|\|)\s*", value)
        return [it for p in parts if (it := _item(p))]
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    if isinstance(value, dict):
        out = []
        named = next((value[k] for k in value if _norm_key(k) in {"name", "item", "object", "class", "class_name",
                                                                    "type", "what"}), None)  # fmt: skip
        if named is not None:
            count = next((value[k] for k in value if _norm_key(k) in KEYS["count"] | KEYS["number"]), 1)
            return [it] if (it := _item(named, count)) else []
        for k, v in value.items():
            if isinstance(v, dict):  # "apple": {"count": 2}
                v = next((v[c] for c in v if _norm_key(c) in KEYS["count"] | KEYS["number"]), 1)
            n = v if isinstance(v, int) and not isinstance(v, bool) else 1
            if n == 0:
                continue
            if (it := _item(k, n)) is not None:
                out.append(it)
        return out
    if isinstance(value, list):
        out = []
        for v in value:
            got = _items(v) if isinstance(v, (dict, list)) else [it] if (it := _item(v)) else []
            out += got or []
        return out
    return None


# --- documents (JSON, YAML) -------------------------------------------------------------------


def _documents(lines: list[str], home: _Home) -> list[tuple[int, int]]:
    """Read the JSON and YAML documents among ``lines`` into ``home``; their (start, end) lines."""
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            j = next((k for k in range(i + 1, len(lines)) if FENCE.match(lines[k])), len(lines))
            doc, kind = _parse_fenced("\n".join(lines[i + 1 : j]), fence[1].lower(), i + 1)
            if doc is not None and _interpret(doc, home, i, kind):
                _label(lines, i, home)
                home.used += range(i, min(j + 1, len(lines)))
                blocks.append((i, j + 1))
            else:  # a program or relations in a fence: their lines are read below, the fences go
                home.fences += [i] + ([j] if j < len(lines) else [])
            i = j + 1
            continue
        j = _json_end(lines, i) if JSON_START.match(line) else None
        if j is None and (YAML_KEY.match(line) or YAML_FLOW.match(line) or YAML_ITEM.match(line)):
            j = _yaml_end(lines, i)
        if j is None:
            i += 1
            continue
        at = i
        if not JSON_START.match(line):  # "person: Eli" over "start: {room: bedroom}": the same document
            while i > 0 and i - 1 not in home.used and (m := YAML_TOP.match(lines[i - 1])) and _known(m[0]):
                i -= 1
        doc, kind, j = _parse_block(lines, i, j)
        if j == i + 1 and isinstance(doc, dict):  # one JSON object a line (JSON Lines): one list
            docs = [doc]
            while j < len(lines) and JSON_START.match(lines[j]) and _json_end(lines, j) == j + 1:
                more = _parse_block(lines, j, j + 1)[0]
                if not isinstance(more, dict):
                    break
                docs, j = [*docs, more], j + 1
            doc = docs if len(docs) > 1 else doc
        if doc is not None and _interpret(doc, home, i, kind):
            _label(lines, i, home)
            home.used += range(i, j)
            blocks.append((i, j))
            i = max(j, at + 1)
        else:
            i = at + 1
    return blocks


def _parse_fenced(body: str, lang: str, first: int) -> tuple[object, str]:
    """A fenced block's document, or (None, "") when it is no JSON or YAML (a program, prose)."""
    if not body.strip():
        return None, ""
    try:
        return json.loads(body), "JSON"
    except ValueError as err:
        if lang == "json":
            raise UserError(
                f"line {first + err.lineno}: the JSON block does not parse ({_json_problem(err)})"
            ) from None
    if lang in ("", "yaml", "yml") and any(YAML_TOP.match(x) or YAML_NESTED.match(x) for x in body.split("\n")):
        try:
            doc = yaml.safe_load(body)
        except yaml.YAMLError as err:
            if lang in ("yaml", "yml"):
                raise UserError(
                    f"line {_yaml_line(err, first)}: the YAML block does not parse ({_yaml_problem(err)})"
                ) from None
            return None, ""
        if isinstance(doc, (dict, list)):
            return doc, "YAML"
    return None, ""


def _yaml_problem(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None)
    return f"{getattr(err, 'problem', None) or 'not YAML'}" + (f", column {mark.column + 1}" if mark else "")


def _yaml_line(err: yaml.YAMLError, first: int) -> int:
    mark = getattr(err, "problem_mark", None)
    return first + 1 + (mark.line if mark else 0)


def _json_problem(err: json.JSONDecodeError) -> str:
    return f"{err.msg}, column {err.colno}"


def _json_end(lines: list[str], i: int) -> int | None:
    """The line after a JSON value that opens at line ``i`` (brackets counted outside strings)."""
    depth = 0
    for k in range(i, len(lines)):
        quote, escaped = None, False
        for c in lines[k]:
            if quote:
                escaped, quote = (not escaped and c == "\\"), (None if c == quote and not escaped else quote)
            elif c == '"':
                quote = c
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return k + 1
    return None


def _yaml_end(lines: list[str], i: int) -> int | None:
    """The line after a YAML block starting at ``i`` with a key over an indented key or a flow value;
    None if it is no such block (a heading over prose, a Markdown outline's bullets)."""
    j, nested = i + 1, bool(YAML_FLOW.match(lines[i]))
    listed = bool(YAML_ITEM.match(lines[i]))  # "- kitchen:" over "    fridge: [apple]", not over bullets
    while j < len(lines):
        line = lines[j]
        if not line.strip() or line.lstrip().startswith("#") or line.strip() in ("---", "..."):
            j += 1
        elif line[0] in " \t" or line.startswith("- "):
            nested = nested or bool(YAML_NESTED.match(line) and not (listed and line.lstrip().startswith("-")))
            j += 1
        elif YAML_TOP.match(line):
            j += 1
        else:
            break
    while j > i and (not lines[j - 1].strip() or lines[j - 1].lstrip().startswith("#")):
        j -= 1
    return j if nested and j - i >= 2 else None


def _known(key: str) -> bool:
    """Whether a top-level key names something a home's data holds (a role, a room, furniture)."""
    nk = _norm_key(key.rstrip(": \t"))
    roles = ("person", "start", "actions", "question", "options", "home", "places")
    return any(nk in KEYS[r] for r in roles) or _lookup(_words(nk)) is not None


def _parse_block(lines: list[str], i: int, j: int) -> tuple[object, str, int]:
    """(document, "JSON" or "YAML", end line) of lines ``i``..``j``; a YAML block that does not parse
    loses its last top-level keys one at a time (a "Q: ..." line after it is prose)."""
    body = "\n".join(lines[i:j])
    if JSON_START.match(lines[i]):
        try:
            return json.loads(body), "JSON", j
        except ValueError as err:
            try:
                doc = yaml.safe_load(body)  # unquoted keys, Python's quotes
            except yaml.YAMLError:
                doc = None
            if isinstance(doc, (dict, list)):
                return doc, "JSON", j
            if re.search(r"[\"']\s*:", body):
                raise UserError(f"line {i + err.lineno}: the JSON data does not parse ({_json_problem(err)})") from None
            return None, "", j
    ends = [j] + [k for k in range(j - 1, i, -1) if YAML_TOP.match(lines[k])]
    for end in ends[:6]:
        try:
            doc = yaml.safe_load("\n".join(lines[i:end]))
        except yaml.YAMLError:
            continue
        if isinstance(doc, (dict, list)):
            return doc, "YAML", end
    return None, "", j


def _label(lines: list[str], i: int, home: _Home) -> None:
    """The short lines over a document ("home state:", "# episode.yaml", "actions (person: Jen,
    start_room: kitchen):"): the person and start they name read, the lines left out."""
    k = i - 1
    while k >= 0 and (not lines[k].strip() or k in home.fences):
        k -= 1
    while k >= 0 and k not in home.used and (COMMENT.match(lines[k].strip()) or (
            lines[k].rstrip().endswith(":") and len(lines[k].split()) <= 8)):  # fmt: skip
        _header(lines[k], home)
        if (m := re.search(r"\b(?:by|for|of)\s+([A-Z][a-z]+)\b", lines[k])) and m[1].lower() not in lexicon().known:
            home.person = home.person or m[1]  # "Actions taken by Mark:", "Log for Ana:"
        home.used.append(k)
        k -= 1


def _header_line(text: str) -> bool:
    """Whether a line is a header ("character: Mark", "init_room: kitchen", "agent Priya starts in
    the bedroom."), not a sentence that goes on ("Mark is in the kitchen and opens the fridge")."""
    if len(text.split()) > 12:
        return False
    named = NAMED_START.search(text)
    return bool(PERSON_KEY.search(text) or START_KEY.search(text) or (named and not text[named.end() :].strip(" .")))


def _header(line: str, home: _Home) -> bool:
    """The person and start room a header names ("char: Susan, init room: bathroom.14", "Charles,
    starts in kitchen" at its end); whether it named either."""
    found = False
    m = PERSON_KEY.search(line) or NAMED_START.search(line)
    if m and m["name"].lower() not in lexicon().known:
        home.person, found = home.person or m["name"], True
    for m in [*START_KEY.finditer(line), *NAMED_START.finditer(line)]:
        room = home.room_of(_split_number(m["room"])[0])
        if room:
            home.start, found = home.start or room, True
            break
    return found


def _interpret(doc: object, home: _Home, line: int, kind: str) -> bool:
    """Read a document into ``home``; whether it said anything the reader uses."""
    before = (len(home.places), len(home.actions), home.person, home.start, home.question)
    if isinstance(doc, list) and doc and all(isinstance(x, dict) for x in doc) and any(_edge(x) for x in doc):
        doc = {"nodes": [x for x in doc if not _edge(x)], "edges": [x for x in doc if _edge(x)]}  # one per line
    if isinstance(doc, dict) and _has(doc, "nodes") and _has(doc, "edges"):
        _graph(doc, home, line)
        kind = f"a VirtualHome graph in {kind}"
    elif isinstance(doc, dict) and _get(doc, "verb") is not None and _action_of(doc) and len(doc) <= 4:
        _actions([doc], home, line)  # one action a line (JSON Lines)
    elif isinstance(doc, dict):
        _mapping(doc, home, line, None, None)
    elif isinstance(doc, list):
        _list(doc, home, line, None, top=True)
    if (len(home.places), len(home.actions), home.person, home.start, home.question) == before:
        return False
    home.kinds.append(kind)
    return True


def _edge(d: dict) -> bool:
    return any(_norm_key(k) in ("from_id", "to_id", "relation_type") for k in d)


def _has(d: dict, key: str) -> bool:
    return any(_norm_key(k) == key for k in d)


def _get(d: dict, role: str) -> object:
    return next((v for k, v in d.items() if _norm_key(k) in KEYS[role]), None)


def _options(v: object) -> list[str]:
    return [str(o) for o in (v.values() if isinstance(v, dict) else v)]


def _mapping(d: dict, home: _Home, line: int, room: str | None, place: tuple | None, record: bool = True) -> None:
    """A mapping under ``room`` (and ``place``): each key by what it names."""
    if record and room is None and place is None and isinstance(_get(d, "place_name"), str):
        _record(d, home, line, None)  # {"furniture": "fridge", "contents": [...]}
        return
    items = list(d.items())
    if room is None and place is None:  # {"inside": {"cabinet_1": [...]}, "rooms": {...}}: where things are first
        items.sort(key=lambda kv: _norm_key(kv[0]) in KEYS["contents"])
    for k, v in items:
        nk = _norm_key(k)
        if place is None and isinstance(k, str) and k in home.ids:  # "cabinet_1" a room's list placed
            _fill_ref(home, home.ids[k], v)
            continue
        if nk.isdigit():
            if place is not None:  # "cabinets: {1: {...}, 2: {}}" under a place
                _place_value(home, line, room, home.places[home.current(place)].kind, v, int(nk))
            continue
        prefix, rest = _room_prefixed(str(k))
        if prefix and room is None:  # "kitchen/fridge": [...], "kitchen.cabinet_2": {...}
            _place_value(home, line, prefix, rest, v)
            continue
        named = _lookup(_split_number(k)[0])
        if named and named[0] == "room":
            _room_value(home, line, named[1], v)
        elif named and named[0] == "furniture":
            _place_value(home, line, room, k, v)
        elif named and named[0] == "object" and place is not None:
            home.fill(place, _items({k: v}))
        elif nk in KEYS["person"] and place is None and room is None and _person(v, home, line):
            pass  # "person": "Mark", "agent": {"name": "Mark", "room": "kitchen"}
        elif nk in KEYS["start"] and room is None and home.room_of(v):
            home.start = home.start or home.room_of(v)
        elif nk in KEYS["actions"] and isinstance(v, list):
            _actions(v, home, line)
        elif nk in KEYS["actions"] and isinstance(v, str):  # "walk kitchen, open fridge, close fridge"
            _actions([a for a in re.split(r"\s*(?:[,;]|->|→|\bthen\b)\s*", v) if a], home, line)
        elif nk in KEYS["question"] and isinstance(v, (str, dict)):
            _question(v, home)
        elif nk in KEYS["options"] and isinstance(v, (dict, list)):
            home.options = _options(v)
        elif nk in KEYS["contents"] and place is not None:
            home.fill(place, _items(v))
        elif nk in KEYS["places"] | KEYS["home"] | KEYS["contents"]:
            if isinstance(v, dict):
                _mapping(v, home, line, room, place)
            elif isinstance(v, list):
                _list(v, home, line, room)
            elif isinstance(v, str) and nk in KEYS["places"]:
                for name in re.split(r"\s*,\s*", v):
                    home.place(room, name, line)
        elif "number" in nk or "order" in nk or "direction" in nk:
            home.reversed = home.reversed or bool(REVERSED.search(str(v)))
        elif isinstance(v, (dict, list)) and place is None and room is None:
            _nested(v, home, line)  # "agent": {...}, "data": [...]
        elif not (isinstance(v, str) and _header(f"{k}: {v}", home)):
            home.skipped[str(k)] += 1


def _fill_ref(home: _Home, key: tuple, v: object) -> None:
    """Contents given under a placed fixture's id: a list or string of items, or a mapping with a contents key."""
    if isinstance(v, dict) and any(_norm_key(c) in KEYS["contents"] for c in v):
        for c, sub in v.items():
            if _norm_key(c) in KEYS["contents"]:
                home.fill(key, _items(sub))
    elif not isinstance(v, dict) or v:
        home.fill(key, _items(v))


def _nested(v: object, home: _Home, line: int) -> None:
    if isinstance(v, dict):
        _mapping(v, home, line, None, None)
    else:
        _list(v, home, line, None, top=True)


def _person(v: object, home: _Home, line: int) -> bool:
    if isinstance(v, str) and (m := re.fullmatch(r"\s*(?:person|user|people|agent|character)\.([a-z]+)\s*", v)):
        v = m[1].title()  # an entity id: "person.elizabeth"
    if isinstance(v, str) and re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?", v.strip()):
        home.person = home.person or v.strip()
        return True
    if isinstance(v, dict):  # "agent": {"name": "Mark", "room": "kitchen"}
        _mapping(v, home, line, None, None)
        return True
    return False


def _question(v: object, home: _Home) -> None:
    if isinstance(v, dict):  # {"text": ..., "options": {...}}
        text, options = _get(v, "question"), _get(v, "options")
        home.question = str(text) if text else home.question
        home.options = _options(options) if isinstance(options, (dict, list)) else home.options
    else:
        home.question = v


def _room_value(home: _Home, line: int, room: str, v: object) -> None:
    """What a room key holds: its places (a mapping, a list of names or records, a string)."""
    if isinstance(v, dict):
        _mapping(v, home, line, room, None)
    elif isinstance(v, list):
        _list(v, home, line, room)
    elif isinstance(v, str):
        for name in re.split(r"\s*,\s*", v):
            if name and not EMPTY.match(name):
                home.place(room, name, line)


def _list(v: list, home: _Home, line: int, room: str | None, top: bool = False) -> None:
    """A list: records, place names ("kitchen_cabinet x8"), relations, or (at the top) actions."""
    if top and v and all(isinstance(x, (str, dict)) for x in v) and all(_action_of(x) for x in v):
        _actions(v, home, line)
        return
    for x in v:
        if isinstance(x, dict):
            _record(x, home, line, room)
        elif isinstance(x, str):
            relation = _relation_of(x)
            if relation:
                _relations([relation], home, line)
                home.kinds.append("VirtualHome relations")
            elif home.room_of(x):
                pass  # a list of the rooms
            elif (m := re.match(r"^([^:]+?)\s*[:=]\s*(.*)$", x)) and _lookup(_split_number(m[1])[0]):
                home.fill(home.place(room, m[1], line), _items(m[2]))  # "fridge: apple, cupcake"
            elif (m := COUNTED.match(x.strip())) and (m["n"] or m["m"]):
                home.cabinets(room, m["a"] or m["b"], int(m["n"] or m["m"]), line)
            elif (room is None and not _is_furniture(x)) or (key := home.place(room, x, line)) is None:
                home.skipped[x] += 1  # "tags": ["demo"]: no furniture, and no room to put one in
            elif _split_number(x)[1] is not None and room is not None:
                home.ids.setdefault(x.strip(), key)  # "cabinet_1" in the bathroom's list: an "inside" map's key


#: A record's keys that name its room, and those that name it ("name" of a room's record).
ROOM_KEYS = frozenset({"room", "room_name", "in_room", "area"})
#: Keys that may name a record's furniture, most telling first ("kind": "container" says less than "name").
NAME_KEYS = ("furniture", "fixture", "container", "place", "surface", "appliance", "unit", "entity_id", "entity",
             "type", "class",
             "class_name", "object_type", "name", "label", "kind", "id")  # fmt: skip
#: An item record's keys: the item, and the place it is in or on ({"item": "apple", "fixture": "kitchen.fridge"}).
ITEM_KEYS = ("item", "object", "obj", "thing", "what", "item_name", "object_name")
REF_KEYS = ("fixture", "furniture", "container", "place", "location", "where", "parent", "in", "on", "inside",
            "surface", "at", "holder", "fixture_id", "container_id", "parent_id", "place_id")  # fmt: skip
ID_KEYS = frozenset({"id", "uid", "key", "ref", "fixture_id", "place_id", "entity_id"})


def _record(d: dict, home: _Home, line: int, room: str | None) -> None:
    """A record: {"room": r, "furniture": f, "inside": [...], "count": n}, {"id": "kitchen.cabinet_1",
    "type": "kitchen_cabinet", "pos": 1}, an item's {"item": "apple", "qty": 2, "fixture": "kitchen.fridge"},
    a room's {"name": "kitchen", "furniture": [...]}, or a mapping ({"fridge": [...]}) in a list."""
    keys = {_norm_key(k): v for k, v in d.items()}
    room = home.room_of(next((v for k, v in keys.items() if k in ROOM_KEYS), None)) or room
    rest = {k: v for k, v in d.items() if _norm_key(k) not in ROOM_KEYS}
    named = [keys[k] for k in NAME_KEYS if isinstance(keys.get(k), (str, int)) and not isinstance(keys[k], bool)]
    if not any(_is_furniture(n) for n in named) and (here := next(filter(None, map(home.room_of, named)), None)):
        _mapping(
            {k: v for k, v in rest.items() if not isinstance(v, str) or not home.room_of(v)}, home, line, here, None
        )
        return  # a room's record: {"name": "kitchen", "furniture": [...]}
    item = next((keys[k] for k in ITEM_KEYS if isinstance(keys.get(k), str)), None)
    ref = next(
        (keys[k] for k in REF_KEYS if isinstance(keys.get(k), (str, int)) and not isinstance(keys[k], bool)), None
    )
    if item is not None and ref is not None and not _is_furniture(item):
        count = next((v for k, v in keys.items() if k in KEYS["count"] | KEYS["number"] and isinstance(v, int)), 1)
        home.fill(home.ref(ref, room, line), [it] if (it := _item(item, count)) else [])
        return
    name = next((n for n in named if _is_furniture(n)), named[0] if named else None)
    if name is None:  # {"room": "kitchen", "furniture": [...]}, {"kitchen": {...}}, {"fridge": [...]}
        _mapping(rest, home, line, room, None, record=False)
        return
    prefix, name = _room_prefixed(str(name))
    room = prefix or room
    count = _get(d, "count")
    number = next((v for k, v in keys.items() if k in KEYS["number"] and isinstance(v, int)), None)
    told = (str(v) for k, v in keys.items() if k in ("numbered", "numbering", "order", "direction"))
    home.reversed = home.reversed or any(REVERSED.search(v) for v in told)
    contents = [v for k, v in keys.items() if k in KEYS["contents"]]
    if isinstance(count, int) and count > 1 and number is None:
        home.cabinets(room, name, count, line)
        for v in contents:  # "contents": {1: [...], 2: []} under a count of cabinets
            if isinstance(v, (dict, list)):
                _place_value(home, line, room, name, v if isinstance(v, dict) else {}, None)
        return
    key = home.place(room, name, line, number)
    if key is None:
        home.skipped[str(name)] += 1
        return
    for k, v in keys.items():
        if k in ID_KEYS and isinstance(v, (str, int)):
            home.ids[str(v)] = key  # a fixture id the items and actions name
    if keys.get("empty") is True:
        home.fill(key, [])
    for v in contents:
        home.fill(key, _items(v))


def _is_furniture(name: object) -> bool:
    found = _lookup(_split_number(_room_prefixed(str(name))[1])[0]) if isinstance(name, (str, int)) else None
    return bool(found and found[0] == "furniture")


def _room_prefixed(name: str) -> tuple[str | None, str]:
    """("kitchen", "cabinet_1") from "kitchen.cabinet_1", "kitchen/fridge", "living_room > sofa"."""
    m = re.match(r"^\s*([A-Za-z_ ]+?)\s*(?:\.|/|>|::)\s*(.+)$", name)
    if m:
        found = _lookup(_words(m[1]))
        if found and found[0] == "room":
            return found[1], m[2]
    m = re.match(r"^([a-z][a-z_]*)\.([A-Za-z]\w*)$", name.strip())
    if m and not _lookup(_words(m[1])):  # an entity's domain: "appliance.kitchen_fridge", "area.kitchen"
        return _room_prefixed(m[2])
    words, number = _split_number(name)
    if " " in words and not _lookup(words):  # "bedroom cabinet", "living_room_sofa", "kitchen_stove"
        parts = words.split()
        for k in (1, 2):
            found, rest = _lookup(" ".join(parts[:k])), " ".join(parts[k:])
            if found and found[0] == "room" and rest and (f := _lookup(rest)) and f[0] == "furniture":
                return found[1], rest if number is None else f"{rest} {number}"
    return None, name


def _place_value(home: _Home, line: int, room: str | None, name: object, v: object, number: int | None = None) -> None:
    """What a furniture key holds: a count, its contents, numbered places under it."""
    if isinstance(v, int) and not isinstance(v, bool):
        if number is None and (v > 1 or _split_number(name)[0].endswith("s")):
            home.cabinets(room, name, v, line)
        else:
            home.place(room, name, line, number)
        return
    if isinstance(v, dict) and v and all(str(k).strip().isdigit() for k in v):  # {1: {...}, 2: {}}
        for k, sub in v.items():
            _place_value(home, line, room, name, sub, int(k))
        return
    plural = _split_number(name)[0].endswith("s") and number is None
    if isinstance(v, list) and v and (all(isinstance(x, list) for x in v) or (plural and all(
            isinstance(x, dict) for x in v))):  # fmt: skip
        for k, sub in enumerate(v, start=1):  # one list per cabinet; or one record per cabinet
            told = (
                next((n for c, n in sub.items() if _norm_key(c) in KEYS["number"]), k) if isinstance(sub, dict) else k
            )
            inner = [c for c in sub if _norm_key(c) in KEYS["contents"]] if isinstance(sub, dict) else []
            _place_value(home, line, room, name, sub[inner[0]] if inner else sub, told if isinstance(told, int) else k)
        return
    if isinstance(v, dict) and room is None:  # "sofa": {"location": "living_room", "items": [...]}
        room = home.room_of(next((x for c, x in v.items() if _norm_key(c) in ROOM_KEYS | {"location"}), None))
    key = home.place(room, name, line, number)
    if key is None:
        home.skipped[str(name)] += 1
        return
    if isinstance(v, dict) and any(_norm_key(k) in KEYS["contents"] | KEYS["count"] for k in v):
        count = _get(v, "count")
        if isinstance(count, int) and count > 1 and number is None:
            home.cabinets(room, name, count, line)
        for k, sub in v.items():
            if _norm_key(k) in KEYS["contents"]:
                home.fill(key, _items(sub))
        return
    home.fill(key, _items(v))


# --- actions ----------------------------------------------------------------------------------


def _verb(word: str) -> str:
    """The reader's verb for an action word ("walk_to" → "walk", "Opens" → "open"), or the word."""
    w = re.sub(r"[^a-z]", "", word.lower())
    bare = re.sub(r"(?:to|towards|toward|over|into|up|back)$", "", w) or w  # "walked_to", "walks over"
    for verb, words in VERBS.items():
        if any(form in words for stem in (w, bare) for form in (stem, *_stems(stem))):
            return verb
    return w


def _stems(word: str) -> list[str]:
    """ "walks" → walk, "opened" → open, "closed" → close, "heading" → head."""
    return [
        word[: -len(end)] for end in ("s", "es", "ed", "d", "ing") if word.endswith(end) and len(word) > len(end) + 2
    ]


#: An action written as words: "open kitchen_cabinet_5", "walk_to fridge", "walk to the kitchen", "open(fridge)".
WORDED = re.compile(
    r"^(?P<verb>[A-Za-z]+?(?:[_ ](?:to|towards|toward|on|off|up|in|back|at))?)\s*[\s(:]\s*(?P<target>[^()]+?)\)?\s*\.?$"
)


def _action_of(x: object) -> tuple[str, object] | None:
    """(verb, target as written) of an action string, record or pair; None if it is none."""
    if isinstance(x, str):
        text = STEP.sub("", x.strip())
        m = PROGRAM.match(text)
        if m:
            args = ARG.findall(m["args"])
            target = _program_target(args)
            return _verb(m["verb"]), target
        m = WORDED.match(text)
        if m and ((verb := _verb(m["verb"])) in VERBS or verb in OTHER_VERBS):
            return verb, m["target"]
        return None
    if isinstance(x, dict):
        verb = _get(x, "verb")
        target = next((v for k, v in x.items() if _norm_key(k) in KEYS["target"] and v != verb), None)
        if verb is None and len(x) == 1:  # {"open": "fridge"}
            ((verb, target),) = x.items()
            verb = verb if _verb(verb) in VERBS or _verb(verb) in OTHER_VERBS else None
        if isinstance(verb, str) and target is None and " " in verb.strip():  # {"event": "opened the fridge"}
            return _action_of(verb)
        return (_verb(verb), target) if isinstance(verb, str) else None
    if isinstance(x, list) and len(x) == 2 and all(isinstance(a, str) for a in x):
        return _verb(x[0]), x[1]
    return None


#: Action words that say where the person is at the start ({"event": "start", "area": "bedroom"}, "is_in kitchen").
STARTING = frozenset({"start", "starts", "startin", "startsin", "begin", "begins", "beginsin", "isin", "in", "at",
                      "spawn", "spawnin", "init", "initial", "located", "locatedin", "enterscene", "appear"})


def _program_target(args: list[tuple[str, str]]) -> tuple | None:
    """(class, id, words) of a program step's last argument ("<kitchen_cabinet> (3)")."""
    if not args:
        return None
    words = _words(args[-1][0])
    return words.replace(" ", ""), int(args[-1][1]) if args[-1][1] else None, words


def _actions(v: list, home: _Home, line: int) -> None:
    """A list of actions; a string that is no action form is kept as a sentence ("Mark opens it")."""
    for x in v:
        act = _action_of(x)
        room = home.room_of(_room_prefixed(act[1])[1]) if act and isinstance(act[1], str) else None
        if act is not None and act[0] in STARTING and room and not any(a.verb in VERBS for a in home.actions):
            home.start = home.start or room  # {"event": "start", "area": "bedroom"}, "is_in kitchen"
            continue
        if act is not None:
            home.actions.append(_Action(act[0], act[1], line, str(x)))
            note = _get(x, "note") if isinstance(x, dict) else None
            if isinstance(note, str) and DATA_ENDS.search(note):  # "about to open it, log ends here"
                note = ", ".join(p for p in re.split(r"\s*[,;]\s*", note) if not _legend(p))
            if isinstance(note, str) and note.strip():  # "she is about to open a cabinet": the user's words
                home.actions.append(_Action("say", None, line, note))
        elif isinstance(x, str) and len(x.split()) >= 3:
            home.actions.append(_Action("say", None, line, x))
        else:
            home.actions.append(_Action("?", None, line, str(x)))


# --- VirtualHome ------------------------------------------------------------------------------


def _node(raw: str, home: _Home) -> tuple[str, int | None]:
    """(class, id) of a node as written: "kitchencabinet_3", "cabinet.22", "<fridge> (1)", "22"."""
    raw = raw.strip()
    if raw.isdigit():
        return home.classes.get(int(raw), raw), int(raw)
    words, ident = _split_number(raw)
    return words.replace(" ", ""), ident


def _relation_of(line: str) -> tuple[str, str, str] | None:
    """(a, relation, b) of "apple_2 INSIDE fridge_1", "(apple, INSIDE, fridge)", "INSIDE(a, b)"."""
    text = line.strip().strip("\"',;")
    fact = FACT.match(text)
    if fact and fact["rel"].lower() in PREDICATES:
        return fact["a"], PREDICATES[fact["rel"].lower()], fact["b"]
    m = RELATION.match(text)
    if not m:
        return None
    a, rel, b = (m["a"], m["rel"], m["b"]) if m["rel"] else (m["a2"], m["rel2"], m["b2"])
    if not (rel.isupper() or (re.search(r"\d", a) and re.search(r"\d", b))):
        return None  # "apple on sofa" is prose
    return a, rel.upper(), b


def _relations(found: list[tuple[str, str, str]], home: _Home, line: int) -> None:
    """VirtualHome relations: furniture INSIDE a room first, then objects INSIDE or ON furniture;
    CLOSE, FACING and HOLDS edges and an object INSIDE its room say nothing here."""
    counts = [_count_of(a) for a, _, _ in found]
    nodes = [(_node(a, home), rel, _node(b, home)) for (a, rel, b), (a, _) in zip(found, counts)]
    kinds = [(_lookup(_words(a[0])), rel, _lookup(_words(b[0]))) for a, rel, b in nodes]
    order = sorted(range(len(nodes)), key=lambda k: not (kinds[k][2] and kinds[k][2][0] == "room"))
    for k in order:
        (a, rel, b), (sa, _, sb), n = nodes[k], kinds[k], counts[k][1]
        if rel not in ("INSIDE", "ON", "IN", "ON_TOP_OF", "INSIDE_OF", "ONTOP"):
            home.skipped[f"{rel} edges"] += 1
        elif _character(a[0]) and sb and sb[0] == "room":
            home.start = home.start or sb[1]
        elif sb and sb[0] == "room":
            home.nodes[b] = ("room", sb[1])
            if sa and sa[0] == "furniture":
                _furniture_node(home, a, sb[1], line)
            elif not sa:
                home.skipped[a[0]] += 1
        elif sb and sb[0] == "furniture":
            node = _furniture_node(home, b, None, line)
            if sa and sa[0] == "object":
                home.give(node, [(display_name(sa[1]), n)])
            else:
                home.skipped[a[0]] += 1
        else:
            home.skipped[b[0]] += 1


def _count_of(node: str) -> tuple[str, int]:
    """("plate", 3) from "plate x3", "3x plate", "plate (x3)"; (node, 1) otherwise."""
    m = re.fullmatch(r"(?:(\d+)\s*[x×]\s*)?(.+?)(?:\s*\(?[x×]\s*(\d+)\)?)?", node.strip())
    return (m[2], int(m[1] or m[3])) if m and (m[1] or m[3]) else (node, 1)


def _furniture_node(home: _Home, node: tuple[str, int | None], room: str | None, line: int) -> tuple:
    """The place of a furniture node; a kitchen cabinet's waits for its number (:meth:`_Home.finish`)."""
    cls, ident = node
    if node in home.nodes and ident is not None:
        return home.nodes[node]
    if ident is None:  # no id: the place of that kind in the room, or the one place of that kind
        kind = _lookup(_words(cls))[1]
        same = [k for k, p in home.places.items() if p.kind == kind and p.number is None]
        if room is None and len(same) == 1:
            return ("place", same[0])
        return ("place", home.place(room, cls, line))
    if _lookup(_words(cls))[1] == "cabinet" and ident is not None and (
            room == "kitchen" or (room is None and _kitchen_named(cls))):  # fmt: skip
        idx = next((i for (c, i), n in home.aliases.items() if n == node), None)
        home.cabinet_ids[node] = ident if idx is None else idx  # a table's idx column numbers them
        home.seen(line)
        home.nodes[node] = ("cabinet", node)
    else:
        home.nodes[node] = ("place", home.place(room, cls, line))
    return home.nodes[node]


def _graph(doc: dict, home: _Home, line: int) -> None:
    """VirtualHome's graph: {"nodes": [{"id", "class_name"}], "edges": [{"from_id", "relation_type", "to_id"}]}."""
    nodes = next(v for k, v in doc.items() if _norm_key(k) == "nodes")
    edges = next(v for k, v in doc.items() if _norm_key(k) == "edges")
    for n in nodes if isinstance(nodes, list) else []:
        if isinstance(n, dict):
            ident = next((v for k, v in n.items() if _norm_key(k) in ("id", "node_id")), None)
            cls = next((v for k, v in n.items() if _norm_key(k) in ("class_name", "class", "name", "type")), None)
            if isinstance(ident, int) and isinstance(cls, str):
                home.classes[ident] = _words(cls).replace(" ", "")
    found = []
    for e in edges if isinstance(edges, list) else []:
        if isinstance(e, dict):
            a = next((v for k, v in e.items() if _norm_key(k) in ("from_id", "from", "source", "src")), None)
            b = next((v for k, v in e.items() if _norm_key(k) in ("to_id", "to", "target", "dst")), None)
            rel = next((v for k, v in e.items() if _norm_key(k) in ("relation_type", "relation", "rel", "type")), "")
            if a is not None and b is not None:
                found.append((str(a), str(rel).upper(), str(b)))
        elif isinstance(e, (list, tuple)) and len(e) == 3:
            found.append((str(e[0]), str(e[1]).upper(), str(e[2])))
    _relations(found, home, line)
    for key, v in doc.items():
        if _norm_key(key) not in ("nodes", "edges") and isinstance(v, (dict, list, str)):
            _mapping({key: v}, home, line, None, None)


def _virtualhome(lines: list[str], blocks: list[tuple[int, int]], home: _Home) -> None:
    """Read VirtualHome relations, summaries, empty places, headers and program steps among the
    lines outside documents (only where two or more such lines are: a text, not a stray "[x]")."""
    inside = {k for i, j in blocks for k in range(i, j)} | set(home.used)
    free = [(k, lines[k].strip()) for k in range(len(lines)) if k not in inside and lines[k].strip()]
    free = [(k, raw if _relation_of(raw) or NODE_LINE.match(raw) else STEP.sub("", raw)) for k, raw in free]
    kinds = {}
    for k, text in free:  # "21 INSIDE 12" is an edge, "3. [walk] ..." a numbered step
        if PROGRAM.match(text):
            kinds[k] = "program"
        elif _relation_of(text) or _relation_list(text):
            kinds[k] = "relation"
        elif SUMMARY.match(text):
            kinds[k] = "summary"
    if len(kinds) < 2:
        return
    room, given, relations, empties, actor = None, [], [], [], None
    for k, text in free:
        kind, used = kinds.get(k), True
        if kind == "program":
            m = PROGRAM.match(text)
            args = ARG.findall(m["args"])
            verb = _verb(m["verb"])
            actor = actor or m["char"] or m["who"]
            if (m["char"] or m["who"]) not in (None, actor):  # "<char1> [open] ...": another person acts
                verb = f"{m['char'] or m['who']} acting"
            target = _program_target(args)
            home.actions.append(_Action(verb, target, k, lines[k].strip()))
        elif kind == "relation":
            relations += [_relation_of(text)] if _relation_of(text) else _relation_list(text)
            home.seen(k)
        elif kind == "summary":
            m = SUMMARY.match(text)
            given.append((_summary_place(home, m["place"], room, k), _summary_items(m["items"])))
        elif (m := EMPTIES.match(text) or EMPTY_ONE.match(text)) and (named := _empties(m["items"], home)):
            empties += named
        elif COMMENT.match(text) or LEGEND.match(text) or SECTION.match(text):
            _header(text, home)
            home.reversed = home.reversed or bool(REVERSED.search(text) and re.search(r"cabinet|\bids?\b", text, re.I))
        elif _header_line(text) and _header(text, home):
            pass
        elif (m := ROOM_LINE.match(text)) and home.room_of(m["room"]) and _furniture_list(m["list"], home):
            room = home.room_of(m["room"])  # "kitchen: fridge, kitchencabinet x8"
            for name in re.split(r"\s*,\s*", m["list"]):
                _summary_furniture(home, name, room, k)
        elif (m := PLACE_LINE.match(text)) and (_lookup(_words(_node(m["place"], home)[0])) or ("",))[0] == "furniture":
            given.append((_summary_place(home, m["place"], room, k), _summary_items(m["items"])))
        elif (m := NODE_LINE.match(text)) and (_lookup(_words(m["cls"])) or _character(m["cls"])):
            cls = _words(m["cls"]).replace(" ", "")  # "1  character  1  (Mary)", "206  kitchencabinet  1"
            home.classes[int(m["id"])] = cls
            if m["idx"]:
                home.aliases.setdefault((cls, int(m["idx"])), (cls, int(m["id"])))
            if _character(cls) and m["aside"] and re.fullmatch(r"[A-Z][a-z]+", m["aside"].strip()):
                home.person = home.person or m["aside"].strip()
        elif all(w.lower() in COLUMNS for w in re.split(r"[\s|,]+", text.strip("|")) if w):
            pass  # a table's column names
        else:
            used = False
            if m := PERSON_KEY.search(text):  # "... the executed script below. char0 = David"
                home.person = home.person or (m["name"] if m["name"].lower() not in lexicon().known else None)
        if used:
            home.used.append(k)
    _relations(relations, home, min(kinds))
    for node, items in given:
        home.give(node, items)
    for node in empties:
        found = _lookup(_words(node[0]))
        if node in home.nodes or (found and found[0] == "furniture"):
            home.give(home.nodes.get(node) or _furniture_node(home, node, None, min(kinds)), [])
    if any(v in ("relation", "summary") for v in kinds.values()):
        home.kinds.append("VirtualHome relations")
    if "program" in kinds.values():
        home.kinds.append("a VirtualHome program")


#: A summary's room line: "kitchen: fridge, kitchencabinet x8", "bedroom (11): desk, cabinet (22)".
ROOM_LINE = re.compile(r"^(?P<room>[A-Za-z_ ]+?)(?:\s*[(.#_]?\s*\d+\)?)?\s*:\s*(?P<list>.*)$")


def _furniture_list(text: str, home: _Home) -> bool:
    """Whether every piece of a room line names furniture ("fridge, kitchencabinet x8"), not prose."""
    for name in re.split(r"\s*,\s*", text.strip()):
        m = COUNTED.match(name)
        words = _words(_node(m["a"] or m["b"] if m else name, home)[0])
        found = _lookup(words)
        if name and not EMPTY.match(name) and (not found or found[0] != "furniture"):
            return False
    return True


def _character(cls: str) -> bool:
    return bool(re.fullmatch(r"<?(?:char(?:acter)?|agent|person)_?\d*>?", cls.strip().lower()))


def _relation_list(text: str) -> list[tuple[str, str, str]]:
    """Relations written as a list on one line: "[apple_2 INSIDE fridge_1, plate_1 ON sofa_1]"."""
    if " " not in text or not re.search(r"[,;]", text):
        return []
    body = re.sub(r"^[\w ]{0,20}:\s*", "", text).strip().strip("[]")
    parts = [p for p in re.split(r"\s*(?:;|,(?![^()]*\)))\s*", body) if p.strip()]
    found = [_relation_of(p) for p in parts]
    return found if len(found) >= 2 and all(found) else []


def _summary_furniture(home: _Home, name: str, room: str, line: int) -> None:
    """A room line's furniture: "cabinet (1)" (an instance), "kitchencabinet x8" (eight cabinets)."""
    name = name.strip()
    if not name or EMPTY.match(name):
        return
    m = COUNTED.match(name)
    if m and not re.search(r"\(\s*\d+\s*\)$", name):
        home.cabinets(room, m["a"] or m["b"], int(m["n"] or m["m"]), line)
        return
    node = _node(name, home)
    found = _lookup(_words(node[0]))
    if found and found[0] == "furniture":
        _furniture_node(home, node, room, line)
    else:
        home.skipped[name] += 1


def _summary_place(home: _Home, raw: str, room: str | None, line: int) -> tuple | None:
    node = _node(raw, home)
    found = _lookup(_words(node[0]))
    if not found or found[0] != "furniture":
        home.skipped[raw] += 1
        return None
    return _furniture_node(home, node, room, line)


def _summary_items(text: str) -> list[tuple[str, int]]:
    """A summary's contents: "cupcake, book x2", "-- empty --", "apple_1, apple_2"."""
    if EMPTY.match(text) or re.fullmatch(r"[-\s(]*(?:empty|nothing|none)[-\s)]*", text, re.I):
        return []
    out = []
    for part in re.split(r"\s*[,;]\s*", text.strip()):
        part = re.sub(r"\s*\(\s*\d+\s*\)$", "", part)  # an instance id, as in a program's "<book> (2)"
        if (it := _item(part)) is not None:
            out.append(it)
    return out


def _empties(text: str, home: _Home) -> list[tuple[str, int | None]]:
    """The nodes a line of empty places names, id ranges spread out ("kitchencabinet.1-8")."""
    out = []
    for part in re.split(r"\s*(?:,|;|\band\b)\s*", text.strip().rstrip(".")):
        m = RANGE.match(part.strip())
        if m:
            cls = _words(m[1]).replace(" ", "")
            out += [(cls, n) for n in range(int(m[2]), int(m[3]) + 1)]
        elif m := ID_FIRST.match(part.strip()):  # "207 kitchencabinet#2"
            out.append((home.classes.get(int(m["id"]), m["cls"].lower()), int(m["id"])))
        elif part.strip():
            node = _node(part, home)
            if not _lookup(_words(node[0])):
                return []
            out.append(node)
    return out
