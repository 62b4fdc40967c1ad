"""Stories pasted from other formats, rewritten into the prose and line form the reader takes
(``kitchen > fridge: plate, cupcake``, see :mod:`~mindzero.domains.household.mmtom.notation`):

- a letter or e-mail: its greeting ("Hi Sam,") and sign-off ("Cheers,", "Best," over a name) go;
- a label before the story ("Scenario for my students: ...") goes;
- a chat export (``[19:02] Priya: ...``, ``12/03/24, 21:15 - Sam: ...``, a ``Marco — 14:20`` line
  over each message): the stamps and speakers go, each message ends as a sentence;
- a spreadsheet pasted as tab-, ``|``- or comma-separated columns (a header such as Room / Furniture /
  Contents / Qty says which column is which; ``-`` or ``(none)`` is empty, a blank cell says
  nothing), and the legend under it (``"-" means empty``);
- a Markdown or indented outline: a room heading (``## Kitchen``, ``- Kitchen:``) over bullets of
  furniture whose deeper bullets are its contents (numbered ones under cabinets: ``#1``, ``#2``);
  another heading ends the room's list and stays as it is.

Each pass touches only lines in its form and notes what it changed; prose passes through as it is.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache

from mindzero.domains.household.mmtom.lexicon import alternatives, lemma, lexicon, text_note

TIME = r"\d{1,2}[:.]\d{2}(?::\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?"
DATE = r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?"
SPEAKER = r"(?P<who>[A-Za-z][\w'.-]*(?: [A-Z][\w'.-]*)?)"  # "Priya", "Priya S.", "jonno"
#: "[19:02] Priya: ok so", "12/03/24, 21:15 - Sam: the kitchen", "21:15 Sam: ..."
STAMPED = re.compile(rf"^\s*(?:\[(?:{DATE}\s*)?{TIME}\]|(?:{DATE}\s*)?{TIME}\s*[-–—]?)\s*{SPEAKER}\s*:\s*(?P<said>.*)$")
#: "Marco — 14:20", "Dana  9:14 AM", "Dana — Today at 09:14", "Priya, [05.12.26 19:02]": a speaker
#: over the lines that follow.
HEADER = re.compile(
    rf"^\s*{SPEAKER},?\s*[-–—]?\s*(?:(?:Today|Yesterday) at\s+)?\[?(?:{DATE}\s*)?{TIME}\]?\s*$"
)
#: Markdown emphasis and code marks: "**empty**", "__Kitchen__", "`fridge`".
EMPHASIS = re.compile(r"\*\*|__|`|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])|(?<![\w_])_(?=\w)|(?<=\w)_(?![\w_])")
#: A checklist's box ("- [ ] fridge", "[x] #2 — a plate"): ticked or not, it says nothing here.
CHECKBOX = re.compile(r"\[[ xX✓✔]\]\s*")
#: A Markdown quote's mark ("> (a) ...").
QUOTED = re.compile(r"^\s*>\s?")
HEADING = re.compile(r"^\s*#{1,6}\s+(?P<text>.*?)\s*#*\s*$")
BULLET = re.compile(r"^(?P<indent>\s*)(?P<mark>[-*•+·]|\d{1,2}[.)])\s+(?P<text>\S.*?)\s*$")
#: A numbered cabinet's line under a list of cabinets: "#1: an apple", "1-5: empty", "2nd: apple",
#: "4th from the left: a plate", "third (top shelf) — a bowl".
NUMBERED_ITEM = re.compile(
    r"^(?:cabinets?|cupboards?|no\.?)?\s*#?(?P<ns>{n}(?:\s*(?:,|and|&|-|–|to)\s*#?{n})*)"
    r"(?:\s+from the (?:left|right))?(?:\s*\([^()]*\))?\s*[:)=–—-]\s*(?P<text>.*)$".replace(
        "{n}", r"(?:\d{1,2}(?:st|nd|rd|th)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
    ),
    re.I,
)
SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
#: Words that make a cell empty ("-", "(none)", "EMPTY"); a blank cell says nothing.
EMPTY_CELL = re.compile(r"^\(?\s*(?:-+|–|—|none|empty|nothing|n/?a|all empty)\s*\)?$", re.I)
#: A legend under a table: '"-" means empty', "(none) = empty", "blank = not described".
LEGEND = re.compile(
    r"^\s*\(?\s*(?:[\"'“]?(?:-|–|—|\(none\)|none|\(empty\)|empty|blank|an? (?:blank|empty) cell|x)[\"'”]?"
    r"\s*(?:cells?\s*)?"
    r"(?:=|:|means?|stands for|is)\s*(?:empty|nothing(?: in it)?|not (?:described|listed|known|noted)|none|unknown"
    r"|(?:i |we )?(?:did ?n[o'’]?t|didnt|have ?n[o'’]?t) (?:note|check|record|list|look)\w*)"
    r"(?:[,;]?\s*[^()\n]*)?)\s*\)?\.?\s*$",
    re.I,
)
#: Header words of a table's columns, by the role the column plays.
COLUMNS = {
    "room": {"room", "rooms", "area"},
    "place": {"furniture", "container", "containers", "place", "where", "location", "appliance", "spot", "storage",
              "unit", "what's there"},
    "contents": {"contents", "content", "items", "item", "objects", "object", "in / on it", "in/on it", "inside",
                 "holds", "what's in it", "what", "stuff", "things"},
    "qty": {"qty", "quantity", "count", "number", "no.", "#", "amount", "n", "how many"},
}  # fmt: skip


#: A letter's greeting line ("Hi Sam,", "Dear all,") and sign-off ("Cheers,", "Best wishes,", "Thanks!"
#: over a name): who writes to whom, not who acts.
GREETING = re.compile(r"^\s*(?:hi|hello|hey|dear|morning|hiya|yo)\b[^.!?\n]{0,30}[,!:]?\s*$", re.I)
SIGN_OFF = re.compile(
    r"^\s*(?:cheers|thanks|thank you|many thanks|best|best wishes|regards|kind regards|warm regards|love|"
    r"all the best|take care|sincerely|yours(?: sincerely| truly)?|talk soon|xx+)\b[^\n]{0,20}$",
    re.I,
)


def rewrite_formats(text: str) -> tuple[str, list[dict]]:
    """(the text with letters, chat exports, tables and outlines in the reader's form, a note per
    pass used)."""
    notes = []
    for rewrite in (_letter, _label, _chat, _tables, _outline):
        text, note = rewrite(text)
        notes += note
    return text, notes


#: A label before the story on its first line ("Scenario for my students: ..."), two to six words.
LABEL = re.compile(r"^(\s*)([A-Za-z][\w' ]{2,50}?)\s*:\s+(?=\S)")


def _label(text: str) -> tuple[str, list[dict]]:
    """The first line's label left out when it names nothing the reader knows and has a word it
    does not know (a teacher's "Scenario for my students:"; not "Kitchen:", "Mary:" or "Question:")."""
    m = LABEL.match(text)
    words = m[2].split() if m else []
    if not m or not 2 <= len(words) <= 6:
        return text, []
    lex = lexicon()
    named = [*lex.rooms, *lex.furniture, *lex.objects, "question", "answer", "note", "q"]
    if any(re.search(rf"\b{re.escape(n)}s?\b", m[2], re.I) for n in named):
        return text, []
    if all(lemma(w) in lex.known for w in re.findall(r"[a-z]+", m[2].lower())):
        return text, []  # "What's inside the apartment:" is a heading the reader knows
    why = f"read {m[2]!r} as a label of the story"
    return m[1] + text[m.end() :], [text_note(1, "format", m[2], why)]


def _letter(text: str) -> tuple[str, list[dict]]:
    """A letter's first line if it greets and its sign-off with the lines after it (a name), blanked."""
    lines = text.split("\n")
    filled = [k for k, line in enumerate(lines) if line.strip()]
    if not filled:
        return text, []
    out, gone = list(lines), []
    if GREETING.match(lines[filled[0]]):
        out[filled[0]], gone = "", [filled[0]]
    closing = [k for k in filled[-3:] if SIGN_OFF.match(lines[k])]
    if closing and all(len(lines[k].split()) <= 4 for k in filled if k > closing[0]):
        gone += [k for k in filled if k >= closing[0]]
        out = [("" if k >= closing[0] else line) for k, line in enumerate(out)]
    if not gone:
        return text, []
    why = "read as a letter: greeting and sign-off left out"
    return "\n".join(out), [text_note(gone[0] + 1, "format", lines[gone[0]][:80], why)]


def _end(said: str) -> str:
    """A message or entry as a sentence: what it says, ended."""
    said = said.strip()
    return said if not said or said[-1] in ".!?:;" else said + "."


def _chat(text: str) -> tuple[str, list[dict]]:
    lines = text.split("\n")
    stamped = [STAMPED.match(line) for line in lines]
    headers = [HEADER.match(line) for line in lines]
    if sum(m is not None for m in stamped) < 2 and sum(m is not None for m in headers) < 2:
        return text, []
    out, speakers, first = [], [], None
    for number, (line, said, header) in enumerate(zip(lines, stamped, headers), start=1):
        if header:
            speakers.append(header["who"])
            first = first or number
            continue
        if said:
            speakers.append(said["who"])
            first = first or number
            out.append(_end(said["said"]))
        else:
            out.append(_end(line) if speakers and line.strip() else line)
    who = ", ".join(dict.fromkeys(speakers))
    why = f"read as a chat: {len(speakers)} messages from {who}, stamps and speakers left out"
    return "\n".join(out), [text_note(first, "format", lines[first - 1][:80], why)]


@cache
def _room_pattern() -> re.Pattern:
    rooms = alternatives(lexicon().rooms)
    return re.compile(rf"^(?:the\s+)?({rooms})\b\s*[:,-]?\s*", re.I)


def _room_only(text: str) -> str | None:
    """The room a heading or cell names alone ("Kitchen", "The living room:", "Bathroom (upstairs)")."""
    text = re.sub(r"\([^()]*\)", "", EMPHASIS.sub("", text)).strip().rstrip(":").strip()
    m = _room_pattern().match(text)
    return m[1] if m and not text[m.end() :].strip() else None


def _split_room(cell: str) -> tuple[str | None, str]:
    """("bedroom", "cabinet") from "bedroom cabinet"; a furniture name that starts with a room keeps
    it ("kitchen", "kitchen table")."""
    m = _room_pattern().match(cell)
    if not m or not cell[m.end() :].strip():
        return None, cell
    if cell.lower() in lexicon().furniture:
        return m[1], cell  # "kitchen table", "bathroom cabinet": the furniture's own name says where
    return m[1], cell[m.end() :]


def _cells(line: str) -> list[str] | None:
    """A table row's cells (tab- or pipe-separated), or None for a line of prose."""
    if "\t" in line:
        cells = [c.strip() for c in line.strip("\n").split("\t")]
    elif line.count("|") >= 2 or (line.count("|") == 1 and not line.strip().startswith("|")):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
    else:
        return None
    return cells if sum(bool(c) for c in cells) >= 2 else None


def _roles(header: list[str]) -> list[str] | None:
    """Each header cell's role, or None if the row is data (a cell that names no column)."""
    roles = []
    for cell in header:
        words = EMPHASIS.sub("", cell).strip().lower()
        role = next((r for r, names in COLUMNS.items() if words in names), None)
        kind = re.sub(r"\s*\(.*\)$", "", words)  # "Cabinet (from the left)": a column of cabinets
        if role is None and (kind in lexicon().furniture or kind in ("cabinets", "cupboards")):
            role = f"place:{kind.rstrip('s') if kind.endswith(('cabinets', 'cupboards')) else kind}"
        if role is None and words:
            return None
        roles.append(role or "")
    return roles


@dataclass
class Entry:
    """One place of a table or outline and what it holds, as the line form writes it."""

    room: str | None
    place: str
    contents: list[str] = field(default_factory=list)

    def line(self) -> str:
        head = f"{self.room} > {self.place}" if self.room else self.place
        return _end(f"{head}: {', '.join(self.contents)}" if self.contents else head)


def _row_entry(cells: list[str], roles: list[str] | None) -> Entry | None:
    """A table row as a place and its contents (None: the row is no such thing, nor is its table)."""
    cells = [EMPHASIS.sub("", c).strip() for c in cells]
    if roles is None:  # no header: [room,] place, contents
        first = _room_only(cells[0]) if cells else None
        roles = (["room"] if first else []) + ["place", "contents", "qty"][: len(cells) - bool(first)]
        roles += [""] * (len(cells) - len(roles))
    by = {role.partition(":")[0]: cell for role, cell in zip(roles, cells) if role}
    room, place = by.get("room") or None, by.get("place", "")
    kind = next((role.partition(":")[2] for role in roles if role.startswith("place:")), "")
    if kind and re.match(r"^#?\d{1,2}(?:st|nd|rd|th)?\b", place):
        place = f"{place} {kind}" if not re.search(r"\(", place) else re.sub(r"\s*\(", f" {kind} (", place, count=1)
    if room and not _room_only(room):
        return None
    if not place:
        return None
    split_room, place = _split_room(place)
    room = room or split_room
    contents = by.get("contents", "")
    if "contents" not in by and room:
        return Entry(room, place)  # a furniture column: "table x2; cabinet x8"
    if EMPTY_CELL.match(contents):
        return Entry(room, place, ["empty"])
    if not contents:
        return Entry(room, place)
    qty = by.get("qty", "").strip()
    if qty.isdigit() and int(qty) > 1:
        contents = f"{contents} x{qty}"
    return Entry(room, place, [contents])


def _csv_block(lines: list[str], i: int) -> int:
    """The end of a comma-separated table starting at line ``i`` (its first line a header of
    column names, "Room,Container,Contents"; quoted cells may hold commas), or ``i`` if none."""
    header = next(csv.reader([lines[i]]), [])
    if len(header) < 2 or _roles(header) is None:
        return i
    j = i + 1
    while j < len(lines) and lines[j].strip() and len(next(csv.reader([lines[j]]), [])) == len(header):
        j += 1
    return j


def _tables(text: str) -> tuple[str, list[dict]]:
    lines = text.split("\n")
    out, first, n_rows, i = [], None, 0, 0
    while i < len(lines):
        j = _csv_block(lines, i)
        if j > i + 1:
            rows = [[c.strip() for c in row] for row in csv.reader(lines[i:j])]
        else:
            j = i
            while j < len(lines) and (_cells(lines[j]) is not None or (j > i and SEPARATOR.match(lines[j]))):
                j += 1
            rows = [_cells(line) for line in lines[i:j] if not SEPARATOR.match(line)]
        if j - i < 2:
            out.append(lines[i])
            i += 1
            continue
        roles = _roles(rows[0])
        entries: list[Entry] = []
        for cells in rows[1:] if roles else rows:
            entry = _row_entry(cells, roles)
            if entry is None:
                entries = []
                break
            if entry.room is None and entries and roles and "room" in roles:
                entry.room = entries[-1].room  # a blank room cell: the room of the rows above (merged cells)
            last = entries[-1] if entries else None
            if last and (last.room, last.place) == (entry.room, entry.place) and entry.contents != ["empty"]:
                last.contents += entry.contents
            else:
                entries.append(entry)
        if not entries:
            out += lines[i:j]
        else:  # as many lines as the table had, so that later notes name the lines as written
            out += [e.line() for e in entries] + [""] * (j - i - len(entries))
            first, n_rows = first or i + 1, n_rows + len(rows)
        i = j
    if first is None:
        return text, []
    legends = [k for k, line in enumerate(out) if LEGEND.match(line)]
    why = f"{n_rows} table rows read as places and contents"
    if legends:
        why += f", {len(legends)} legend line(s) left out"
    kept = ["" if k in legends else line for k, line in enumerate(out)]
    return "\n".join(kept), [text_note(first, "format", lines[first - 1][:80], why)]


def _numbers(written: str) -> list[int]:
    """[1, 2, 3, 5] from "1-3, 5", "1, 2 and 3", "#4", "2nd", "third"."""
    out = []
    words = lexicon().ordinals
    for part in re.split(r"\s*(?:,|and|&)\s*", written):
        ends = [int(n) if n.isdigit() else words[n.lower()] for n in re.findall(r"\d+|[A-Za-z]+", part)
                if n.isdigit() or n.lower() in words]
        out += list(range(ends[0], ends[-1] + 1)) if len(ends) == 2 else ends
    return out


def _furniture(line: str) -> bool:
    """Whether a line names a kind of furniture ("Cabinets, numbered from the left:")."""
    words = re.findall(r"[a-z]+", line.lower())
    kinds = lexicon().furniture
    return any(w in kinds or w.rstrip("s") in kinds for w in words)


def _question_first(lines: list[str]) -> tuple[list[str], bool]:
    """The lines with a quoted block that asks the question ("> Question: ... > - (a) ... > - (b) ...",
    "context below") moved to the end, where the reader looks for the question."""
    quoted = [k for k, line in enumerate(lines) if QUOTED.match(line)]
    block = "\n".join(lines[k] for k in quoted)
    if not quoted or "(a)" not in block or "(b)" not in block or quoted[-1] - quoted[0] + 1 != len(quoted):
        return lines, False
    asked = [QUOTED.sub("", lines[k]) for k in quoted]
    return [("" if k in quoted else line) for k, line in enumerate(lines)] + asked, True


def _outline(text: str) -> tuple[str, list[dict]]:
    lines, moved = _question_first(text.split("\n"))
    out: list[str] = []  # a line for each line (left out: ""), so that later notes name lines as written
    room, room_indent, entry = None, -1, None
    item_indent, children, numbered = -1, [], []
    changed: list[int] = []

    def flush() -> None:
        nonlocal entry, children, numbered
        if entry is None:
            return
        at, head = entry
        if any(":" in c for c in children):  # sub-places: "one table: a plate", "the other table: ..."
            out[at] = "\n".join(Entry(room, p).line() for p in [head, *children])
        else:
            per_cabinet = all(numbered) and re.search(r"\b(?:cabinets|cupboards)\b", head, re.I)  # not "Cabinet 6:"
            items = [f"#{n}: {c}" for ns, c in zip(numbered, children) for n in ns] if per_cabinet else children
            place, _, said = head.partition(":")
            place, empty = re.subn(r"\s*\(\s*empty\s*\)\s*$", "", place, flags=re.I)
            said = said.strip()
            contents = (["empty"] if empty else []) + ([said] if said else []) + items
            sep = " | " if items and per_cabinet else ", "
            out[at] = Entry(room, place.strip(), [sep.join(contents)] if contents else []).line()
        entry, children, numbered = None, [], []

    for number, raw in enumerate(lines, start=1):
        line = CHECKBOX.sub("", EMPHASIS.sub("", raw))
        heading, bullet = HEADING.match(line), BULLET.match(line)
        named = _room_only((heading or bullet)["text"]) if heading or bullet else _room_only(line)
        listed = next((BULLET.match(x) for x in lines[number:] if x.strip()), None)  # "**Kitchen**" over bullets
        if named and (heading or bullet or line.rstrip().endswith(":") or listed):
            flush()
            room, room_indent = named, len(bullet["indent"]) if bullet else -1
            out.append(f"{named}:")  # a heading for prose under it too
            changed.append(number)
            continue
        if room and not bullet and not heading and line.rstrip().endswith(":") and listed and _furniture(line):
            flush()  # "Cabinets, numbered from the left:" over a list: a place and its contents
            entry, item_indent = (len(out), line.strip().rstrip(":")), -1
            out.append("")
            changed.append(number)
            continue
        if bullet and room and len(bullet["indent"]) > room_indent:
            indent = len(bullet["indent"])
            kind = bullet["mark"][0].isdigit()
            other = item_indent < 0 and children and kind != (numbered[0] != [])  # "- microwave" after "1. ..."
            if entry is not None and indent > item_indent and not other:
                child = bullet["text"].rstrip(".;,")
                item = NUMBERED_ITEM.match(child)  # "#1: an apple", "1-5: empty" under "- 8 cabinets"
                children.append(item["text"] if item else child)
                mark = bullet["mark"]
                numbered.append(_numbers(item["ns"]) if item else [int(mark[:-1])] if mark[0].isdigit() else [])
                out.append("")
            else:
                flush()
                entry, item_indent = (len(out), bullet["text"].rstrip(".;,")), indent
                out.append("")
            changed.append(number)
            continue
        if line.strip():
            flush()
            room = room if room_indent < 0 and not heading else None  # a heading's room lasts to the next one
        out.append(line)
    flush()
    changed += [1] if (moved or any(CHECKBOX.search(line) for line in lines)) and not changed else []
    if not changed:
        return text, []
    why = f"{len(changed)} outline lines read as rooms, places and contents"
    return "\n".join(out), [text_note(changed[0], "format", lines[changed[0] - 1][:80], why)]
