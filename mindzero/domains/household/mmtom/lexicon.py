"""The household reader's language layer: spaCy tokens, lemmas and phrase matches, mapped by our
domain lexicon (``lexicon.yaml``) to *mentions* — rooms, furniture with counts and ordinals,
objects with counts, and the verbs open / close / about to open / do the same with.

Why these parts: spaCy's rule-based tokenizer and PhraseMatcher come with the package (its
trained pipelines are not on the package registry, and nothing may download at run time); lemmas
come from lemminflect, an English dictionary plus inflection rules shipped in its wheel (3 MB, no
POS tagger needed), rather than spacy-lookups-data (all languages, ~100 MB). The lexicon is
matched by lemma, so "cupboards", "shuts" and "heading" need no entries of their own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources

import yaml

from mindzero.core.spelling import MIN_TYPO_LENGTH, typo_fixes

#: Ordinals written with digits: "3rd", "10th".
DIGIT_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")
#: "cabinet number 3", "cabinet no. 3", "cabinet #3": the words between a cabinet and its number.
NUMBER_SIGNS = frozenset({"number", "numbers", "no", "no.", "nos", "nos.", "#", "nr", "nr."})


@dataclass(frozen=True)
class Lexicon:
    """The domain lexicon, loaded once: phrase → meaning, and the word lists of ``lexicon.yaml``."""

    rooms: dict[str, str]  # phrase -> room id
    furniture: dict[str, str]  # phrase -> furniture kind
    objects: dict[str, str]  # phrase -> object class
    ambiguous: dict[str, tuple[str, ...]]  # phrase -> candidate object classes
    containers: frozenset[str]
    kitchen_only: frozenset[str]
    numbers: dict[str, int]
    ordinals: dict[str, int]
    last_ordinals: frozenset[str]
    verbs: dict[str, list[str]]  # verb kind -> phrases
    known: frozenset[str]  # every lemma that may stand in a read sentence

    @property
    def classes(self) -> frozenset[str]:
        """Every object class the lexicon names."""
        return frozenset(self.objects.values())


@functools.cache
def lexicon() -> Lexicon:
    raw = yaml.safe_load(resources.files(__package__).joinpath("lexicon.yaml").read_text())

    def invert(section: dict[str, list[str]]) -> dict[str, str]:
        return {phrase: key for key, phrases in section.items() for phrase in phrases}

    verbs = raw["verbs"]
    words = set(raw["function_words"].split()) | set(raw["numbers"]) | set(raw["ordinals"]) | set(raw["last_ordinals"])
    for phrases in [*verbs.values(), *raw["rooms"].values(), *raw["furniture"].values(), *raw["objects"].values()]:
        words |= {w for p in phrases for w in p.split()}
    words |= {w for p in raw["ambiguous"] for w in p.split()}
    return Lexicon(
        rooms=invert(raw["rooms"]),
        furniture=invert(raw["furniture"]),
        objects=invert(raw["objects"]),
        ambiguous={p: tuple(c) for p, c in raw["ambiguous"].items()},
        containers=frozenset(raw["containers"]),
        kitchen_only=frozenset(raw["kitchen_only"]),
        numbers=raw["numbers"],
        ordinals=raw["ordinals"],
        last_ordinals=frozenset(raw["last_ordinals"]),
        verbs=verbs,
        known=frozenset(words | {"'s", "'re", "'ll", "’s"}),
    )


@functools.cache
def _lemma_table() -> tuple:
    import lemminflect  # noqa: PLC0415 — loaded once with the pipeline

    return (lemminflect.getAllLemmas, lemminflect.getAllLemmasOOV)


@functools.cache
def _place_and_object_words() -> frozenset[str]:
    """The words of room, furniture and object names (``lexicon.yaml``) with their plurals: what a
    misspelling is corrected to."""
    lex = lexicon()
    words = {w for phrase in [*lex.rooms, *lex.furniture, *lex.objects, *lex.ambiguous] for w in phrase.split()}
    words = {w for w in words if w.isalpha() and len(w) >= MIN_TYPO_LENGTH}
    return frozenset(words | {w + ("es" if w.endswith(("s", "sh", "ch", "x")) else "s") for w in words})


def spelling_fixes(text: str) -> list[tuple[int, str, str]]:
    """(offset, typed, meant) of each misspelt room, furniture or object word
    (:func:`~mindzero.core.spelling.typo_fixes`, two edits for long words): "microwve", "fridg",
    "cupbaord", "refridgerator", "cubbord".
    A real word ("boil", "tablet") and a capitalised one (a name) stay."""
    get, _ = _lemma_table()
    return typo_fixes(text, _place_and_object_words(), lambda w: w in lexicon().known or bool(get(w)), two=True)


@functools.lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The lemma the lexicon knows: the word itself if known, else the first of its dictionary
    lemmas the lexicon knows, else its verb / noun / adjective lemma ("left" stays "left",
    "leaves" becomes "leave", "glasses" "glass")."""
    word = word.lower().replace("’", "'")
    known = lexicon().known  # the function words and every word of a lexicon phrase
    if word in known or not word.isalpha():
        return word
    get, oov = _lemma_table()
    found = get(word) or oov(word, "NOUN")
    candidates = [lem for pos in ("VERB", "NOUN", "ADJ", "ADV", "AUX") for lem in found.get(pos, ())]
    for lem in candidates:
        if lem in known:
            return lem
    return candidates[0] if candidates else word


@functools.cache
def pipeline():
    """(nlp, phrase matcher): spaCy's blank English tokenizer with sentence starts and our lemmas,
    and a PhraseMatcher over lemmas whose labels are ``kind|value`` (e.g. ``obj|wineglass``)."""
    import spacy  # noqa: PLC0415 — imported on first use: a second to load
    from spacy.language import Language  # noqa: PLC0415
    from spacy.matcher import PhraseMatcher  # noqa: PLC0415

    if not Language.has_factory("mindzero_lemmas"):

        @Language.component("mindzero_lemmas")
        def set_lemmas(doc):
            for token in doc:
                token.lemma_ = lemma(token.text)
            return doc

        @Language.component("mindzero_sentences")
        def set_sentences(doc):
            # a sentence starts after ".", "!" or "?" (spaCy's sentencizer hangs a following "#"
            # on the sentence before: "empty. #2: an apple."); a "?" or "!" inside brackets ends
            # none ("fridge (milk? no - two apples), microwave ...")
            inside = bracketed_tokens(doc)
            for i, token in enumerate(doc):
                ends = doc[i - 1].text in (".", "!", "?", "...") if i else True
                token.is_sent_start = ends and (i not in inside or doc[i - 1].text in (".", "..."))
            return doc

    nlp = spacy.blank("en")
    for sign in ("No.", "no.", "Nr.", "nr.", "Nos.", "nos.", "w/"):  # "cabinet No. 3" does not end a sentence
        nlp.tokenizer.add_special_case(sign, [{"ORTH": sign}])
    nlp.add_pipe("mindzero_sentences")
    nlp.add_pipe("mindzero_lemmas")
    lex = lexicon()
    matcher = PhraseMatcher(nlp.vocab, attr="LEMMA")
    entries: dict[str, list[str]] = {}
    for kind, table in (("room", lex.rooms), ("furn", lex.furniture), ("obj", lex.objects)):
        for phrase, value in table.items():
            entries.setdefault(f"{kind}|{value}", []).append(phrase)
    for phrase in lex.ambiguous:
        entries[f"amb|{phrase}"] = [phrase]
    for kind in ("open", "close", "about_to_open", "repeat", "from_right", "from_left", "idle"):
        entries[f"{kind}|"] = lex.verbs[kind]
    for label, phrases in entries.items():
        matcher.add(label, [nlp(p) for p in phrases])
    return nlp, matcher


#: The longest bracket (tokens) inside which a "?" or "!" does not end the sentence.
BRACKET_TOKENS = 20


def bracketed_tokens(doc) -> set[int]:
    """Indices of tokens inside a bracket that closes on the same line within :data:`BRACKET_TOKENS`
    ("(milk? no - two apples)"); an unclosed "(" brackets nothing."""
    inside, opened = set(), []
    for i, token in enumerate(doc):
        if "\n" in token.text:
            opened = []
        elif token.text == "(":
            opened.append(i)
        elif token.text == ")" and opened:
            start = opened.pop()
            if i - start <= BRACKET_TOKENS:
                inside |= set(range(start + 1, i + 1))
    return inside


@dataclass
class Mention:
    """A meaningful stretch of a sentence, tokens ``start:end``. ``kind``: room, places, obj, open,
    close, about, repeat. ``places``: (furniture kind, index or None, counted from the right)."""

    kind: str
    start: int
    end: int
    name: str = ""
    count: int = 1
    places: list[tuple[str, int | None, bool]] = field(default_factory=list)
    numbered: bool = False  # "four cabinets": a count of places, not one place
    candidates: tuple[str, ...] = ()  # the classes an ambiguous object word may name
    bare: bool = False  # an ordinal without its noun ("the second one"): the furniture before it
    text: str = ""  # the words as written


def _ordinal(token) -> int | None:
    lex = lexicon()
    if m := DIGIT_ORDINAL.fullmatch(token.lower_):
        return int(m[1])
    if token.lower_ in lex.last_ordinals:
        return -1  # the last one: resolved against the number of cabinets
    return lex.ordinals.get(token.lemma_)


#: A count written as a multiplication, after the object ("apples x2", "plates ×3") or before it ("2x apples").
TIMES_AFTER = re.compile(r"[x×](\d+)", re.I)
TIMES_BEFORE = re.compile(r"(\d+)[x×]", re.I)


def _count(token) -> int | None:
    if token.like_num and token.text.isdigit():
        return int(token.text)
    return lexicon().numbers.get(token.lower_)


def _ordinal_list(sent, end: int) -> tuple[int, list[int]]:
    """(start, ordinals) of a list of ordinals ending just before token ``end`` ("first, second, and
    fourth"), or (end, []) if none."""
    found, i = [], end - 1
    while i >= 0:
        value = _ordinal(sent[i])
        if value is not None:
            found.append(value)
            i -= 1
        elif sent[i].lower_ in {"to", "through", "-"} and found and i > 0 and _ordinal(sent[i - 1]) is not None:
            low = _ordinal(sent[i - 1])  # "the fourth to eighth cabinets"
            found += list(range(found[-1] - 1, low, -1))
            i -= 1
        elif sent[i].lower_ in {",", "and", "&"} and found:
            i -= 1
        else:
            break
    while i + 1 < end and _ordinal(sent[i + 1]) is None:
        i += 1  # a leading "and" / comma is not part of the list
    return i + 1, found[::-1]


def mentions(sent, context: frozenset[str] = frozenset()) -> list[Mention]:
    """The mentions of a sentence (a spaCy Span or Doc), left to right. ``context``: object classes
    the whole text names, used to resolve ambiguous words ("glass")."""
    nlp, matcher = pipeline()
    lex = lexicon()
    doc = sent.as_doc() if hasattr(sent, "as_doc") else sent
    chosen, taken = [], set()  # longest matches first: "kitchen cabinet" over "kitchen"
    for s in sorted(matcher(doc, as_spans=True), key=lambda s: (-len(s), s.start)):
        if not taken & set(range(s.start, s.end)):
            chosen.append(s)
            taken |= set(range(s.start, s.end))
    out: list[Mention] = []
    for s in sorted(chosen, key=lambda s: s.start):
        kind, _, value = s.label_.partition("|")
        if kind == "room":
            out.append(Mention("room", s.start, s.end, name=value))
        elif kind == "furn":
            out.append(_furniture(doc, s.start, s.end, value))
        elif kind in ("obj", "amb"):
            classes = [value] if kind == "obj" else [c for c in lex.ambiguous[value] if c in context]
            start, count = s.start, 1
            if start >= 2 and doc[start - 1].lower_ == "of" and _count(doc[start - 2]) is not None:
                start, count = start - 2, _count(doc[start - 2])  # "a couple of apples"
            elif start >= 1 and _count(doc[start - 1]) is not None:
                start, count = start - 1, _count(doc[start - 1])
            elif start >= 1 and (times := TIMES_BEFORE.fullmatch(doc[start - 1].text)):
                start, count = start - 1, int(times[1])  # "2x apples"
            elif start >= 2 and doc[start - 1].lower_ in ("x", "×") and doc[start - 2].text.isdigit():
                start, count = start - 2, int(doc[start - 2].text)  # "2 x apples"
            end = s.end
            if end < len(doc) and (times := TIMES_AFTER.fullmatch(doc[end].text)):
                end, count = end + 1, int(times[1])  # "apples x2"
            elif end + 1 < len(doc) and doc[end].lower_ in ("x", "×") and doc[end + 1].text.isdigit():
                end, count = end + 2, int(doc[end + 1].text)  # "apples x 2"
            elif end + 2 < len(doc) and doc[end].text == "(" and doc[end + 2].text == ")" and (
                times := TIMES_AFTER.fullmatch(doc[end + 1].text) or re.fullmatch(r"(\d+)", doc[end + 1].text)
            ):
                end, count = end + 3, int(times[1])  # "apples (x2)", "apples (2)"
            name = classes[0] if len(classes) == 1 else ""
            out.append(Mention("obj", start, end, name=name, count=count, candidates=lex.ambiguous.get(value, ())))
        else:
            kinds = {"about_to_open": "about", "from_right": "right", "from_left": "filler", "idle": "filler"}
            out.append(Mention(kinds.get(kind, kind), s.start, s.end))
    out += _bare_ordinals(doc, out)
    out += _list_heading(doc, out)
    out = sorted(out + _cabinet_lists(doc, out), key=lambda m: m.start)
    out = _back_references(doc, _apply_from_right(out))
    for m in out:
        m.text = doc[m.start : m.end].text
    return out


def _back_references(doc, found: list[Mention]) -> list[Mention]:
    """"the other" / "the latter" / "the second one" after furniture of another kind than cabinets
    ("one of the kitchen tables holds a plate, while the other ...") name that furniture again;
    "the eighth one" is a cabinet whatever came before."""
    out: list[Mention] = []
    for m in found:
        earlier = [p for p in out if p.kind == "places"]
        if m.kind == "places" and m.bare and earlier:
            kind = earlier[-1].name
            pair = all(index is not None and index <= 2 for _, index, _ in m.places)  # only cabinets have an eighth
            if kind != "cabinet" and pair:
                m = Mention("places", m.start, m.end, name=kind, places=[(kind, None, False)])
        out.append(m)
    taken = {i for m in out for i in range(m.start, m.end)}
    for i, t in enumerate(doc):
        if t.lower_ in ("other", "latter", "former") and i and doc[i - 1].lower_ == "the" and i not in taken:
            earlier = [p for p in out if p.kind == "places" and p.end <= i]
            if earlier and i + 1 not in taken:  # not "the other kitchen table"
                ref = earlier[0] if t.lower_ == "former" else earlier[-1]
                if len(ref.places) == 1:
                    out.append(Mention("places", i, i + 1, name=ref.name, places=list(ref.places)))
    return sorted(out, key=lambda m: m.start)


def _furniture(doc, start: int, end: int, kind: str) -> Mention:
    """A furniture mention with its count ("four cabinets"), ordinals before it ("the first and third
    cabinets") or a number after it ("cabinet 3", "cabinet number 3", "the cabinet third from the left");
    a count written "cabinet x4" or "4 x cabinet" is "four cabinets"."""
    times, after = TIMES_AFTER.fullmatch(doc[end].text) if end < len(doc) else None, end + 1
    if start >= 2 and doc[start - 1].lower_ in ("x", "×") and doc[start - 2].text.isdigit():
        times, start, after = doc[start - 2].text, start - 2, end  # "2 x desk"
    elif start >= 1 and TIMES_BEFORE.fullmatch(doc[start - 1].text):
        times, start, after = TIMES_BEFORE.fullmatch(doc[start - 1].text), start - 1, end  # "4x cabinet"
    if times:
        count = int(times if isinstance(times, str) else times[1])
        if kind == "cabinet":
            return Mention("places", start, after, name=kind, count=count, places=[(kind, None, False)], numbered=True)
        return Mention("places", start, after, name=kind, places=[(kind, None, False)])  # "kitchen table x2"
    if kind != "cabinet":
        if start >= 1 and _count(doc[start - 1]) is not None:
            start -= 1
        return Mention("places", start, end, name=kind, places=[(kind, None, False)])
    first, ordinals = _ordinal_list(doc, start)
    if ordinals:
        return Mention("places", first, end, name=kind, places=[(kind, o, False) for o in ordinals])
    j = end
    while j < len(doc) and doc[j].lower_ in NUMBER_SIGNS:
        j += 1
    if j < len(doc) and (doc[j].text.isdigit() or (j > end and _count(doc[j]))):
        return Mention("places", start, j + 1, name=kind, places=[(kind, _count(doc[j]), False)])
    if end < len(doc) and _ordinal(doc[end]) is not None:
        return Mention("places", start, end + 1, name=kind, places=[(kind, _ordinal(doc[end]), False)])
    if j == end and end < len(doc) and doc[end].lower_ in lexicon().numbers and doc[end].lower_ not in ("a", "an"):
        return Mention("places", start, end + 1, name=kind, places=[(kind, _count(doc[end]), False)])  # "cabinet one"
    if row := _end_of_row(doc, end):
        return Mention("places", start, row[1], name=kind, places=[(kind, row[0], False)])
    if start >= 1 and _count(doc[start - 1]) is not None:
        n = _count(doc[start - 1])
        return Mention("places", start - 1, end, name=kind, count=n, places=[(kind, None, False)], numbered=True)
    if doc[end - 1].lower_ != doc[end - 1].lemma_:  # "the cupboards": all of them, or some, but which?
        return Mention("vague", start, end, name=kind)
    return Mention("places", start, end, name=kind, places=[(kind, None, False)])


def _list_heading(doc, found: list[Mention]) -> list[Mention]:
    """Ordinals that start a line of a list of cabinets ("2nd: a bag of chips", "5th, 6th, 8th -
    empty"): in a household story only kitchen cabinets are counted so."""
    taken = {i for m in found for i in range(m.start, m.end)}
    j = 0
    while j < len(doc) and (_ordinal(doc[j]) is not None or (j and doc[j].lower_ in (",", "and"))):
        j += 1
    values = [_ordinal(t) for t in doc[:j] if _ordinal(t) is not None]
    if not values or taken & set(range(j)) or j >= len(doc) or doc[j].text not in (":", "-", "–", "—"):
        return []
    return [Mention("places", 0, j, name="cabinet", places=[("cabinet", v, False) for v in values])]


def _bare_ordinals(doc, found: list[Mention]) -> list[Mention]:
    """Ordinals that stand for cabinets without the word: "the third one", "the sixth", "the second
    and fourth ones", a sentence's "2nd one ..." (not "for the first time")."""
    taken = {i for m in found for i in range(m.start, m.end)}
    furniture = {m.start for m in found if m.kind == "places"}  # "the first kitchen table" is no cabinet
    out, i = [], 0
    while i < len(doc):
        after_the = i >= 1 and doc[i - 1].lower_ == "the"
        after_one = i >= 2 and doc[i - 1].lower_ == "one" and doc[i - 2].lower_ == "the"  # "the one second from ..."
        opens = i == 0 and i + 1 < len(doc) and doc[i + 1].lower_ in ("one", "ones")  # "1st one has an apple"
        if i not in taken and _ordinal(doc[i]) is not None and (after_the or after_one or opens):
            j = i
            while j + 1 < len(doc) and (_ordinal(doc[j + 1]) is not None or doc[j + 1].lower_ in {",", "and"}):
                j += 1
            while _ordinal(doc[j]) is None:
                j -= 1
            nxt = doc[j + 1].lemma_ if j + 1 < len(doc) else ""
            if nxt != "time" and not taken & set(range(i, j + 1)) and j + 1 not in furniture:
                values = [_ordinal(t) for t in doc[i : j + 1] if _ordinal(t) is not None]
                end = j + 2 if nxt == "one" else j + 1
                places = [("cabinet", v, False) for v in values]
                out.append(Mention("places", i - after_one, end, name="cabinet", places=places, bare=True))
                i = end
                continue
        i += 1
    return out


#: "the cabinet furthest to the left", "the one on the far right": the first or the last.
END_WORDS = frozenset({"furthest", "farthest", "far", "very"})


def _end_of_row(doc, k: int) -> tuple[int, int] | None:
    """(index, end) of "furthest to the left" / "on the far right" starting at token ``k``: 1 for
    the left end, -1 (the last) for the right end."""
    words = []
    j = k
    while j < len(doc) and j < k + 5 and doc[j].lower_ in END_WORDS | {"to", "on", "at", "the", "left", "right"}:
        words.append(doc[j].lower_)
        j += 1
        if words[-1] in ("left", "right"):
            break
    if not words or words[-1] not in ("left", "right") or not set(words) & END_WORDS:
        return None
    return (1 if words[-1] == "left" else -1), j


#: Tokens before an entry of a list of cabinets ("Cupboards: 1st empty; 2nd a plate", "(3rd)").
LIST_BREAKS = frozenset({",", ";", ":", "/", "|", "(", "and", "-", "–", "—", "then"})


def _index(doc, i: int) -> tuple[int, int] | None:
    """(value, end) of a cabinet index at token ``i``: an ordinal ("3rd"), a number ("3", "three"),
    or one after a sign ("No. 3", "#3", "number three")."""
    j = i + 1 if doc[i].lower_ in NUMBER_SIGNS and i + 1 < len(doc) else i
    if _ordinal(doc[j]) is not None and _ordinal(doc[j]) > 0:
        return _ordinal(doc[j]), j + 1
    if (doc[j].text.isdigit() or doc[j].lower_ in lexicon().numbers) and doc[j].lower_ not in ("a", "an", "another"):
        return _count(doc[j]), j + 1
    if m := re.fullmatch(r"#(\d+)", doc[j].text):
        return int(m[1]), j + 1
    return None


def _cabinet_lists(doc, found: list[Mention]) -> list[Mention]:
    """Entries of a list of cabinets after the word: "Cupboards, left to right: 1st empty; 2nd a
    plate", "Cabinets 2, 5 and 6: empty", "No. 5 has chips", "a plate (3rd)", "one to five empty".
    An index starts an entry (after a comma, colon, "and", a bracket, ...); a range joins two."""
    cabinets = [m for m in found if m.name == "cabinet" and m.kind in ("places", "vague")]
    taken = {i for m in found for i in range(m.start, m.end)}
    out, i = [], cabinets[0].end if cabinets else 0
    while i < len(doc):
        # "No. 7", "#7", "numbers six and eight": cabinets anywhere
        signed = doc[i].lower_ in NUMBER_SIGNS - {"no"} or re.fullmatch(r"#\d+", doc[i].text) is not None
        starts = signed or (cabinets and (i == cabinets[0].end or doc[i - 1].lower_ in LIST_BREAKS))
        index = _index(doc, i) if i not in taken and starts else None
        if index is None:
            i += 1
            continue
        values, end = [index[0]], index[1]
        while end + 1 < len(doc) and doc[end].lower_ in ("to", "-", "through", ",", "and") and end + 1 not in taken:
            nxt = _index(doc, end + 1)
            if nxt is None:
                break
            if doc[end].lower_ in ("to", "-", "through"):
                values += list(range(values[-1] + 1, nxt[0] + 1))
            else:
                values.append(nxt[0])
            end = nxt[1]
        if m := re.fullmatch(r"(\d+)-(\d+)", doc[i].text):  # "1-3" as one token
            values, end = list(range(int(m[1]), int(m[2]) + 1)), i + 1
        out.append(Mention("places", i, end, name="cabinet", places=[("cabinet", v, False) for v in values]))
        i = end
    return out


def _apply_from_right(found: list[Mention]) -> list[Mention]:
    """"from the right" after numbered cabinets counts them from the right (the phrase stays as a
    ``filler`` mention: read, meaning nothing more)."""
    out: list[Mention] = []
    for m in found:
        if m.kind == "right":
            prev = next((p for p in reversed(out) if p.kind == "places"), None)
            if prev is not None and any(i is not None for _, i, _ in prev.places):
                prev.places = [(k, i, i is not None) for k, i, _ in prev.places]
                prev.end = max(prev.end, m.end)
                out.append(Mention("filler", m.start, m.end))
                continue
        out.append(m)
    return out


def display_name(cls: str) -> str:
    """An object class in words: the first phrase the lexicon lists for it ("bag of chips")."""
    return next(phrase for phrase, c in lexicon().objects.items() if c == cls)


def alternatives(words) -> str:
    """A regex alternation of ``words``, escaped, longest first ("living room" before "room")."""
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


@functools.cache
def room_words() -> re.Pattern:
    """A room word of the lexicon, any case ("KITCHEN", "lounge room")."""
    return re.compile(rf"\b(?:{alternatives(lexicon().rooms)})\b", re.I)


@functools.cache
def household_words() -> re.Pattern:
    """A room, furniture or object word of the lexicon, plural too: what a line of a story names and
    a mail's signature or a data paste's notation note does not."""
    lex = lexicon()
    words = alternatives({*lex.rooms, *lex.furniture, *lex.objects, *lex.ambiguous})
    return re.compile(rf"\b(?:{words})(?:e?s)?\b", re.I)


def text_note(line: int, part: str, text: str, why: str) -> dict:
    """A note for a reading's ``unread`` list that the text was changed before it was read (a
    misspelling, an abbreviation, a run-on cut): it names nothing and blocks no answer."""
    return {"line": line, "part": part, "text": text, "unknown": [], "why": why, "names": [], "acts": False}


def unknown_words(sent, found: list[Mention], names: set[str]) -> list[str]:
    """Words of ``sent`` that no mention covers and the lexicon does not know (nor ``names``), and
    ambiguous object words the text does not settle ("glass" where wine and water glasses exist)."""
    unsettled = [m for m in found if m.kind == "obj" and not m.name]
    covered = {i for m in found for i in range(m.start, m.end)}
    words = [t.text for i, t in enumerate(sent) if i not in covered and unknown(t, names)]
    return [f"{sent[m.start : m.end].text} (which one?)" for m in unsettled] + words


#: A time of day ("9:05", "10.30pm", "7am"): when something happened, meaning nothing more here.
CLOCK = re.compile(r"\d{1,2}(?:[:.]\d{2}){0,2}(?:am|pm|a\.m\.|p\.m\.)?", re.I)


def unknown(token, names: set[str]) -> bool:
    """Whether a token is a word the lexicon does not know (nor a name, number or modifier)."""
    if token.is_punct or token.is_space or token.like_num or token.lower_ in names or CLOCK.fullmatch(token.text):
        return False
    if not any(c.isalnum() for c in token.text):
        return False  # a symbol or an emoji ("😀", "🤔"): tone, no word
    return token.lemma_ not in lexicon().known and not modifier(token.lower_)


#: Words that change what a sentence says and so are never skipped as modifiers.
NEGATING = frozenset({"not", "n't", "no", "never", "none", "nothing", "nowhere", "without", "neither", "nor"})


@functools.lru_cache(maxsize=65536)
def modifier(word: str) -> bool:
    """Whether a word the lexicon does not know is only ever an adjective or adverb ("big",
    "honestly", "lovely"): it colours a sentence without changing where things are or what the
    person did, so a sentence is read without it."""
    get, _ = _lemma_table()
    found = get(word)
    return bool(found) and set(found) <= {"ADJ", "ADV"} and word not in NEGATING
