"""A deterministic, rule-based reader of MMToM-QA's text questions (Jin et al., 2024).

MMToM-QA describes an apartment sentence by sentence ("The kitchen is equipped with four cabinets,
a fridge, ...", "The third cabinet from the left houses a wine glass, while the second cabinet
contains a plate."), then the person's actions ("She proceeds to the kitchen, heads towards the
fridge, opens it, then closes it, and finally walks towards the third kitchen cabinet."), then one
of two question templates with options (a) and (b). The reader finds the *mentions* in each
sentence (rooms, furniture with ordinals and lists of ordinals, objects with counts, open / close /
"about to open" / "does the same with" verbs) and builds from them:

- a :class:`Scene`: places (``room/furniture`` or ``kitchen/kitchencabinet/3``) and the objects
  at each place;
- a :class:`Story`: the start room and the ordered visits (a room, or a place and whether it was
  opened and closed);
- a :class:`Query`: a belief question (goal class, container, which option says "inside") or a
  goal question (two goal classes, and 2.1's condition "thinks there isn't a G inside C").

A sentence is *read* when every word in it is part of a mention or a known function word and its
objects can be assigned to one place; any other sentence is listed in :attr:`Reading.unread`
(counted per question, its content left out of the state) — never silently dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from mindzero.core.errors import UserError

ROOM_NAMES = {"bedroom": "bedroom", "kitchen": "kitchen", "living room": "livingroom", "bathroom": "bathroom"}
#: Containers hide their contents until opened (Watch-And-Help); the rest are surfaces.
CONTAINER_KINDS = frozenset(
    {"fridge", "microwave", "stove", "dishwasher", "kitchencabinet", "cabinet", "bathroomcabinet"}
)
KITCHEN_KINDS = frozenset({"fridge", "microwave", "stove", "dishwasher"})
FURNITURE_NAMES = {
    "fridge": "fridge",
    "refrigerator": "fridge",
    "microwave": "microwave",
    "stove": "stove",
    "oven": "stove",
    "dishwasher": "dishwasher",
    "bathroom cabinet": "bathroomcabinet",
    "kitchen table": "kitchentable",
    "table": "kitchentable",
    "coffee table": "coffeetable",
    "desk": "desk",
    "sofa": "sofa",
    "bookshelf": "bookshelf",
    "kitchen counter": "kitchencounter",
}
OBJECT_NAMES = {
    "dish bowl": "dishbowl",
    "dishbowl": "dishbowl",
    "wine glass": "wineglass",
    "wineglass": "wineglass",
    "water glass": "waterglass",
    "waterglass": "waterglass",
    "plate": "plate",
    "apple": "apple",
    "cupcake": "cupcake",
    "salmon": "salmon",
    "bag of chips": "chips",
    "chips": "chips",
    "condiment bottle": "condimentbottle",
    "condimentbottle": "condimentbottle",
    "bottle of wine": "wine",
    "bottles of wine": "wine",
    "bags of chips": "chips",
    "wine bottle": "wine",
    "wine": "wine",
    "book": "book",
    "remote control": "remotecontrol",
    "remotecontrol": "remotecontrol",
    "cutlery fork": "cutleryfork",
    "pudding": "pudding",
}
ORDINALS = {
    w: i + 1
    for i, ws in enumerate(
        [
            ("first", "1st"),
            ("second", "2nd"),
            ("third", "3rd"),
            ("fourth", "4th"),
            ("fifth", "5th"),
            ("sixth", "6th"),
            ("seventh", "7th"),
            ("eighth", "8th"),
        ]
    )
    for w in ws
}
NUMBERS = {"a": 1, "an": 1, "one": 1, "another": 1, "single": 1, "lone": 1, "two": 2, "three": 3, "four": 4}
NUMBERS |= {"five": 5, "six": 6, "seven": 7, "eight": 8}

#: Words that carry no state: articles, pronouns, connectives, verbs of placing and of walking.
FILLER = frozenset(
    """a an the and or of to in into on onto inside at with from by for as is are be being it its it's
    there this that these those which where while whereas but also each both all other others
    left right currently empty filled stocked adorned equipped furnished fitted features feature houses
    house housing holds hold holding contains contain containing has have stores stored storing placed
    rests rest resting sits sit lies located found find you ll can displays displayed arranged set
    tucked topped adorn adorns laden cooking baking chilling bare home lastly additionally meanwhile
    however oddly mostly only except exception latter respectively consists apartment what s well
    piece pieces one ones also along through he she his her him they them their then finally
    subsequently next afterward afterwards after following before proceeds proceed proceeding walks
    walk walking strides stride heads head heading moves move moving advances advance approaches
    approach approaching makes making way navigates navigating goes go returns return returning back
    retraces steps situated initially now continues continue journey towards toward straight up
    direction reaching reaches upon over around leaves transitions ambles nears destination visits
    shortly time once more again too promptly securely firmly then last lastly starts doing done
    process pattern turn succession sequentially specifically tour circuit order previous tasks
    activities completing concluding conclude inspecting inspection contents interacts moment takes
    followed different same action actions repeats repeating repeat does do starts started""".split()
)
OPEN_VERBS = r"opens|opening|open"
CLOSE_VERBS = r"closes|closing|close|closed|shuts|shutting|shut|secures|seals"
ABOUT_TO_OPEN = (
    r"(?:is |was )?(?:about to|preparing to|prepares to|poised to|ready to|on the verge of|"
    r"getting ready to)\s+(?:opening|open)\b"
)
REPEATERS = r"repeats this action with|repeating this action with|repeats the process with|does the same with|"
REPEATERS += r"doing the same with|does the same for|the same with|as well as|followed by"


def _alternation(names: dict[str, str] | list[str]) -> str:
    return "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))


_ORD = _alternation(list(ORDINALS))
_ORD_LIST = rf"(?:{_ORD})(?:(?:,\s*|\s+)(?:and\s+)?(?:{_ORD}))*"
_FURN = _alternation(FURNITURE_NAMES)
_OBJ = _alternation(OBJECT_NAMES)
_NUM = _alternation(list(NUMBERS))
#: One regex with a named group per mention kind, tried left to right over a sentence.
MENTION = re.compile(
    "|".join(
        [
            rf"(?P<about>{ABOUT_TO_OPEN})",
            rf"(?P<repeat>{REPEATERS})",
            rf"(?P<ordcab>(?P<ords>{_ORD_LIST})(?:\s+kitchen)?\s+(?:cabinets?|ones?)"
            r"(?:,?\s+from (?:the )?left(?: to (?:the )?right)?,?)?)",
            rf"(?P<bord>(?<=the )(?:{_ORD}))\b",
            rf"(?P<numcab>(?P<ncab>{_NUM})\s+(?:kitchen\s+)?cabinets?)",
            rf"(?P<furn>(?:(?P<fnum>{_NUM})\s+)?(?P<fname>{_FURN})(?:s|es)?)\b",
            r"(?P<cab>(?:kitchen\s+)?cabinets?)\b",
            r"(?P<room>bedroom|kitchen|living room|bathroom)\b",
            rf"(?P<obj>(?:(?P<onum>{_NUM}|\d+)\s+)?(?:pieces? of\s+)?(?P<oname>{_OBJ})(?:s|es)?)\b",
            rf"(?P<open>\b(?:{OPEN_VERBS})\b)",
            rf"(?P<close>\b(?:{CLOSE_VERBS})\b)",
        ]
    )
)
WORD = re.compile(r"[a-z0-9]+")
#: Words that may stand between "opens" and the place it opens ("opens and then closes the stove").
OPEN_THE = frozenset({"and", "then", "subsequently", "the", "a", "an", *CLOSE_VERBS.split("|")})


@dataclass(frozen=True)
class Place:
    """A piece of furniture: ``id`` is ``room/kind`` or ``room/kind/index`` (kitchen cabinets)."""

    id: str
    room: str
    kind: str

    @property
    def container(self) -> bool:
        return self.kind in CONTAINER_KINDS


def place_id(room: str, kind: str, index: int | None = None) -> str:
    """``room/kind`` or ``room/kind/index``; a "cabinet" in the kitchen or bathroom is theirs."""
    kind = {"kitchen": "kitchencabinet", "bathroom": "bathroomcabinet"}.get(room, kind) if kind == "cabinet" else kind
    return f"{room}/{kind}" if index is None else f"{room}/{kind}/{index}"


@dataclass
class Scene:
    """The apartment at the start: rooms, places, and object class counts at each place."""

    rooms: list[str] = field(default_factory=list)
    places: dict[str, Place] = field(default_factory=dict)
    objects: dict[str, Counter] = field(default_factory=dict)

    def add_place(self, room: str, kind: str, index: int | None = None) -> str:
        pid = place_id(room, kind, index)
        kind = pid.split("/")[1]
        if pid not in self.places:
            self.places[pid] = Place(pid, room, kind)
            self.objects[pid] = Counter()
        if room not in self.rooms:
            self.rooms.append(room)
        return pid

    def holds(self, pid: str, cls: str) -> bool:
        return self.objects.get(pid, Counter())[cls] > 0

    def to_json(self) -> dict:
        return {"rooms": self.rooms, "places": {p: dict(sorted(c.items())) for p, c in self.objects.items()}}


@dataclass(frozen=True)
class Visit:
    """One step of the story: the person walks into ``room`` or to ``place`` (then ``room`` is its
    room); ``opened``/``closed``: they opened / closed it there (seeing inside)."""

    room: str
    place: str | None = None
    opened: bool = False
    closed: bool = False


@dataclass
class Story:
    person: str
    start: str
    visits: list[Visit] = field(default_factory=list)

    def to_json(self) -> dict:
        steps = [v.place + (" (opened)" if v.opened else "") if v.place else f"room {v.room}" for v in self.visits]
        return {"person": self.person, "start": self.start, "visits": steps}


@dataclass(frozen=True)
class Query:
    """``kind`` 'belief': does the person think ``goal`` is inside ``place``? ``inside`` is the option
    (0 = a, 1 = b) that says it is. ``kind`` 'goal': is the goal ``options[0]`` or ``options[1]``?
    ``given``: 2.1's premise (class, place) the person thinks does *not* hold that class."""

    kind: str
    goal: str | None = None
    place: str | None = None
    inside: int | None = None
    options: tuple[str, str] | None = None
    given: tuple[str, str] | None = None


@dataclass
class Reading:
    scene: Scene
    story: Story
    query: Query
    sentences: int
    unread: list[str]

    def to_json(self) -> dict:
        q = self.query
        return {
            "scene": self.scene.to_json(),
            "story": self.story.to_json(),
            "query": {k: v for k, v in vars(q).items() if v is not None},
            "sentences": self.sentences,
            "unread": self.unread,
        }


@dataclass
class _Mention:
    kind: str  # about repeat places room obj open close
    start: int
    end: int
    places: list[tuple[str, int | None]] = field(default_factory=list)  # (kind, index) of furniture
    count: int = 1
    name: str = ""


def _mentions(text: str) -> list[_Mention]:
    out = []
    for m in MENTION.finditer(text):
        g = m.lastgroup
        if g in ("ordcab", "bord", "numcab", "furn", "cab"):
            if g == "bord":
                places = [("cabinet", ORDINALS[m["bord"]])]
            elif g == "ordcab":
                places = [("cabinet", ORDINALS[o]) for o in re.findall(_ORD, m["ords"])]
            elif g == "numcab":
                places = [("cabinet", None)] * NUMBERS[m["ncab"]]
            elif g == "furn":
                places = [(FURNITURE_NAMES[m["fname"]], None)]
            else:
                places = [("cabinet", None)]
            out.append(_Mention("places", m.start(), m.end(), places, count=len(places), name=g))
        elif g == "room":
            out.append(_Mention("room", m.start(), m.end(), name=ROOM_NAMES[m["room"]]))
        elif g == "obj":
            n = m["onum"]
            count = int(n) if n and n.isdigit() else NUMBERS.get(n or "a", 1)
            out.append(_Mention("obj", m.start(), m.end(), count=count, name=OBJECT_NAMES[m["oname"]]))
        else:
            out.append(_Mention(g, m.start(), m.end()))
    return out


def _unknown_words(text: str, mentions: list[_Mention], names: set[str]) -> list[str]:
    rest = list(text)
    for m in mentions:
        rest[m.start : m.end] = " " * (m.end - m.start)
    return [w for w in WORD.findall("".join(rest)) if w not in FILLER and w not in names]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def _normalize(sentence: str) -> str:
    s = sentence.lower().replace("’", "'").replace("you'll", "you ll")
    return re.sub(r"\s+", " ", s)


CLAUSE_BREAK = re.compile(r",? while |, whereas |; |, but |, with |, and (?=the |there |inside |in |on |lastly)")


def read_scene(text: str) -> tuple[Scene, int, list[str]]:
    """(scene, sentences, unread sentences) of the apartment description."""
    scene, room, unread, n = Scene(), None, [], 0
    for sentence in _sentences(text):
        n += 1
        s = _normalize(sentence)
        mentions = _mentions(s)
        if _unknown_words(s, mentions, set()):
            unread.append(sentence)
            continue
        rooms = [m.name for m in mentions if m.kind == "room"]
        if s.startswith("what's inside the apartment") or "consists of" in s:
            scene.rooms += [r for r in dict.fromkeys(rooms) if r not in scene.rooms]
            continue
        if rooms:
            room = rooms[0]
        if room is None:
            unread.append(sentence)
            continue
        read = _assign(room, s)
        if read is None:
            unread.append(sentence)
            continue
        places, pairs = read
        for kind, index in places:
            scene.add_place(room, kind, index)
        for pid, obj in pairs:
            scene.objects[pid][obj.name] += obj.count
    return scene, n, unread


def _assign(room: str, sentence: str) -> tuple[list[tuple[str, int | None]], list[tuple[str, _Mention]]] | None:
    """(places named, (place id, object mention) pairs) of a description sentence in ``room``, or
    None when an object cannot be given one place. Clauses ("..., while ...") and then comma-separated
    pieces are grouped: a piece naming one place owns its objects; a piece naming none gives its
    objects to the place before it (or, at the start, the next one); "each", "both" and
    "respectively" spread objects over several places."""
    named: list[tuple[str, int | None]] = []
    pairs: list[tuple[str, _Mention]] = []
    for clause in CLAUSE_BREAK.split(sentence):
        mentions = _mentions(clause)
        inside = [(m.start, m.end) for m in mentions]
        cuts = [i for i, ch in enumerate(clause) if ch == "," and not any(a <= i < b for a, b in inside)]
        owner: list[str] = []
        orphans: list[_Mention] = []
        for lo, hi in zip([0, *cuts], [*cuts, len(clause)]):
            ms = [m for m in mentions if lo <= m.start < hi]
            furniture = [ki for m in ms if m.kind == "places" for ki in _expand(m, room)]
            named += furniture
            places = [place_id(room, k, i) for k, i in furniture]
            objects = [m for m in ms if m.kind == "obj"]
            if not places and owner and clause[lo:hi].lstrip(", ").startswith("which"):
                owner = owner[-1:]  # "a sofa and a cabinet, which contains ...": the nearest one
            if places:
                owner = places
                objects = orphans + objects
                orphans = []
            elif not owner:
                orphans += objects
                continue
            if not objects:
                continue
            if len(owner) == 1 or re.search(r"\b(?:each|both)\b", clause):
                pairs += [(p, o) for p in owner for o in objects]
            elif "respectively" in clause and len(owner) == len(objects):
                pairs += list(zip(owner, objects))
            else:
                return None
        if orphans:
            return None
    return named, pairs


def _expand(m: _Mention, room: str) -> list[tuple[str, int | None]]:
    """A furniture mention's places; ``N cabinets`` in the kitchen lists cabinets 1..N."""
    if m.name == "numcab" and room == "kitchen":
        return [("cabinet", i + 1) for i in range(m.count)]
    if m.name == "numcab":
        return [("cabinet", None)]
    return m.places


def _resolve(scene: Scene, kind: str, index: int | None, room: str) -> str | None:
    """The place id a story mention names: kitchen cabinets by ordinal; "a cabinet" in the room the
    person is in (or the only non-kitchen cabinet); others by kind, preferring the current room."""
    if kind == "cabinet" and index is not None:
        pid = f"kitchen/kitchencabinet/{index}"
        return pid if pid in scene.places else scene.add_place("kitchen", "cabinet", index)
    if kind == "cabinet":
        here = [p for p in scene.places.values() if p.kind in ("cabinet", "bathroomcabinet") and p.room == room]
        anywhere = [p for p in scene.places.values() if p.kind == "cabinet"]
        pick = here or anywhere
        return pick[0].id if len(pick) == 1 else None
    here = [p for p in scene.places.values() if p.kind == kind and p.room == room]
    anywhere = [p for p in scene.places.values() if p.kind == kind]
    pick = here or anywhere
    if not pick and kind in KITCHEN_KINDS:
        return scene.add_place("kitchen", kind)  # an appliance the description's unread sentence named
    return pick[0].id if len(pick) == 1 else None


def read_story(text: str, scene: Scene) -> tuple[Story, int, list[str]]:
    """(story, sentences, unread sentences) of "Actions taken by NAME: ..."."""
    head, _, body = text.partition(":")
    person = head.replace("Actions taken by", "").strip()
    names = {person.lower()}
    story = Story(person, "")
    room, n, unread = None, 0, []
    for sentence in _sentences(body):
        n += 1
        s = _normalize(sentence)
        mentions = _mentions(s)
        if _unknown_words(s, mentions, names):
            unread.append(sentence)
            continue
        trial, ok = list(story.visits), True
        start = story.start
        cur = room
        opening = repeating = False  # a pending "opens ..." / "does the same with ..." over the next places
        # indices in trial of the last place mention's visits ("opens it" refers to them)
        group: list[int] = [len(trial) - 1] if trial and trial[-1].place else []
        for i, m in enumerate(mentions):
            if m.kind == "room":
                if s[m.end :].startswith(" tour"):
                    continue  # "his kitchen tour"
                if not start and re.search(r"\b(?:is|was|starts|started)\b(?: \w+)? in\b", s[: m.start] + " in"):
                    start, cur = m.name, m.name
                    continue
                cur = m.name
                trial.append(Visit(cur))
                group, opening, repeating = [], False, False
            elif m.kind in ("places", "obj"):
                if m.kind == "obj":
                    held = [p for p, c in scene.objects.items() if c[m.name] and scene.places[p].room == cur]
                    pids = held[:1] if len(set(held)) == 1 else []
                else:
                    pids = [_resolve(scene, kind, index, cur) for kind, index in m.places]
                if not pids or None in pids:
                    ok = False
                    break
                group = []
                for pid in pids:
                    place = scene.places[pid]
                    cur = place.room
                    flag = opening or repeating
                    last = trial[-1] if trial else None
                    if last is not None and last.place == pid:
                        trial[-1] = Visit(cur, pid, last.opened or flag, last.closed or flag)
                    else:
                        if last is not None and last.place is None and last.room == cur:
                            trial.pop()  # walking into the room on the way to this place
                        trial.append(Visit(cur, pid, flag, flag))
                    group.append(len(trial) - 1)
                nxt = mentions[i + 1] if i + 1 < len(mentions) else None
                if nxt is None or nxt.kind != "places":
                    opening = repeating = False  # "opens the stove, closes it, walks to the microwave"
            elif m.kind == "about":
                opening = repeating = False
            elif m.kind == "repeat":
                repeating = True
            elif m.kind == "open":
                nxt = mentions[i + 1] if i + 1 < len(mentions) else None
                follows = nxt is not None and nxt.kind == "close" and i + 2 < len(mentions)
                nxt2 = mentions[i + 2] if follows else nxt
                between = set(WORD.findall(s[m.end : nxt2.start])) if nxt2 is not None else {"it"}
                if nxt2 is not None and nxt2.kind == "places" and between <= OPEN_THE:
                    opening = True  # "opens (and closes) the X"
                elif group:
                    for j in group:
                        trial[j] = Visit(trial[j].room, trial[j].place, True, trial[j].closed)
                else:
                    ok = False
                    break
            elif m.kind == "close":
                opened = [j for j in group if trial[j].opened]
                for j in opened:
                    trial[j] = Visit(trial[j].room, trial[j].place, True, True)
        if not ok or not start:
            unread.append(sentence)
            continue
        story.visits, story.start, room = trial, start, cur
    if not story.start:
        raise UserError(f"actions of {person!r}: no sentence says which room they start in")
    return story, n, unread


BELIEF_Q = re.compile(
    r"if (?P<p>\w+) has been trying to get (?:an? )?(?P<goal>[a-z ]+?), which one of the following statements "
    r"is more likely to be true\? \(a\) (?P=p) thinks that the (?P<g1>[a-z ]+?) is (?P<n1>not )?inside the "
    r"(?P<c1>[a-z0-9 ]+?)\. \(b\) (?P=p) thinks that the (?P<g2>[a-z ]+?) is (?P<n2>not )?inside the "
    r"(?P<c2>[a-z0-9 ]+?)\. please respond with either a or b\.?"
)
GOAL_Q = re.compile(
    r"(?:if (?P<p0>\w+) thinks? there (?:isn't|is not) (?:an? )?(?P<gc>[a-z ]+?) inside the (?P<cc>[a-z0-9 ]+?), )?"
    r"which one of the following statements is more likely to be true\? \(a\) (?P<p>\w+) has been trying to get "
    r"(?:an? )?(?P<g1>[a-z ]+?)\. \(b\) (?P=p) has been trying to get (?:an? )?(?P<g2>[a-z ]+?)\. "
    r"please respond with either a or b\.?"
)


def _object(name: str) -> str:
    key = name.strip()
    if key not in OBJECT_NAMES:
        raise UserError(f"question names an unknown object {name!r}")
    return OBJECT_NAMES[key]


def _container(name: str, scene: Scene, room: str) -> str:
    m = _mentions(name)
    if len(m) != 1 or m[0].kind != "places" or len(m[0].places) != 1:
        raise UserError(f"question names an unknown container {name!r}")
    kind, index = m[0].places[0]
    pid = _resolve(scene, kind, index, room)
    if pid is None:
        raise UserError(f"question's container {name!r} is not one place of the apartment")
    return pid


def read_query(text: str, scene: Scene, room: str) -> Query:
    """The question: a belief question (1.x) or a goal question (2.x), else a :class:`UserError`."""
    s = _normalize(text.replace("Question:", "").strip())
    if m := BELIEF_Q.fullmatch(s):
        if m["g1"] != m["g2"] or m["c1"] != m["c2"] or bool(m["n1"]) == bool(m["n2"]):
            raise UserError("belief question whose options are not 'inside' and 'not inside' one place")
        return Query(
            "belief", goal=_object(m["goal"]), place=_container(m["c1"], scene, room), inside=int(bool(m["n1"]))
        )
    if m := GOAL_Q.fullmatch(s):
        given = (_object(m["gc"]), _container(m["cc"], scene, room)) if m["gc"] else None
        return Query("goal", options=(_object(m["g1"]), _object(m["g2"])), given=given)
    raise UserError(f"question in an unknown form: {text[:80]!r}")


def read_question(text: str) -> Reading:
    """Read one MMToM-QA question text into scene, story and query."""
    if "Actions taken by" not in text or "Question:" not in text:
        raise UserError("question text lacks 'Actions taken by' or 'Question:'")
    description, _, rest = text.partition("Actions taken by")
    actions, _, question = rest.partition("Question:")
    scene, n1, unread1 = read_scene(description)
    story, n2, unread2 = read_story("Actions taken by" + actions, scene)
    last = story.visits[-1].room if story.visits else story.start
    return Reading(scene, story, read_query(question, scene, last), n1 + n2, unread1 + unread2)
