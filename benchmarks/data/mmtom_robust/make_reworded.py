#!/usr/bin/env python3
"""Build meaning-preserving rewordings of MMToM-QA text questions.

Pure standard library, deterministic (fixed seed).  Reads the 600 MMToM-QA
questions, picks PER_TYPE source questions of each of the seven question types,
applies 1-4 rewrite rules from RULES (below) to each, merges in the hand-written
rewrites from free_rewrites.jsonl, validates everything and writes
reworded.jsonl next to this script.

Every rule keeps the meaning: the same apartment contents (every object, count
and place), the same actions in the same order, the same question and the same
option order, so the answer letter is the answer of the source question.

Usage (from the repository root):
    python benchmarks/data/mmtom_robust/make_reworded.py
    python benchmarks/data/mmtom_robust/make_reworded.py --source path/to/questions.jsonl
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
# ../shared/data/mmtom_qa/questions.jsonl relative to the repository root
DEFAULT_SOURCE = os.path.join(REPO_ROOT, "..", "shared", "data", "mmtom_qa", "questions.jsonl")
SEED = 20240611
PER_TYPE = 45
TYPES = [1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 2.4]

# --------------------------------------------------------------------------
# The rules.  Name -> (phenomenon, what it does).  README.md has examples.
# --------------------------------------------------------------------------
RULES = collections.OrderedDict([
    ("start_room_verb", "1. 'X is situated in the kitchen' -> 'X is standing in / is in / stands in / starts out in / begins in the kitchen'"),
    ("walk_verb", "2. 'walks/heads/proceeds/advances/strides/moves towards the Y' -> 'heads to / goes over to / approaches / makes her way to / walks up to / goes to the Y'"),
    ("open_close_verb", "3. 'opens it' -> 'pulls it open / swings it open / opens it up'; 'closes it' -> 'shuts it / shuts it again / closes it back up / pushes it shut'"),
    ("number_digits", "4. number words as digits: 'four cabinets' -> '4 cabinets'; 'a single cabinet' -> 'one cabinet'"),
    ("ordinal_form", "5. ordinals written differently: 'third' <-> '3rd'; 'the third kitchen cabinet' -> 'kitchen cabinet number 3' / 'kitchen cabinet No. 3'"),
    ("from_left_variant", "6. 'from the left' <-> 'counting from the left' / 'starting from the left' / 'from left to right'"),
    ("cabinet_in_kitchen", "6. 'the 3rd kitchen cabinet' -> 'the 3rd cabinet in the kitchen'"),
    ("clause_swap", "7. two clauses of one sentence in the other order: 'A, while B.' -> 'B, while A.'"),
    ("location_inversion", "7. 'Inside the fridge, there is a plate' <-> 'There is a plate inside the fridge' <-> 'The fridge holds a plate'"),
    ("sentence_split", "8. a two-clause sentence split in two, or a long list split over two sentences ('... also holds ...')"),
    ("sentence_merge", "8. two adjacent sentences merged with ';' or ', and'"),
    ("irrelevant_sentence", "9. a sentence carrying no state inserted ('It is a sunny day.', 'She hums a tune.')"),
    ("object_synonym", "10. object names: wine glass -> wineglass, dish bowl -> bowl, remote control -> TV remote / remote, bag of chips -> packet of chips, bottle of wine -> wine bottle, condiment bottle -> bottle of condiment / sauce bottle, a salmon <-> a piece of salmon (every mention in the question)"),
    ("furniture_synonym", "11. furniture names: cabinet -> cupboard, sofa -> couch, fridge -> refrigerator, stove -> oven (every mention in the question)"),
    ("q_belief_form", "12. belief question asked another way (goal premise: 'Suppose X wants ...' / 'Assuming X is looking for ...' / 'If X's goal is to get ...'; 'Which is more likely: (a) ..., or (b) ...?' / 'Does X think ...? (a) yes ... (b) no ...' / 'Is it more likely that (a) ... or that (b) ...?')"),
    ("q_goal_form", "12. goal question asked another way ('What is X trying to get? (a) ... (b) ...' / 'Which is X more likely looking for: (a) ... or (b) ...?' / 'Is it more likely that X wants (a) ... or (b) ...?')"),
    ("q_premise_form", "12. type 2.1 belief premise: 'If X think there isn't a Y inside the Z,' -> 'Given that X believes there is no Y in the Z,' / 'Suppose X does not think there is a Y in the Z.'"),
    ("option_labels", "12. option labels '(a)' -> 'a)' / 'A)' / 'A.' (order unchanged) and the closing 'Please respond with either a or b.' kept, reworded or dropped"),
    ("pronoun_for_name", "12. 'she'/'he' in place of the person's name where natural (in the question and sentence-initially in the actions)"),
])

# Canonical application order (structural rules before word-level ones).
ORDER = ["q_belief_form", "q_goal_form", "q_premise_form", "option_labels", "pronoun_for_name",
         "clause_swap", "location_inversion", "sentence_split", "sentence_merge",
         "irrelevant_sentence", "start_room_verb", "walk_verb", "open_close_verb",
         "object_synonym", "cabinet_in_kitchen", "ordinal_form", "from_left_variant",
         "number_digits", "furniture_synonym"]
assert sorted(ORDER) == sorted(RULES)

NUMW = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
NUM2D = {w: str(i) for i, w in enumerate(["zero", "one"] + NUMW)}
ORDW = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
ORD2D = {w: str(i + 1) + ("st" if i == 0 else "nd" if i == 1 else "rd" if i == 2 else "th") for i, w in enumerate(ORDW)}
D2ORD = {v: k for k, v in ORD2D.items()}
ORD_RE = "|".join(ORDW)
ORDD_RE = "|".join(sorted(D2ORD, key=len, reverse=True))
ANY_ORD = "(?:%s|%s)" % (ORD_RE, ORDD_RE)
ORD_GROUP = r"%s(?:(?:, |,? and | through )%s)*" % (ANY_ORD, ANY_ORD)

OBJ_SG = ["plate", "wine glass", "water glass", "dish bowl", "dishbowl", "apple", "cupcake", "salmon",
          "piece of salmon", "condiment bottle", "bottle of wine", "bag of chips", "book", "remote control"]
OBJ_PL = ["plates", "wine glasses", "water glasses", "dish bowls", "dishbowls", "apples", "cupcakes", "salmons",
          "pieces of salmon", "condiment bottles", "bottles of wine", "bags of chips", "books", "remote controls"]


def _alt(words):
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


ITEM_RE = r"(?:(?:a|an|a single) (?:%s)|(?:%s) (?:%s))" % (_alt(OBJ_SG), _alt(NUMW), _alt(OBJ_PL))
LIST_RE = r"%s(?:, %s)*(?:,? and %s)?" % (ITEM_RE, ITEM_RE, ITEM_RE)
CONT_IN = r"(?:(?:%s) (?:kitchen )?cabinet|(?:kitchen |bathroom )?cabinet|fridge|refrigerator|microwave|stove|dishwasher)" % ORD_RE
CONT_ON = r"(?:coffee table|kitchen table|desk|sofa)"
CONT = "(?:%s|%s)" % (CONT_IN, CONT_ON)
MOD = r"(?: from the left|, from left to right,|, from the left,| from left to right)?"
MOD2 = r"(?: from the left| from left to right)?"
ROOMS = ["kitchen", "bathroom", "bedroom", "living room"]

ENV_SENTENCES = ["It is a sunny day.", "The apartment is quiet this afternoon.", "The walls are painted pale blue.",
                 "It is raining lightly outside.", "It is early in the evening.", "The weather is mild today.",
                 "It is a Tuesday morning.", "The air smells faintly of fresh paint."]
PERSON_SENTENCES = ["{P} hums a tune.", "{P} is in a good mood today.", "{P} is wearing a green sweater.",
                    "{P} yawns.", "{P} is humming quietly.", "{P} seems a little tired."]

LOWERABLE = {"The", "There", "Inside", "On", "A", "An", "He", "She", "It", "In", "Lastly", "Additionally",
             "Finally", "Following", "Subsequently", "After", "Then", "Afterward", "Afterwards", "Next",
             "Both", "Its", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Once", "Upon",
             "Having", "Meanwhile", "Moreover", "Continuing", "Later", "Returning", "Thereafter"}


# --------------------------------------------------------------------------
# Parsing a source question into parts
# --------------------------------------------------------------------------
Q_RE = re.compile(r"^What's inside the apartment: (.*?)Actions taken by (\w+): (.*?)Question: (.*)$", re.S)
BELIEF_RE = re.compile(
    r"^If (?P<n>\w+) has been trying to get (?P<obj>an? [a-z ]+?), which one of the following statements is more "
    r"likely to be true\? \(a\) (?P=n) thinks that the (?P<o1>[a-z ]+?) is (?P<neg1>not )?inside the (?P<c1>[a-z0-9 ]+?)\. "
    r"\(b\) (?P=n) thinks that the (?P<o2>[a-z ]+?) is (?P<neg2>not )?inside the (?P<c2>[a-z0-9 ]+?)\. "
    r"Please respond with either a or b\.$")
GOAL_RE = re.compile(
    r"^(?:If (?P<n0>\w+) think there isn't (?P<x>an? [a-z ]+?) inside the (?P<c>[a-z0-9 ]+?), which|Which) one of the "
    r"following statements is more likely to be true\? \(a\) (?P<n>\w+) has been trying to get (?P<g1>an? [a-z ]+?)\. "
    r"\(b\) (?P=n) has been trying to get (?P<g2>an? [a-z ]+?)\. Please respond with either a or b\.$")


class Doc:
    """A question split into description lines, actions and question."""

    def __init__(self, text, qtype):
        m = Q_RE.match(text)
        if not m:
            raise ValueError("unrecognised question layout")
        self.qtype = qtype
        self.desc_lines = m.group(1).split("\n")
        self.name = m.group(2)
        self.actions = m.group(3)
        self.question = m.group(4)
        self.q = parse_question(self.question, qtype)
        self.gender = detect_gender(self.actions)
        self.qflags = {}

    def render(self):
        q = self.question
        if self.qflags:
            q = render_question(self, **self.qflags)
        return ("What's inside the apartment: " + "\n".join(self.desc_lines) + "Actions taken by " + self.name
                + ": " + self.actions + "Question: " + q)

    def copy(self):
        d = object.__new__(Doc)
        d.__dict__.update(self.__dict__)
        d.desc_lines = list(self.desc_lines)
        d.qflags = dict(self.qflags)
        return d


def parse_question(q, qtype):
    if qtype < 2:
        m = BELIEF_RE.match(q)
        if not m:
            raise ValueError("unrecognised belief question: " + q)
        d = m.groupdict()
        assert d["o1"] == d["o2"] and d["c1"] == d["c2"] and bool(d["neg1"]) != bool(d["neg2"]), q
        d["kind"] = "belief"
        return d
    m = GOAL_RE.match(q)
    if not m:
        raise ValueError("unrecognised goal question: " + q)
    d = m.groupdict()
    d["kind"] = "goal21" if d["x"] else "goal"
    assert (qtype == 2.1) == (d["kind"] == "goal21"), q
    return d


def detect_gender(actions):
    f = len(re.findall(r"\b(?:she|her|She|Her)\b", actions))
    m = len(re.findall(r"\b(?:he|his|him|He|His)\b", actions))
    if f and not m:
        return "f"
    if m and not f:
        return "m"
    return None


def pron(doc, cap=False, kind="subj"):
    table = {"f": {"subj": "she", "pos": "her"}, "m": {"subj": "he", "pos": "his"}}
    p = table[doc.gender][kind] if doc.gender else (doc.name if kind == "subj" else doc.name + "'s")
    return p[0].upper() + p[1:] if cap else p


def split_sentences(text):
    return [s for s in re.split(r"(?<=\.) +(?=[A-Z])", text.strip()) if s]


def lower_first(s):
    w = s.split(" ", 1)[0].rstrip(",")
    return s[0].lower() + s[1:] if w in LOWERABLE else s


def upper_first(s):
    return s[0].upper() + s[1:]


def join_list(items):
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return items[0] + " and " + items[1]
    return ", ".join(items[:-1]) + ", and " + items[-1]


def is_plural(items):
    return len(items) > 1 or not re.match(r"(?:a|an|a single) ", items[0])


def there_be(items):
    """'there is a plate and a cup' / 'there are two plates and a cup': agrees with the first item."""
    return "is" if re.match(r"(?:a|an|a single) ", items[0]) else "are"


# --------------------------------------------------------------------------
# Rendering the question
# --------------------------------------------------------------------------
LABELS = {"paren": ("(a)", "(b)"), "half": ("a)", "b)"), "upper": ("A)", "B)"), "dot": ("A.", "B.")}
CLOSINGS = ["", "Please respond with either a or b.", "Answer a or b.", "Reply with a or b."]


def render_question(doc, body=None, premise=None, labels="paren", closing="Please respond with either a or b.",
                    pronoun=False, opt=0):
    q = doc.q
    la, lb = LABELS[labels]
    n = q["n"]
    p = pron(doc) if pronoun else n
    parts = []
    if q["kind"] == "belief":
        obj, o, c = q["obj"], q["o1"], q["c1"]
        prem = {None: f"If {n} has been trying to get {obj},",
                "suppose": f"Suppose {n} wants {obj}.",
                "assuming": f"Assuming {n} is looking for {obj},",
                "goal": f"If {n}'s goal is to get {obj},",
                "given": f"Given that {n} has been trying to get {obj},"}[premise]
        negs = [bool(q["neg1"]), bool(q["neg2"])]

        def opt_text(neg):
            return [f"{p} thinks that the {o} is {'not ' if neg else ''}inside the {c}",
                    f"{p} thinks the {o} is {'not ' if neg else ''}in the {c}",
                    f"{p} believes the {o} is {'not ' if neg else ''}inside the {c}",
                    f"{p} thinks the {o} {'is not' if neg else 'is'} in the {c}"][opt]

        a, b = opt_text(negs[0]), opt_text(negs[1])
        if body is None:
            ask = f"which one of the following statements is more likely to be true? {la} {upper_first(a)}. {lb} {upper_first(b)}."
        elif body == "which":
            ask = f"which is more likely: {la} {a}, or {lb} {b}?"
        elif body == "yesno":
            pp = pron(doc) if doc.gender else n

            def yn(neg):
                return (f"no, {pp} thinks it is not inside the {c}" if neg else f"yes, {pp} thinks it is inside the {c}")
            ask = f"does {n} think the {o} is inside the {c}? {la} {yn(negs[0])} {lb} {yn(negs[1])}"
        elif body == "isit":
            ask = f"is it more likely that {la} {a} or that {lb} {b}?"
        elif body == "statement":
            ask = f"which statement is more likely to be true? {la} {upper_first(a)}. {lb} {upper_first(b)}."
        else:
            raise ValueError(body)
        parts = [prem, upper_first(ask) if prem.endswith(".") else ask]
    else:
        g1, g2 = q["g1"], q["g2"]
        if q["kind"] == "goal21":
            x, c = q["x"], q["c"]
            xn = re.sub(r"^an? ", "", x)
            prem = {None: f"If {n} think there isn't {x} inside the {c},",
                    "given": f"Given that {n} believes there is no {xn} in the {c},",
                    "suppose": f"Suppose {n} does not think there is {x} in the {c}.",
                    "if_believes": f"If {n} believes there isn't {x} inside the {c},",
                    "assuming": f"Assuming {n} thinks there is no {xn} inside the {c},"}[premise]
            subj = p  # the name is already in the premise
        else:
            prem = ""
            subj = n
        s2 = p if pronoun else n
        if body is None:
            ask = (f"which one of the following statements is more likely to be true? {la} {upper_first(subj)} has been trying "
                   f"to get {g1}. {lb} {upper_first(s2)} has been trying to get {g2}.")
        elif body == "what":
            ask = f"what is {subj} trying to get? {la} {g1} {lb} {g2}"
        elif body == "which":
            ask = f"which is {subj} more likely looking for: {la} {g1} or {lb} {g2}?"
        elif body == "isit":
            ask = f"is it more likely that {subj} wants {la} {g1} or {lb} {g2}?"
        elif body == "these":
            ask = f"which of these is {subj} more likely trying to get? {la} {upper_first(g1)}. {lb} {upper_first(g2)}."
        elif body == "looking":
            ask = f"which is more likely? {la} {upper_first(subj)} is looking for {g1}. {lb} {upper_first(s2)} is looking for {g2}."
        else:
            raise ValueError(body)
        if prem:
            parts = [prem, upper_first(ask) if prem.endswith(".") else ask]
        else:
            parts = [upper_first(ask)]
    out = " ".join(parts)
    if closing:
        if out[-1] not in ".?!":
            out += "."
        out += " " + closing
    return out


# --------------------------------------------------------------------------
# Description clause grammar (strict: anything it does not fully parse is left alone)
# --------------------------------------------------------------------------
SUBJ = r"(?P<det>[Tt]he) (?P<cont>%s)(?P<mod>%s)" % (CONT, MOD)
CLAUSE_FORMS = [
    ("A", re.compile(r"^%s (?P<verb>contains|holds|houses|stores|has|is filled with|is stocked with|is adorned with)"
                     r" (?P<list>%s)$" % (SUBJ, LIST_RE))),
    ("B", re.compile(r"^[Ii]nside the (?P<cont>%s)(?P<mod>%s), (?:there (?:is|are)|you'll find) (?P<list>%s)$"
                     % (CONT_IN, MOD2, LIST_RE))),
    ("B", re.compile(r"^[Oo]n the (?P<cont>%s), there (?:is|are) (?P<list>%s)$" % (CONT_ON, LIST_RE))),
    ("C", re.compile(r"^[Tt]here (?:is|are) (?P<list>%s) (?P<prep>inside|in|on) the (?P<cont>%s)(?P<mod>%s)$"
                     % (LIST_RE, CONT, MOD2))),
    ("D", re.compile(r"^(?P<list>%s) (?:is|are) (?:placed |set |resting |situated |located )?(?P<prep>on|in|inside) "
                     r"the (?P<cont>%s)(?P<mod>%s)$" % (LIST_RE, CONT, MOD2), re.I)),
    ("E", re.compile(r"^%s is empty$" % SUBJ)),
    ("E", re.compile(r"^[Tt]he (?:%s)(?:(?:, |,? and )(?:%s))* (?:kitchen )?cabinets%s are empty$"
                     % (ORD_RE, ORD_RE, MOD))),
]


def is_surface(cont):
    return re.fullmatch(CONT_ON, cont) is not None


def parse_clause(s):
    for form, rx in CLAUSE_FORMS:
        m = rx.match(s)
        if not m:
            continue
        if form == "E":
            return {"form": "E", "text": s}
        d = m.groupdict()
        cont = d["cont"]
        surf = is_surface(cont)
        prep = d.get("prep")
        if prep is not None and (prep == "on") != surf:
            return None  # e.g. 'on the stove' -- keep exactly as written
        lst = d["list"][0].lower() + d["list"][1:]
        items = re.findall(ITEM_RE, lst)
        skeleton = re.sub(ITEM_RE, "X", lst)
        if not items or not re.fullmatch(r"X(?:, X)*(?:,? and X)?", skeleton) or skeleton.count("X") != len(items):
            return None
        mod = (d.get("mod") or "").replace(",", "")
        return {"form": form, "cont": cont, "mod": mod, "items": items, "surf": surf,
                "verb": d.get("verb")}
    return None


def render_clause(cl, form, rng, items=None):
    if cl["form"] == "E":
        return cl["text"]
    items = items or cl["items"]
    lst = join_list(items)
    be = "are" if is_plural(items) else "is"
    tbe = there_be(items)
    cont, mod = cl["cont"], cl["mod"]
    if cl["surf"]:
        return {"A": f"The {cont} {rng.choice(['holds', 'has'])} {lst}",
                "B": f"On the {cont}, there {tbe} {lst}",
                "C": f"There {tbe} {lst} on the {cont}",
                "D": f"{upper_first(lst)} {be} placed on the {cont}"}[form]
    return {"A": f"The {cont}{mod} {rng.choice(['contains', 'holds', 'houses'])} {lst}",
            "B": f"Inside the {cont}{mod}, there {tbe} {lst}",
            "C": f"There {tbe} {lst} inside the {cont}{mod}",
            "D": f"{upper_first(lst)} {be} in the {cont}{mod}"}[form]


CONNECTORS = [", while ", ", and ", "; ", ", whereas ", ", but "]
PREFIX_RE = re.compile(r"^((?:Lastly|Additionally|Finally|Moreover), )")


def parse_sentence(sent):
    """-> (prefix, [clause...], connector) for a sentence of one or two clauses, else None."""
    if not sent.endswith("."):
        return None
    body = sent[:-1]
    m = PREFIX_RE.match(body)
    prefix = m.group(1) if m else ""
    body = body[len(prefix):]
    cl = parse_clause(upper_first(body))
    if cl:
        return prefix, [cl], None
    for conn in CONNECTORS:
        start = 0
        while True:
            i = body.find(conn, start)
            if i < 0:
                break
            left, right = body[:i], body[i + len(conn):]
            c1, c2 = parse_clause(upper_first(left)), parse_clause(upper_first(right))
            if c1 and c2:
                return prefix, [c1, c2], conn
            start = i + 1
    return None


def sentence_slots(doc):
    """All (line index, sentence index, sentence) of the description."""
    out = []
    for li, line in enumerate(doc.desc_lines):
        for si, s in enumerate(split_sentences(line)):
            out.append((li, si, s))
    return out


def replace_sentence(doc, li, si, new_sents):
    line = doc.desc_lines[li]
    trail = line[len(line.rstrip()):]
    sents = split_sentences(line)
    sents[si:si + 1] = new_sents
    doc.desc_lines[li] = " ".join(sents) + trail


# --------------------------------------------------------------------------
# Rules.  Each takes (doc, rng) and returns True if it changed the doc.
# --------------------------------------------------------------------------
def r_clause_swap(doc, rng):
    cands = []
    for li, si, s in sentence_slots(doc):
        ps = parse_sentence(s)
        if ps and len(ps[1]) == 2:
            cands.append((li, si, s, ps))
    if not cands:
        return False
    li, si, s, (prefix, (c1, c2), conn) = rng.choice(cands)
    body = s[:-1][len(prefix):]
    i = _find_split(body, conn)
    left, right = body[:i], body[i + len(conn):]
    if conn == ", but " or (conn == ", and " and c1["form"] == "D"):
        conn = ", while "
    new = upper_first(right) + conn + lower_first(upper_first(left)) + "."
    if prefix:
        new = prefix + lower_first(upper_first(right)) + conn + lower_first(upper_first(left)) + "."
    replace_sentence(doc, li, si, [new])
    return True


def r_location_inversion(doc, rng):
    cands = []
    for li, si, s in sentence_slots(doc):
        ps = parse_sentence(s)
        if ps and any(c["form"] != "E" for c in ps[1]):
            cands.append((li, si, s, ps))
    if not cands:
        return False
    rng.shuffle(cands)
    n_done = 0
    for li, si, s, (prefix, clauses, conn) in cands[:rng.choice([1, 1, 2])]:
        # re-locate the sentence (indices are stable: we replace one sentence by one sentence)
        if len(clauses) == 1:
            cl = clauses[0]
            form = rng.choice([f for f in "ABCD" if f != cl["form"]])
            new = render_clause(cl, form, rng)
            new = (prefix + lower_first(new)) if prefix else new
            replace_sentence(doc, li, si, [new + "."])
            n_done += 1
        else:
            body = s[:-1][len(prefix):]
            j = _find_split(body, conn)
            texts = [upper_first(body[:j]), upper_first(body[j + len(conn):])]
            k = rng.choice([i for i, c in enumerate(clauses) if c["form"] != "E"])
            cl = clauses[k]
            # 'X holds A, and B and C are in Y' could be misread as one list: no list-first form after ', and'
            forms = "ABC" if (k == 1 and conn == ", and ") else "ABCD"
            form = rng.choice([f for f in forms if f != cl["form"]])
            texts[k] = render_clause(cl, form, rng)
            new = texts[0] + conn + lower_first(texts[1])
            new = (prefix + lower_first(new)) if prefix else new
            replace_sentence(doc, li, si, [new + "."])
            n_done += 1
    return n_done > 0


def _find_split(body, conn):
    start = 0
    while True:
        j = body.find(conn, start)
        if j < 0:
            return None
        if parse_clause(upper_first(body[:j])) and parse_clause(upper_first(body[j + len(conn):])):
            return j
        start = j + 1


def r_sentence_split(doc, rng):
    cands = []
    for li, si, s in sentence_slots(doc):
        ps = parse_sentence(s)
        if not ps:
            continue
        prefix, clauses, conn = ps
        if len(clauses) == 2:
            cands.append(("two", li, si, s, ps))
        elif clauses[0]["form"] != "E" and len(clauses[0]["items"]) >= 3:
            cands.append(("list", li, si, s, ps))
    if not cands:
        return False
    kind, li, si, s, (prefix, clauses, conn) = rng.choice(cands)
    if kind == "two":
        body = s[:-1][len(prefix):]
        j = _find_split(body, conn)
        first = upper_first(body[:j])
        first = (prefix + lower_first(first)) if prefix else first
        replace_sentence(doc, li, si, [first + ".", upper_first(body[j + len(conn):]) + "."])
        return True
    cl = clauses[0]
    items = cl["items"]
    k = (len(items) + 1) // 2
    first = render_clause(cl, cl["form"], rng, items[:k]) if cl["form"] in "ABCD" else None
    first = (prefix + lower_first(first)) if prefix else first
    rest = join_list(items[k:])
    if cl["surf"]:
        second = f"The {cl['cont']} also has {rest} on it"
    else:
        second = f"The {cl['cont']}{cl['mod']} also {rng.choice(['contains', 'holds'])} {rest}"
    replace_sentence(doc, li, si, [first + ".", second + "."])
    return True


def _merge_pair(sents, rng, i):
    a, b = sents[i], sents[i + 1]
    # ', and' only between two simple sentences; otherwise a semicolon keeps the clauses apart
    simple = not any(x in a + b for x in (", and ", ", while ", ";", ", but ", " as well as "))
    joiner = rng.choice(["; ", ", and "]) if simple else "; "
    return a[:-1] + joiner + lower_first(b)


def r_sentence_merge(doc, rng):
    cands = []
    for li, line in enumerate(doc.desc_lines):
        sents = split_sentences(line)
        for i in range(len(sents) - 1):
            if ";" not in sents[i] + sents[i + 1] and sents[i].endswith(".") and sents[i + 1].endswith("."):
                cands.append(("desc", li, i))
    sents = split_sentences(doc.actions)
    for i in range(len(sents) - 1):
        if ";" not in sents[i] + sents[i + 1] and sents[i].endswith(".") and sents[i + 1].endswith("."):
            cands.append(("act", None, i))
    if not cands:
        return False
    where, li, i = rng.choice(cands)
    if where == "desc":
        line = doc.desc_lines[li]
        trail = line[len(line.rstrip()):]
        sents = split_sentences(line)
        sents[i:i + 2] = [_merge_pair(sents, rng, i)]
        doc.desc_lines[li] = " ".join(sents) + trail
    else:
        trail = doc.actions[len(doc.actions.rstrip()):]
        sents = split_sentences(doc.actions)
        sents[i:i + 2] = [_merge_pair(sents, rng, i)]
        doc.actions = " ".join(sents) + trail
    return True


def r_irrelevant_sentence(doc, rng):
    where = rng.choice(["desc_first", "desc_end", "act"] if doc.gender else ["desc_first", "desc_end"])
    if where == "act":
        sents = split_sentences(doc.actions)
        trail = doc.actions[len(doc.actions.rstrip()):]
        new = rng.choice(PERSON_SENTENCES).format(P=pron(doc, cap=True))
        sents.insert(1, new)
        doc.actions = " ".join(sents) + trail
        return True
    new = rng.choice(ENV_SENTENCES)
    if where == "desc_first":
        li = 0
        line = doc.desc_lines[0]
        trail = line[len(line.rstrip()):]
        sents = split_sentences(line)
        sents.insert(1, new)
        doc.desc_lines[0] = " ".join(sents) + trail
        return True
    lis = [i for i, l in enumerate(doc.desc_lines) if l.strip()][1:]
    li = rng.choice(lis)
    line = doc.desc_lines[li]
    trail = line[len(line.rstrip()):]
    doc.desc_lines[li] = line.rstrip() + " " + new + trail
    return True


START_FORMS = ["is standing in the", "is in the", "stands in the", "starts out in the", "begins in the"]


def r_start_room_verb(doc, rng):
    m = re.match(r"^(\w+) (is situated in the|is initially in the|is in the|starts in the) ", doc.actions)
    if not m:
        return False
    choices = [f for f in START_FORMS if f != m.group(2)]
    doc.actions = m.group(1) + " " + rng.choice(choices) + doc.actions[m.end(2):]
    return True


WALK_RE = re.compile(r"\b(walks|heads|proceeds|advances|strides|moves|navigates|ambles|heading|walking|moving) "
                     r"(towards|toward|to) the (\w+(?: \w+)?)")


def r_walk_verb(doc, rng):
    pos = pron(doc, kind="pos") if doc.gender else None
    matches = list(WALK_RE.finditer(doc.actions))
    if not matches:
        return False
    chosen = [m for m in matches if rng.random() < 0.6] or [rng.choice(matches)]
    out, last = [], 0
    for m in matches:
        if m not in chosen:
            continue
        verb, target = m.group(1), m.group(3)
        room = any(target == r or target.startswith(r + " ") or target == r.split()[0] for r in ROOMS)
        if verb.endswith("ing"):
            opts = ["heading to", "going over to"] + ([] if room else ["approaching"]) + (
                [f"making {pos} way to"] if pos else [])
        else:
            opts = ["heads to", "goes over to", "goes to"] + ([] if room else ["approaches", "walks up to"]) + (
                [f"makes {pos} way to"] if pos else [])
        opts = [o for o in opts if not o.startswith(verb + " " + m.group(2))]
        rep = rng.choice(opts)
        rep = rep + " the " + target if not rep.startswith("approach") else rep + " the " + target
        out.append(doc.actions[last:m.start()])
        out.append(rep)
        last = m.end()
    out.append(doc.actions[last:])
    doc.actions = "".join(out)
    return True


OC_RE = re.compile(r"\b(opens and closes it|opens it|closes it|shuts it|opens the|closes the)\b(?!\w)")


def r_open_close_verb(doc, rng):
    matches = list(OC_RE.finditer(doc.actions))
    if not matches:
        return False
    chosen = [m for m in matches if rng.random() < 0.6] or [rng.choice(matches)]
    out, last = [], 0
    for m in chosen:
        s = m.group(1)
        after = doc.actions[m.end():m.end() + 2]
        if s == "opens and closes it":
            rep = rng.choice(["opens it and shuts it again", "opens it up and closes it", "pulls it open and pushes it shut"])
        elif s == "opens it":
            rep = rng.choice(["pulls it open", "swings it open", "opens it up"])
        elif s == "closes it":
            opts = ["shuts it", "closes it back up", "pushes it shut"]
            if after in (". ", ", ", ".") or after == "":
                opts.append("shuts it again")
            rep = rng.choice(opts)
        elif s == "shuts it":
            rep = rng.choice(["closes it", "pushes it shut"])
        elif s == "opens the":
            rep = "pulls open the"
        else:
            rep = "shuts the"
        out.append(doc.actions[last:m.start()])
        out.append(rep)
        last = m.end()
    out.append(doc.actions[last:])
    doc.actions = "".join(out)
    return True


def _sub_all(doc, rx, fn, parts=("desc", "act", "q")):
    """Apply a regex substitution to the chosen parts; return number of changes."""
    n = [0]

    def wrap(m):
        r = fn(m)
        if r != m.group(0):
            n[0] += 1
        return r
    if "desc" in parts:
        doc.desc_lines = [re.sub(rx, wrap, l) for l in doc.desc_lines]
    if "act" in parts:
        doc.actions = re.sub(rx, wrap, doc.actions)
    if "q" in parts:
        doc.question = re.sub(rx, wrap, doc.current_question())
        doc.qflags = {}
    return n[0]


def _current_question(self):
    return render_question(self, **self.qflags) if self.qflags else self.question


Doc.current_question = _current_question


def _case(src, rep):
    return rep[0].upper() + rep[1:] if src[0].isupper() else rep


def r_object_synonym(doc, rng):
    text = doc.render()
    avail = []
    if re.search(r"\bwine glass", text):
        avail.append("wineglass")
    if re.search(r"\bdish ?bowl", text):
        avail.append("bowl")
    if re.search(r"\bremote control", text):
        avail.append("remote")
    if re.search(r"\bbags? of chips", text):
        avail.append("chips")
    if re.search(r"\bbottles? of wine", text):
        avail.append("winebottle")
    if re.search(r"\bcondiment bottle", text):
        avail.append("condiment")
    if re.search(r"\b(?:a|another|%s) (?:salmons?|pieces? of salmon)\b" % "|".join(NUMW), text, re.I):
        avail.append("salmon")
    if not avail:
        return False
    picks = rng.sample(avail, min(len(avail), rng.choice([1, 1, 2, 2, 3])))
    n = 0
    for p in picks:
        if p == "wineglass":
            n += _sub_all(doc, r"\b([Ww])ine glass(es)?\b", lambda m: m.group(1) + "ineglass" + (m.group(2) or ""))
        elif p == "bowl":
            n += _sub_all(doc, r"\b([Dd])ish ?bowl(s)?\b", lambda m: _case(m.group(1), "bowl" + (m.group(2) or "")))
        elif p == "remote":
            rep = rng.choice(["TV remote", "remote"])
            n += _sub_all(doc, r"\b([Rr])emote control(s)?\b", lambda m: _case(m.group(1), rep + (m.group(2) or "")))
        elif p == "chips":
            n += _sub_all(doc, r"\b([Bb])ag(s)? of chips\b", lambda m: _case(m.group(1), "packet" + (m.group(2) or "") + " of chips"))
        elif p == "winebottle":
            n += _sub_all(doc, r"\b([Bb])ottle(s)? of wine\b", lambda m: _case(m.group(1), "wine bottle" + (m.group(2) or "")))
        elif p == "condiment":
            if rng.random() < 0.5:
                n += _sub_all(doc, r"\b([Cc])ondiment bottle(s)?\b", lambda m: _case(m.group(1), "bottle" + (m.group(2) or "") + " of condiment"))
            else:
                n += _sub_all(doc, r"\b([Cc])ondiment bottle(s)?\b", lambda m: _case(m.group(1), "sauce bottle" + (m.group(2) or "")))
        elif p == "salmon":
            if re.search(r"pieces? of salmon", text):
                n += _sub_all(doc, r"\b(a|A|another|Another) piece of salmon\b", lambda m: m.group(1) + " salmon")
                n += _sub_all(doc, r"\b(%s) pieces of salmon\b" % "|".join(NUMW + [w.capitalize() for w in NUMW]),
                              lambda m: m.group(1) + " salmons")
            else:
                n += _sub_all(doc, r"\b(a|A|another|Another) salmon\b", lambda m: m.group(1) + " piece of salmon")
                n += _sub_all(doc, r"\b(%s) salmons\b" % "|".join(NUMW + [w.capitalize() for w in NUMW]),
                              lambda m: m.group(1) + " pieces of salmon")
    return n > 0


def r_furniture_synonym(doc, rng):
    text = doc.render()
    avail = [k for k, rx in [("cabinet", r"\bcabinet"), ("sofa", r"\bsofa"), ("fridge", r"\bfridge"),
                             ("stove", r"\bstove")] if re.search(rx, text, re.I)]
    if not avail:
        return False
    picks = rng.sample(avail, min(len(avail), rng.choice([1, 1, 2])))
    n = 0
    for p in picks:
        if p == "cabinet":
            n += _sub_all(doc, r"\b([Cc])abinet(s)?\b", lambda m: _case(m.group(1), "cupboard" + (m.group(2) or "")))
        elif p == "sofa":
            n += _sub_all(doc, r"\b([Ss])ofa(s)?\b", lambda m: _case(m.group(1), "couch" + ("es" if m.group(2) else "")))
        elif p == "fridge":
            n += _sub_all(doc, r"\b([Ff])ridge(s)?\b", lambda m: _case(m.group(1), "refrigerator" + (m.group(2) or "")))
        elif p == "stove":
            n += _sub_all(doc, r"\b([Aa]) stove\b", lambda m: m.group(1) + "n oven")
            n += _sub_all(doc, r"\b([Ss])tove(s)?\b", lambda m: _case(m.group(1), "oven" + (m.group(2) or "")))
    return n > 0


def r_cabinet_in_kitchen(doc, rng):
    rx = re.compile(r"\b([Tt]he) (%s) kitchen cabinet(s?)\b(?!,? from)" % ORD_GROUP)
    if not rx.search(doc.render()):
        return False

    def fn(m):
        return f"{m.group(1)} {m.group(2)} cabinet{m.group(3)} in the kitchen"
    n = _sub_all(doc, rx, lambda m: fn(m) if rng.random() < 0.7 else m.group(0))
    if n == 0:
        n = _sub_all(doc, rx, fn)
    return n > 0


def _ord_toggle(o):
    return ORD2D.get(o) or D2ORD.get(o)


def r_ordinal_form(doc, rng):
    single = re.compile(r"\b([Tt]he) (%s) (kitchen cabinet|cabinet)\b(?!s)(?!,? from)(?! in the kitchen)" % ANY_ORD)
    group = re.compile(r"\b([Tt]he) (%s)\b" % ORD_GROUP)
    n = 0

    def fn_single(m):
        style = rng.choice(["keep", "keep", "number", "no"])
        if style == "keep":
            return m.group(0)
        o = m.group(2)
        num = (ORD2D.get(o) or o)[:-2]
        noun = m.group(3)
        if m.group(1) == "The":
            noun = upper_first(noun)
        return f"{noun} number {num}" if style == "number" else f"{noun} No. {num}"

    def fn_group(m):
        if rng.random() < 0.3:
            return m.group(0)
        return m.group(1) + " " + re.sub(ANY_ORD + r"\b", lambda k: _ord_toggle(k.group(0)), m.group(2))
    n += _sub_all(doc, single, fn_single, parts=("act", "q"))
    n += _sub_all(doc, group, fn_group)
    if n == 0:
        # force one change
        n += _sub_all(doc, group, lambda m: m.group(1) + " " + re.sub(ANY_ORD + r"\b", lambda k: _ord_toggle(k.group(0)), m.group(2)))
    return n > 0


def r_from_left_variant(doc, rng):
    rx = re.compile(r"(,?) (from the left|from left to right)(,?)(?=(.?))")
    if not any(rx.search(l) for l in doc.desc_lines):
        return False

    def fn(m):
        lead, phrase, trail, nxt = m.group(1), m.group(2), m.group(3), m.group(4)
        if phrase == "from the left":
            new = rng.choice(["counting from the left", "starting from the left", "from left to right"])
        else:
            new = rng.choice(["from the left", "counting from the left", "starting from the left"])
        if new == "from the left":
            return f"{lead} {new}{trail}"
        # set the longer phrases off with commas
        end = trail if (trail or nxt in (".", ";", "")) else ","
        return f", {new}{end}"
    return _sub_all(doc, rx, fn, parts=("desc",)) > 0


def r_number_digits(doc, rng):
    rx = re.compile(r"\b(%s)\b(?= [a-z])" % "|".join(NUMW + [w.capitalize() for w in NUMW]))
    n = _sub_all(doc, rx, lambda m: NUM2D[m.group(1).lower()] if rng.random() < 0.8 else m.group(0), parts=("desc", "act"))
    n += _sub_all(doc, r"\b([Aa]) single\b", lambda m: _case(m.group(1), "one"), parts=("desc",))
    if n == 0:
        n = _sub_all(doc, rx, lambda m: NUM2D[m.group(1).lower()], parts=("desc", "act"))
    return n > 0


def r_q_belief_form(doc, rng):
    if doc.q["kind"] != "belief":
        return False
    doc.qflags["body"] = rng.choice(["which", "yesno", "isit", "statement"])
    doc.qflags["premise"] = rng.choice(["suppose", "assuming", "goal", "given", None])
    doc.qflags["opt"] = rng.choice([0, 1, 2, 3])
    return True


def r_q_goal_form(doc, rng):
    if doc.q["kind"] == "belief":
        return False
    doc.qflags["body"] = rng.choice(["what", "which", "isit", "these", "looking"])
    return True


def r_q_premise_form(doc, rng):
    if doc.q["kind"] != "goal21":
        return False
    doc.qflags["premise"] = rng.choice(["given", "suppose", "if_believes", "assuming"])
    return True


def r_option_labels(doc, rng):
    doc.qflags["labels"] = rng.choice(["half", "upper", "dot", "paren"])
    doc.qflags["closing"] = rng.choice(CLOSINGS)
    if doc.qflags["labels"] == "paren" and doc.qflags["closing"] == CLOSINGS[1]:
        doc.qflags["closing"] = ""
    return True


def r_pronoun_for_name(doc, rng):
    if not doc.gender:
        return False
    doc.qflags["pronoun"] = True
    # sentence-initial name in the actions (not the first sentence)
    sents = split_sentences(doc.actions)
    trail = doc.actions[len(doc.actions.rstrip()):]
    for i in range(1, len(sents)):
        if sents[i].startswith(doc.name + " "):
            sents[i] = pron(doc, cap=True) + sents[i][len(doc.name):]
        elif sents[i].startswith(doc.name + "'s "):
            sents[i] = pron(doc, cap=True, kind="pos") + sents[i][len(doc.name) + 2:]
    doc.actions = " ".join(sents) + trail
    return True


RULE_FN = {name: globals()["r_" + name] for name in RULES}
# rules that only apply to some question types get picked more often when they do apply
BOOST = {"q_belief_form": 4.0, "q_premise_form": 2.0}


def apply_rules(doc, names, rng):
    applied = []
    for name in ORDER:
        if name in names:
            before = doc.render()
            ok = RULE_FN[name](doc, rng)
            if ok and doc.render() != before:
                applied.append(name)
    return applied


def applicable(doc, name, rng):
    d = doc.copy()
    before = d.render()
    try:
        ok = RULE_FN[name](d, random.Random(rng.random()))
    except Exception:  # pragma: no cover - a rule that cannot handle this question
        return False
    return bool(ok) and d.render() != before


# --------------------------------------------------------------------------
# Validation: labels, ids, and a meaning fingerprint (objects per paragraph, the
# order of places/furniture in the actions, open/close counts, question entities).
# --------------------------------------------------------------------------
LABEL_A = re.compile(r"(?:\(a\)|(?<![\w(])a\)|(?<![\w(])A\)|(?<!\w)A\.(?= ))")
LABEL_B = re.compile(r"(?:\(b\)|(?<![\w(])b\)|(?<![\w(])B\)|(?<!\w)B\.(?= ))")


def normalise(text):
    t = text
    t = re.sub(r"\bcupboard", "cabinet", t, flags=re.I)
    t = re.sub(r"\bcouches\b", "sofas", t, flags=re.I)
    t = re.sub(r"\bcouch\b", "sofa", t, flags=re.I)
    t = re.sub(r"\brefrigerator", "fridge", t, flags=re.I)
    t = re.sub(r"\boven", "stove", t, flags=re.I)
    t = t.lower()
    t = re.sub(r"\bwineglass", "wine glass", t)
    t = re.sub(r"\btv remote", "remote control", t)
    t = re.sub(r"\bremote(s?)\b(?! control)", r"remote control\1", t)
    t = re.sub(r"\bdishbowl", "dish bowl", t)
    t = re.sub(r"(?<!dish )\bbowl", "dish bowl", t)
    t = re.sub(r"\bpacket(s?) of chips", r"bag\1 of chips", t)
    t = re.sub(r"\bwine bottle(s?)\b", r"bottle\1 of wine", t)
    t = re.sub(r"\bbottle(s?) of condiment\b", r"condiment bottle\1", t)
    t = re.sub(r"\bsauce bottle", "condiment bottle", t)
    t = re.sub(r"\bpieces of salmon\b", "salmons", t)
    t = re.sub(r"\bpiece of salmon\b", "salmon", t)
    t = re.sub(r"\ba single\b", "one", t)
    t = re.sub(r"\b(kitchen cabinet|cabinet) (?:number|no\.) (\d+)\b",
               lambda m: "the " + ORDW[int(m.group(2)) - 1] + " " + m.group(1), t)
    for w, d in NUM2D.items():
        if w not in ("zero", "one"):
            t = re.sub(r"\b%s\b" % d, w, t)
    for w, d in ORD2D.items():
        t = re.sub(r"\b%s\b" % d, w, t)
    t = re.sub(r"\bthe the\b", "the", t)
    t = re.sub(r"\b(%s) cabinet(s?) in the kitchen\b" % ORD_GROUP.replace(ANY_ORD, "(?:%s)" % ORD_RE),
               lambda m: m.group(1) + " kitchen cabinet" + m.group(2), t)
    # verbs of opening/closing
    for a, b in [("pulls it open and pushes it shut", "opens it and closes it"),
                 ("opens it and shuts it again", "opens it and closes it"), ("opens and closes it", "opens it and closes it"),
                 ("pulls it open", "opens it"), ("swings it open", "opens it"), ("opens it up", "opens it"),
                 ("pulls open the", "opens the"), ("pushes it shut", "closes it"), ("closes it back up", "closes it"),
                 ("shuts it again", "closes it"), ("shuts", "closes")]:
        t = t.replace(a, b)
    return t


OBJ_COUNT_RE = re.compile(r"\b(a|an|one|another|%s) (%s)\b" % ("|".join(NUMW), _alt(OBJ_SG + OBJ_PL)))
PLACE_RE = re.compile(r"\b(kitchen cabinet|bathroom cabinet|cabinet|fridge|microwave|stove|dishwasher|coffee table|"
                      r"kitchen table|desk|sofa|kitchen|bathroom|bedroom|living room|%s)\b" % ORD_RE)


def object_counts(text):
    c = collections.Counter()
    for m in OBJ_COUNT_RE.finditer(normalise(text)):
        det, noun = m.group(1), m.group(2)
        n = 1 if det in ("a", "an", "one", "another") else NUMW.index(det) + 2
        noun = noun if noun in OBJ_SG else OBJ_SG[OBJ_PL.index(noun)]
        if noun == "dishbowl":
            noun = "dish bowl"
        c[noun] += n
    return c


def action_fingerprint(actions):
    t = normalise(actions)
    places = [m.group(1) for m in PLACE_RE.finditer(t)]
    opens = len(re.findall(r"\bopen\w*", t))
    closes = len(re.findall(r"\b(?:clos\w*|shut\w*|seal\w*)", t))
    return places, opens, closes


def question_fingerprint(q):
    t = normalise(q)
    return sorted(set(m.group(0) for m in re.finditer(
        r"\b(?:%s|kitchen cabinet|bathroom cabinet|cabinet|fridge|microwave|stove|dishwasher|%s)\b"
        % (_alt(OBJ_SG), ORD_RE), t)))


def check_meaning(src_text, new_text, strict=True):
    """Return a list of problems (empty when the fingerprints agree)."""
    problems = []
    ms, mn = Q_RE.match(src_text), Q_RE.match(new_text)
    if not mn:
        return ["layout: no 'What's inside the apartment: ... Actions taken by NAME: ... Question: ...'"]
    if ms.group(2) != mn.group(2):
        problems.append("name differs")
    ls, ln = ms.group(1).split("\n"), mn.group(1).split("\n")
    if strict:
        if len(ls) != len(ln):
            problems.append("paragraph count differs")
        else:
            for i, (a, b) in enumerate(zip(ls, ln)):
                if object_counts(a) != object_counts(b):
                    problems.append("objects differ in paragraph %d: %s vs %s" % (i, object_counts(a), object_counts(b)))
        if action_fingerprint(ms.group(3)) != action_fingerprint(mn.group(3)):
            problems.append("actions differ: %s vs %s" % (action_fingerprint(ms.group(3)), action_fingerprint(mn.group(3))))
    else:
        if object_counts(ms.group(1)) != object_counts(mn.group(1)):
            problems.append("objects differ: %s vs %s" % (object_counts(ms.group(1)), object_counts(mn.group(1))))
    if question_fingerprint(ms.group(4)) != question_fingerprint(mn.group(4)):
        problems.append("question entities differ: %s vs %s" % (question_fingerprint(ms.group(4)), question_fingerprint(mn.group(4))))
    return problems


def option_texts(q):
    """Text of option a and option b of a question part."""
    ma = LABEL_A.search(q)
    mb = LABEL_B.search(q, ma.end()) if ma else None
    if not ma or not mb:
        return None
    tail = re.split(r"(?:Please respond|Answer a or b|Reply with a or b)", q[mb.end():])[0]
    return q[ma.end():mb.start()], tail


NEG_RE = re.compile(r"\b(?:not|no|isn't)\b")


def check_options(src_q, new_q, qtype):
    """The two options keep their order: negation pattern (beliefs) or goal objects (goals)."""
    so, no = option_texts(src_q), option_texts(new_q)
    if not no:
        return ["options a/b not found"]
    if qtype < 2:
        if [bool(NEG_RE.search(x)) for x in so] != [bool(NEG_RE.search(x)) for x in no]:
            return ["belief option polarity differs"]
        return []
    fa = [question_fingerprint(x) for x in so]
    fb = [question_fingerprint(x) for x in no]
    return [] if fa == fb else ["goal options differ: %s vs %s" % (fa, fb)]


def validate(rows, sources, warnings=None):
    """Errors for every row; for free (hand-written) rows the object-count fingerprint is only a warning,
    because the counter cannot read every construction a person writes ("each hold a bowl", article-less
    list items in the source) -- those rows were checked by hand."""
    problems = []
    warnings = warnings if warnings is not None else []
    ids = collections.Counter(r["id"] for r in rows)
    for k, v in ids.items():
        if v > 1:
            problems.append("duplicate id %s" % k)
    for r in rows:
        q = r.get("question", "")
        if not q.strip():
            problems.append("%s: empty question" % r["id"])
            continue
        if r["answer"] not in ("a", "b"):
            problems.append("%s: bad answer" % r["id"])
        src = sources[r["source"]]
        if r["answer"] != src["answer"] or r["question_type"] != src["question_type"]:
            problems.append("%s: answer/type differ from source" % r["id"])
        qpart = q.split("Question:", 1)[-1]
        ma = LABEL_A.search(qpart)
        mb = LABEL_B.search(qpart, ma.end()) if ma else None
        if not ma or not mb:
            problems.append("%s: missing option label (a)/(b)" % r["id"])
            continue
        a_txt, b_txt = option_texts(qpart)
        if not a_txt.strip() or not b_txt.strip():
            problems.append("%s: empty option text" % r["id"])
        for p in check_meaning(src["question"], q, strict=not r["free"]):
            if r["free"] and p.startswith("objects differ"):
                warnings.append("%s (source %d): %s" % (r["id"], r["source"], p))
            else:
                problems.append("%s: %s" % (r["id"], p))
        for p in check_options(src["question"].split("Question:", 1)[1], qpart, src["question_type"]):
            problems.append("%s: %s" % (r["id"], p))
        if not r["rewrites"]:
            problems.append("%s: no rewrites listed" % r["id"])
        if not r["free"] and (q == src["question"] or not 1 <= len(r["rewrites"]) <= 4):
            problems.append("%s: unchanged or wrong number of rules" % r["id"])
    return problems


# --------------------------------------------------------------------------
def self_test(sources):
    """Rendering a parsed question with no rule must give back the source exactly."""
    for i, s in enumerate(sources):
        d = Doc(s["question"], s["question_type"])
        d.qflags = {"premise": None, "body": None}
        if d.render() != s["question"]:
            raise SystemExit("self-test failed on source line %d" % i)
        d.qflags = {}
        assert d.render() == s["question"]


def build(sources, rng):
    usage = collections.Counter()
    out = []
    by_type = collections.defaultdict(list)
    for i, s in enumerate(sources):
        by_type[s["question_type"]].append(i)
    for t in TYPES:
        picks = sorted(rng.sample(by_type[t], PER_TYPE))
        for idx in picks:
            src = sources[idx]
            for attempt in range(20):
                doc = Doc(src["question"], t)
                cands = [n for n in RULES if applicable(doc, n, rng)]
                k = rng.choice([1, 2, 2, 3, 3, 3, 4, 4])
                k = min(k, len(cands))
                chosen = []
                pool = list(cands)
                for _ in range(k):
                    weights = [BOOST.get(n, 1.0) / (1 + usage[n]) ** 1.5 for n in pool]
                    n = rng.choices(pool, weights)[0]
                    chosen.append(n)
                    pool.remove(n)
                applied = apply_rules(doc, chosen, rng)
                text = doc.render()
                if applied and text != src["question"] and not check_meaning(src["question"], text) \
                        and not check_options(src["question"].split("Question:", 1)[1],
                                              text.split("Question:", 1)[1], t):
                    break
            else:
                raise SystemExit("could not build a checked rewrite for source %d" % idx)
            usage.update(applied)
            out.append({"source": idx, "question_type": t, "question": text, "answer": src["answer"],
                        "rewrites": applied, "free": False})
    for j, r in enumerate(out):
        r_id = "rw-%04d" % (j + 1)
        out[j] = {"id": r_id, **r}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=DEFAULT_SOURCE, help="MMToM-QA questions.jsonl (default: %(default)s)")
    ap.add_argument("--free", default=os.path.join(HERE, "free_rewrites.jsonl"))
    ap.add_argument("--out", default=os.path.join(HERE, "reworded.jsonl"))
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    with open(args.source, encoding="utf-8") as f:
        sources = [json.loads(l) for l in f if l.strip()]
    self_test(sources)
    rng = random.Random(args.seed)
    rows = build(sources, rng)
    free = []
    if os.path.exists(args.free):
        with open(args.free, encoding="utf-8") as f:
            free = [json.loads(l) for l in f if l.strip()]
    for r in free:
        if r.get("free") is not True or "free" not in r.get("rewrites", []):
            raise SystemExit("free rewrite %s must have free: true and 'free' in rewrites" % r.get("id"))
    rows += free
    warnings = []
    problems = validate(rows, sources, warnings)
    for w in warnings:
        print("note (hand-checked):", w)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        raise SystemExit("%d validation problems" % len(problems))
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    # summary
    per_type = collections.Counter(r["question_type"] for r in rows)
    per_type_gen = collections.Counter(r["question_type"] for r in rows if not r["free"])
    per_type_free = collections.Counter(r["question_type"] for r in rows if r["free"])
    per_rule = collections.Counter(n for r in rows if not r["free"] for n in r["rewrites"])
    per_phen = collections.Counter(n for r in rows if r["free"] for n in r["rewrites"])
    nrules = collections.Counter(len(r["rewrites"]) for r in rows if not r["free"])
    print("wrote %d rows (%d generated, %d free) to %s" % (len(rows), len(rows) - len(free), len(free), args.out))
    print("per type (all / generated / free):")
    for t in TYPES:
        print("  %s: %d / %d / %d" % (t, per_type[t], per_type_gen[t], per_type_free[t]))
    print("rules per generated question:", dict(sorted(nrules.items())))
    print("per rule (generated rows):")
    for n in RULES:
        print("  %-20s %d" % (n, per_rule[n]))
    print("phenomena tagged in free rewrites:")
    for n, v in sorted(per_phen.items(), key=lambda x: -x[1]):
        print("  %-20s %d" % (n, v))


if __name__ == "__main__":
    main()
