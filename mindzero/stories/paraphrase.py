"""Story sentences in a user's own words, read as the Hi-ToM templates the engine reads.

A person writing a Sally-Anne story says "Anna and Ben are in the kitchen.", "Anna walks into the
den and pops the apple into the red box.", "The apple was moved to the blue crate by Ben.", "After
Ben had left, Anna took it out and put it back." or "Where does Ben believe the apple is?"; the
engine reads "Anna and Ben entered the kitchen.", "Anna moved the apple to the red_box.", "Ben
exited the kitchen." and "Where does Ben think the apple is?". :func:`read_sentence` makes that
rewrite: it splits a sentence into clauses (joined by "and", "then", ";", or "after / before /
once / while ..., ..."), finds each clause's subject (names, "he" / "she" / "they" for the agents
the sentence before was about), its verb by lemma (:data:`VERBS`, every inflection) and its
complements by their prepositions, so "puts / stashes / tucks / popped the O (back) into / in /
inside the C" are one reading. A thing's name of up to three words becomes one, joined by "_" as
Hi-ToM writes them ("the red box" -> ``red_box``); "it" / "them" is the object named last.

Anything the reader cannot place exactly (a verb it does not know, an unknown pronoun, "Ann said
..." with no one named who heard it) is refused: a silently misread event would change every later
belief. Every rewrite is reported by :func:`~mindzero.stories.events.read_story`; the templates are
:mod:`mindzero.stories.templates`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cache

from mindzero.core.spelling import BARE_CONTRACTIONS, typo_fixes, with_apostrophes
from mindzero.stories.templates import NAME, NOT_NAMES, ROOMS, Enter, Exit, Move, move_people, parse_line

#: Verb classes by lemma; every inflection is read (lemminflect). "move" is both a motion ("moved
#: to the hall") and a placement ("moved the O to the C"): the words after it decide.
VERBS: dict[str, tuple[str, ...]] = {
    kind: tuple(words.split())
    for kind, words in {
        "motion": "go walk come step head wander pop run stroll hurry rush dash stride march return proceed arrive "
        "meet regroup gather assemble reconvene convene pile repair troop "
        "get move hop nip duck sneak slip venture pass race jog skip make rejoin join reenter end follow drift toddle "
        "trot tiptoe scamper crawl creep scurry dart amble saunter",
        "enter": "enter reenter re-enter",
        "leave": "exit leave depart quit vacate vanish disappear withdraw retreat bail scram bounce dip",
        "place": "move put place transfer relocate shift stash tuck stick drop hide pop toss slip stuff shove set "
        "lay throw chuck store bring carry deposit plop leave return switch sneak squirrel dump lodge rehome keep "
        "bung lob plonk bestow restore",
        "take": "take grab pick remove fetch lift pull retrieve snatch collect get",  # "get" is also motion
        "stay": "stay wait remain linger hang sit stand idle loiter rest pause spend crouch chill faff hold tarry",
        "notice": "see notice spot observe glimpse hear spy watch clock espy",
        "like": "like enjoy prefer fancy admire",
        "love": "love adore",
        "dislike": "dislike detest",
        "hate": "hate loathe despise",
        "lose": "lose misplace",
        "claim": "claim murmur mutter announce declare proclaim shout insist assert yell exclaim state say tell "
        "call broadcast inform whisper confide mention let remark advise notify communicate relay convey alert speak",
        "be": "be",
        "other": "do touch handle pull draw",  # read only where nothing happens: "did not touch it"
        "turn": "turn face address lean",  # "turned to Owen (and whispered ...)": no event
        # thinking and feeling: a clause with one of these and no word of going, placing or a place is no event
        "muse": "think wonder feel seem sigh smile laugh frown yawn shiver hum nod shrug find realise realize "
        "decide consider remember forget hope annoy please bore want wish "
        # a look or a face made at something (a script's action lines): "glares at the corn", "scowls"
        "gaze glare stare glance eye scowl grimace wrinkle pat pout wince beam grin sniff squint blink",
    }.items()
}
#: Words that say how or when, not what: skipped wherever they stand.
ADVERBS = frozenset(
    "then now also just quickly carefully quietly slowly immediately later soon again back still already "
    "finally next suddenly eventually right straight promptly swiftly briskly calmly casually silently "
    "secretly privately publicly openly loudly aloud currently afterwards afterward meanwhile first "
    "subsequently thereafter shortly directly simply actually really even gently hastily too likewise "
    "however lastly anyway together herself himself themselves present all both very either always rather "
    "yet itself tho rn lol btw haha lmao smh omg tbh imo ngl fr idk thereupon forthwith straightway moreover "
    "presently somehow".split()  # the last a chat's
)
#: Words that mark a claim as heard by everyone present, or by the listener alone.
PUBLIC = frozenset("publicly openly aloud loudly everyone everybody all others group room party crowd company".split())
PRIVATE = frozenset(
    "privately secretly quietly confidentially discreetly whisper confide murmur mutter else only aside alone".split()
)
#: Words no name is: a capitalised one of them starts a sentence ("Then", "After", "The").
FUNCTION_WORDS = frozenset(
    "the a an then after before once when while as since next later meanwhile finally now soon so "
    "and but or there here he she they it we i you his her their its this that these those what where "
    "which who how in on at to into from by with without of for first eventually afterwards afterward "
    "subsequently suddenly shortly thereafter also still just again meanwhile having according some "
    "all everyone everybody nobody someone somebody one another both each either neither had has have did does "
    "do will would can could should may might must inside onto within towards toward outside behind under "
    "beside near over during".split()
)
_DETERMINERS = frozenset("the a an some his her their its one this that".split())
#: Verbs that look into or at a place without going there ("peeks into the box").
_NOT_MOTION = frozenset(
    "look looks looked peek peeks peeked glance glances glanced stare stares stared peer peers peered reach "
    "reaches reached check checks checked".split()
)
#: Words for people after a number ("all five participants").
_PEOPLE = (
    "participants", "people", "friends", "children", "kids", "agents", "characters", "of the participants",
    "girls", "boys", "women", "men", "siblings", "sisters", "brothers", "twins",
)  # fmt: skip
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "2": 2, "3": 3, "4": 4, "5": 5}
_PARTICLES = frozenset("out up off away down over aside around about along".split())
#: Words that end a thing's name: where it is, not what it is ("the pear located in ...").
_STATE_WORDS = frozenset(
    "located situated kept stored placed hidden found sitting sat lying resting now lies reposing reposes "
    "reposed".split()
)
_PREP_IN = ("inside of", "in to", "into", "inside", "onto", "within", "in", "on", "to")
_TIME = re.compile(
    r"\b(?:(?:for|after|within|in|about|during) )?(?:like |about |around |roughly |approximately )?"
    r"(?:a|an|one|1|two|2|three|3|a few|several|some|another|a couple of|(?:out )?(?:his|her|their)(?: own)?)"
    r"(?: \(\d+\))?"
    r" (?:more |whole |full |entire |idle |motionless |quiet |silent |still |long |solid |good )?"
    r"(?:minute|minutes|min|moment|moments|while|second|seconds|bit|hour|hours)"
    r"(?: of (?:his|her|their) own| of it)?(?: later| or so| afterwards)?\b|\bat the (?:very )?same (?:moment|time)\b"
    r"|\b(?:at|by|around|about) (?:around |about )?(?:this|that|the same) (?:time|moment|point|hour|instant)\b"
    r"|\bat the end\b|\bafter that\b|\bafter this\b"
    r"|\bshortly (?:after|afterwards)\b|\bsoon after(?:wards)?\b|\bright after\b|\bafter a bit\b|\bmoments? later\b"
    r"|\bnot long after(?:wards)?\b|\bpresently\b|\ba little later\b|\bsome time later\b|\bin a moment\b"
    r"|(?:\b(?:at|by|around|about|until) )?(?:approximately )?\b\d{1,2}[:.]\d\d\b"  # "at 10:02 (am)"
    r"(?: ?(?:am|pm|hours|hrs)\b)?",
    re.IGNORECASE,
)
#: Names in a list: "Owen", "Owen and Ella", "Owen, Ella(,) and Noah".
_NAMES_PLAIN = r"[A-Z][a-z]+(?:, [A-Z][a-z]+)*(?:,? (?:and|&) [A-Z][a-z]+)?"
#: The rooms as written in a story ("front yard" for front_yard), for the rewrites below.
_SCENE_ROOMS = "|".join(sorted((r.replace("_", " ") for r in ROOMS), key=len, reverse=True))
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcannot\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\b(he|she|it|there|that|where|who|what)'s\b", re.I), r"\1 is"),
    (re.compile(r"\b(they|we|you)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(did|does|do|was|is|were|are|has|have|had|could|would|should)nt\b", re.I), r"\1 not"),  # "didnt"
    (re.compile(r"\b(she|he|they)(s|re)\b(?=\s+(?:in|at|inside|back|still|now|gone|out))", re.I), r"\1 is"),
    (re.compile(r"\b(\w+)'ll\b", re.I), r"\1 will"),
    (
        re.compile(r"\b(\w+)'d (?=\w+ed\b|(?:left|gone|put|taken|been|seen|come|got|gotten|hidden|lost|set)\b)", re.I),
        r"\1 had ",
    ),
    (re.compile(r"\b(\w+)'d\b", re.I), r"\1 would"),
    (re.compile(r"\b(\w+)'ve\b", re.I), r"\1 have"),
    # a chat's shorthand: "n" / "&" and, "w/" with, "bc" because, "abt" about, "thru" through
    (re.compile(r"(?<![\w'])n(?![\w'])|&| \+ "), " and "),
    (re.compile(r"\bits (?=(?:in|inside|on|still|now|really|actually)\b)", re.I), "it is "),
    (re.compile(r"\s+[-–—]+\s+"), " , "),  # "goes out - Leo comes in": a dash between clauses
    (re.compile(r"\bw/o\b", re.I), "without"),
    (re.compile(r"\bw/", re.I), "with "),
    (re.compile(r"\b(?:bc|b/c|cuz|coz|cos)\b", re.I), "because"),
    (re.compile(r"\babt\b", re.I), "about"),
    (re.compile(r"(?<![\w'])r(?![\w'])"), "are"),
    (re.compile(r"\bthru\b", re.I), "through"),
    # British idioms: "legs it", "clears off", "whilst", "the lot of them", a trailing ", mate" / ", mind"
    (re.compile(r"\b(?:leg|legs|legged|legging) it\b", re.I), "goes off"),
    (
        re.compile(
            r"\b(?:clear|clears|cleared|bugger|buggers|buggered|push|pushes|pushed|shove|shoves|shoved) off\b", re.I
        ),
        "goes off",
    ),
    (re.compile(r"\bwhilst\b", re.I), "while"),
    # a nineteenth-century narrator: "took his leave (of the hall)", "took her departure", "went her way", "ere",
    # "wherein", "in company", "had occasion to enter", "betook themselves to", "were gathered into"
    (re.compile(r"\b(took|takes|take|taking) (?:his|her|their) (?:leave|departure)( of\b| from\b)?", re.I),
     lambda m: {"took": "departed", "takes": "departs", "take": "depart"}.get(m[1].lower(), "departing")
     + (" from" if m[2] else "")),
    (re.compile(r"\b(?:reposed|reposes|reposing)\b", re.I),
     lambda m: {"reposed": "lay", "reposes": "lies"}.get(m[0].lower(), "lying")),
    (re.compile(r"\b(went|goes|go|going) (?:his|her|their) (?:own )?ways?\b", re.I), r"\1 off"),
    (re.compile(r"\bere\b", re.I), "before"),
    (re.compile(r"\bwherein\b|,\s*in which\b(?= (?:the|a|an) )", re.I),
     lambda m: ", where" if "," in m[0] else "where"),
    (re.compile(r"\s+in company\b", re.I), ""),
    (re.compile(r"\b(?:had|has|have) occasion to (?=enter|go|come|step|repair)", re.I), ""),
    (re.compile(r"\b(?:betook|betakes|betake) (?:himself|herself|themselves) (?=to|into)", re.I), "went "),
    (re.compile(r"\b(?:was|were|are|is) gathered (?=into\b)", re.I), "went "),
    (re.compile(r"\b([A-Z][a-z]+),\s*after (?:a like|a similar|the same|an equal) (?:minute|interval)"
                r"(?: of (?:repose|stillness|quiet|rest|inaction))?,\s*", re.I), r"\1 stayed a minute and then "),
    (re.compile(r"\b(?:unstirring|stirring not (?:at all|a whit|a jot|an inch))\b", re.I), "motionless"),
    (re.compile(r"(?<=[a-z])(?<!\bat) last(?: of all)?(?=\s*[.;!]|\s*$)"), ""),  # "withdrew from the bedroom last."
    (re.compile(r"\b(?:passed|passes|pass|passing) (a|an|one|his|her|their) (minute|moment)\b", re.I), r"spent \1 \2"),
    (re.compile(r"\bmotionless as an? \w+\b", re.I), "motionless"),
    (re.compile(r"\b(was|were|is|are|lay|lies)((?: at that (?:moment|time|hour)| then| now| still)?) contained in\b"
                r"(?![^.;,]* by\b)", re.I), r"\1\2 in"),
    (re.compile(r",\s*as (?:ill |bad |good )?(?:luck|fortune|chance) would have it\s*,", re.I), ","),
    (re.compile(r"\b(?:from )?thence\b", re.I), "then"),
    (re.compile(r"^(?:anon|forthwith|presently),?\s+", re.I), ""),  # "Anon Jacob went ...": soon after
    (re.compile(r"\b(quitted|quit|left|exited|departed from|withdrew from) the place\b", re.I), r"\1 the room"),
    (re.compile(r"\bin (?:very|rather|exceedingly|most|the) (low|high) regard\b", re.I), r"in \1 regard"),
    # "..., and there the pear lay in the box", "..., the pear lying at that time in the box": where it is
    (re.compile(r",\s*(?:and )?there (?=(?:the|a|an) [a-z][a-z ]*? "
                r"(?:lay|lies|sat|sits|stood|stands|rested|rests|was|is)\b)", re.I), ", where "),
    (re.compile(r",\s*(?=(?:the|a|an) [a-z][a-z ]*? lying\b)", re.I), ", where "),
    (re.compile(r"(?<=[a-z]) lying\b(?=(?: at that (?:moment|time|hour)| then| still)? (?:in|inside|on)\b)"), " lay"),
    # a feeling as a noun: "had a great aversion to", "bore a decided dislike for", "was displeased with" (as _LIKING
    # words it)
    (re.compile(r"\b(?:(had|bore|cherished|harboured|harbored|felt|nursed)|has|bears|cherishes|feels) "
                r"(?:a |an )?(?:(?:great|strong|decided|marked|deep|certain|particular|most|lively|violent) )*"
                r"(?:aversion|dislike|distaste|antipathy|loathing|horror) (?:to|for|of|towards)\b", re.I),
     lambda m: "had an aversion to" if m[1] else "has an aversion to"),
    (re.compile(r"\b(was|were|is|are) (?:(?:much|greatly|rather|very|most|sorely|quite) )?(?:displeased|disgusted) "
                r"(?:with|by)\b", re.I),
     lambda m: "did not like" if m[1].lower() in ("was", "were") else "does not like"),
    # a commentator sets the scene, then they come in: "It's the hallway, and in come A and B!", "We're down in
    # the crawlspace: A, B and C come in!", "Out in the front yard now, and A and B all step in!"
    (re.compile(rf"^(?i:(?:(?:and|now|so|first half|second half),? (?:and )?)*(?:(?:it's|it is|we're|we are) )?"
                rf"(?:(?:down|out|up|over|back) )?(?:in )?the ({_SCENE_ROOMS})(?: now)?\s*[,:]\s*(?:and )?)"
                rf"(?:(?i:in come|in comes) ({_NAMES_PLAIN})"
                rf"|({_NAMES_PLAIN}) (?:all )?(?:come|step|walk|file|troop|pile)s?(?: on)? in)\s*(?=[.!]|$)"),
     lambda m: f"{m[2] or m[3]} entered the {m[1]}"),
    # "Bob's off into the hall", "and out of the kitchen strode Bob": going in other words' order
    (re.compile(r"\b([A-Z][a-z]+)(?:'s| is) off (into|in to|to|out of)\b"), r"\1 goes \2"),
    (re.compile(rf"^(?:(?i:and|then|now) )*((?:[Oo]ut of|[Ii]nto|[Ii]n to) the [a-z][a-z ]*?) ([a-z]+) ({_NAMES_PLAIN})"
                rf"\s*(?=[.!]|$)"), r"\3 \2 \1"),
    # a live commentator: "Here come A and B into the den!", "here they come into the den: A, B and C!", "Here's
    # Noah, into the den!", "Everyone's into the den now: A, B and C", ", and out of the den goes Noah!"
    (re.compile(rf"\b(?:[Hh]ere|[Tt]here) (?:comes?|goes|go) ({_NAMES_PLAIN})\b"), r"\1 come"),
    (
        re.compile(rf"\b(?:here|there) (?:they|we) (?:all )?(comes?|goes|go) ([^:—–]*?)\s*[,:—–-]+\s*({_NAMES_PLAIN})"
                   rf"\s*(?=[.!]|$)", re.I),
        r"\3 \1 \2",
    ),
    (
        re.compile(rf"^(?:and |now |then )*((?:into|in to|out of) the [a-z][a-z ]*?) (?:they|we) (?:all )?([a-z]+)\s*"
                   rf"[,:—–-]+\s*({_NAMES_PLAIN})\s*(?=[.!]|$)", re.I),
        r"\3 \2 \1",
    ),
    (re.compile(r"\b(?:[Hh]ere|[Tt]here)(?:'s| is) ([A-Z][a-z]+),? (into|in to|out of|back into)\b"), r"\1 goes \2"),
    (re.compile(r"^(?:and )?over to ([A-Z][a-z]+),\s+(?=[a-z]+ing\b)", re.I), r"\1 "),
    (
        re.compile(rf"\b(?:everyone|everybody)(?:'s| is| are) (into|in|"
                   rf"out of) the ([a-z][a-z ]*?)(?: now)?\s*[:—–-]+\s*"
                   rf"({_NAMES_PLAIN})", re.I),
        r"\3 go \1 the \2",
    ),
    (
        re.compile(r"((?:,\s*|\s+and\s+)(?:and |then |and then |now )?)((?:back )?(?:out of|into|"
                   r"in to) the [a-z][a-z ]*?|out|in|off|away) "
                   r"(goes|go|comes|come|went|came) ([A-Z][a-z]+|he|she|they)(?=\s*[,.;!?]|\s*$)"),
        r"\1\4 \3 \2",
    ),
    (re.compile(r"\b((?:back )?(?:into|in to|onto) the [a-z][a-z ]*?) (it|they) (goes|go|went)\b", re.I), r"\2 \3 \1"),
    # "..., a minute of nothing and out of the bathroom she goes": she goes out of it
    (re.compile(r"((?:,\s*|\s+and\s+)(?:and |then |and then |now )?)((?:back )?out of the [A-Za-z][A-Za-z ]*?) "
                r"(he|she|they|[A-Z][a-z]+) (goes|go|went|comes|come|came)(?=\s*[,.;!?]|\s*$)"), r"\1\3 \4 \2"),
    (re.compile(r"\b(?:goes|go|went|gets|got|get) to work\s*(?=[:—–])", re.I), ""),  # "Abigail goes to work: she ..."
    (re.compile(rf"\b(?:[Tt]hey|[Ww]e|[Ee]veryone|"
                rf"[Ee]verybody)(?: all)? ([a-z]+)\s*[:—–]+\s*({_NAMES_PLAIN}),? (into|to|in) the\b"),
     r"\2 \1 \3 the"),  # fmt: skip
    (re.compile(r"\s*(?:[—–,]|\s-)\s*(?:what an?|such an?) [a-z ]{1,30}[!.]*$", re.I), "!"),  # "..., what a reply!"
    (re.compile(r"\b(come|comes|came|go|goes|went) (?:charging|rushing|running|racing|storming|bursting|tearing|"
                r"bounding|"
                r"dashing|hurrying|streaming|piling|trooping|filing)\b", re.I), r"\1"),  # "come charging into"
    # a commentator: "Owen's holding his ground", "stands firm", "holds position", "plants her feet"
    (re.compile(r"(?:(?<=[A-Za-z])'s|\s+(?:is|was))\s+(?:holding|standing|planting) (?:his|her|their) "
                r"(?:ground|position|feet)\b|(?:(?<=[A-Za-z])'s|\s+(?:is|was))\s+(?:standing firm|holding position)\b",
                re.I), " stays"),
    (re.compile(r"\b(?:holds?|held|holding|stands?|stood|standing|plants?|planted|planting) (?:his|her|their) "
                r"(?:ground|position|feet)\b|\b(?:stands?|stood|standing) firm\b|\b(?:holds?|held|holding) position\b",
                re.I), "stays"),
    (re.compile(r"\b(?:stays?|stayed|staying|stands?|stood|standing) rooted to the spot\b", re.I), "stays"),
    (re.compile(r"\b(?:starts?|started|starting) (?:out |off )?(in|inside)\b", re.I), r"is \1"),
    (re.compile(r"\b(?:kicks?|kicked) off (in|inside)\b", re.I), r"is \1"),
    # a nineteenth-century narrator: titles, "took his leave of", "in which", "was to be found in", "from thence"
    (re.compile(r"\b(?:Master|Miss|Mistress|Mr\.?|Mrs\.?|Ms\.?|Madam|Madame|Lady|Sir|Dame|Lord) (?=[A-Z][a-z])"), ""),
    (re.compile(r"\b(?:took|takes|take|taking) (?:(?:his|her|their) )?leave of\b", re.I), "left"),
    (re.compile(r",\s*in which\b", re.I), ", where"),
    (re.compile(r"\b(declared|declares|announced|announces|said|says|stated|states|proclaimed|proclaims) before "
                r"(the (?:whole |assembled )?(?:company|party|group|room|others)|everyone|everybody|all)\b", re.I),
     r"\1 to \2"),  # fmt: skip
    (re.compile(r"\b(is|was|are|were) to be found (in|inside|within)\b", re.I), r"\1 \2"),
    (re.compile(r"\b(?:and )?from thence\b", re.I), "then"),
    (re.compile(r"\b(?:held|holds|hold) (the [a-z]+(?: [a-z]+)?) in (?:no|low|little|poor) (?:esteem|regard)"
                r"(?: whatever| whatsoever| at all)?", re.I), r"disliked \1"),
    (re.compile(r"\bthe (?:whole )?lot of (?:them|us)\b", re.I), "all of them"),
    # the group's names after where it went: "the lot of them go into the den, A, B and C", "in they all go, into
    # the den: A, B and C!", "in they all come, A, B and C, into the den"
    (re.compile(rf"\b(?:they|we|everyone|everybody|all of them)(?: all)? ([a-z]+ (?:into|in to|to) the [a-z][a-z ]*?)"
                rf"\s*[,:]\s*({_NAMES_PLAIN})(?=\s*[.!]*\s*$)", re.I), r"\2 \1"),
    (re.compile(rf"^((?:and |then |now )*)in (?:they|we) all (go|come),?\s*(?:(into the [a-z][a-z ]*?)\s*[,:]\s*"
                rf"({_NAMES_PLAIN})|({_NAMES_PLAIN}),\s*(into the [a-z][a-z ]*?))(?=\s*[.!]*\s*$)", re.I),
     lambda m: f"{m[1]}{m[4] or m[5]} {m[2]} {m[3] or m[6]}"),
    (re.compile(r",\s*(?:mate|mind|innit|like)\s*(?=[,.!?]|$)", re.I), ""),
    (re.compile(r",?\s*\bnothing doing\b", re.I), ""),
    (re.compile(r"\boff out\b", re.I), "out"),
    # another floor is out of the room: "went upstairs", "while he was upstairs", "came back down"
    (
        re.compile(
            r"\b(went|goes|go|ran|runs|run|headed|heads|head|hurried|hurries|dashed|dashes) (?:up|down)stairs\b", re.I
        ),
        r"\1 out",
    ),
    (re.compile(r"\b(is|was|are|were) (?:up|down)stairs\b", re.I), r"\1 away"),
    (re.compile(r"\b(came|comes|come) back (?:down|up)(?:stairs)?\b", re.I), r"\1 back"),
    (re.compile(r"\bpull(?:s|ed|ing)? up (?:to|at)\b", re.I), "goes to"),  # "pulls up to the den": arrives
    # the audience said after what was said: "yells that the pear is in the box, like to everyone"
    (re.compile(r"\b(yell|yells|yelled|shout|shouts|shouted|announce|announces|announced|say|says|said|tell|tells|"
                r"told) that ([^,;]+?),?\s*(?:like |basically )?to (everyone|everybody|all of them|the whole group|"
                r"the group|the room)(?=\s*[.!]*\s*$)", re.I), r"\1 to \3 that \2"),
    # "Ava does the same, stays a minute and leaves": what she does is said after the comma
    # "Ella's the same, a minute stood there and ...": a British "is the same" with what she did after the comma
    (re.compile(r"\b(?:(?:does|did|do|is|was|'s) (?:exactly |just |the very )?(?:the same|same|likewise)|"
                r"(?<=[a-z] )same(?: thing)?),\s+"
                r"(?=[a-z])"), ""),
    # a name and how long, without a verb: "Emily, same, a minute, then out", "Noah, a minute of stillness, and
    # then ...", "Lucas, not a muscle moving, a full minute in the hall" (not "Ann, a minute later, ...")
    (
        re.compile(
            r"(^|[;:]\s*|,\s*(?:and )?(?:then )?)(?P<who>[A-Z][a-z]+)\s?[,:]?(?:\s*(?:(?:the )?same(?: deal| thing|"
            r" again)?|last|next|"
            r"too|also|not a muscle moving|stock[- ]still|frozen(?: in place)?|motionless|unmoving|quite still|"
            r"dead still|(?:patient|calm|cool|quiet|still) as (?:you like|you please|anything|ever))\s*[,:]?)*"
            r"\s*(?:for\s+)?(?P<how>(?:a|one|1)\s+(?:full |whole |solid |quiet |still |long )?"
            r"(?:minute|min))\b(?: of (?:absolute |complete |perfect |total |utter |pure )?(?:nothing|doing nothing|"
            r"patience|"
            r"stillness|"
            r"quiet|silence|waiting|standing (?:still|around)|not moving)\b"
            r"| (?:stood|sat) (?:there|about|around|still)\b)?"
            r"(?=\s*(?:[,.;:!?]|$)|\s+(?:then|"
            r"and|in|there|without)\b)"
        ),
        r"\1\g<who> stays \g<how>",
    ),
    (
        re.compile(
            r"(?<!stays )\b(?:a|one) (?:full |whole |solid )?(?:minute|min) of (?:absolute |complete |perfect |"
            r"total |utter )?"
            r"(?:nothing|doing nothing|stillness|quiet|silence|waiting|standing (?:still|around)|not moving)\b",
            re.I,
        ),
        "stays a minute",
    ),
    (
        re.compile(r"(?<!stays )(?<!spends )(?<!spent )(?<!spend )(?<!takes )(?<!took )"
                   r"(?:\ba (?:quiet|still|silent) minute\b|\ba minute's (?:pause|wait|rest|"
                   r"silence)\b)", re.I),
        "stays a minute",
    ),
    # a game master's table talk: "takes a motionless minute of her own", "spends a minute standing still",
    # "hangs around the den", ", hands in pockets,", "leans in and murmurs to", "spots a mouse skittering along
    # the wall", "the whole party (A, B and C) rolls into", "the party regroups: A, B and C all head into"
    (re.compile(r"\b(?:takes|took|take|taking) (?=(?:a|one|his|her|their) (?:\w+ )?(?:\w+ )?minute\b)", re.I),
     "spends "),  # fmt: skip
    (re.compile(r"(?<=\bminute) (?:standing|sitting|waiting) (?:still|around|quietly)\b", re.I), ""),
    (re.compile(r"\b(hangs|hung|hang|hanging) (?:around|about) the\b", re.I), r"\1 around in the"),
    (re.compile(r",\s*(?:(?:his|her|their) )?hands in (?:(?:his|her|their) )?pockets\s*(?=,)", re.I), ""),
    (re.compile(r"\b(?:leans|leaned|leant|lean) (?:in|over)(?: close)?,? and (?=[a-z])", re.I), ""),
    (re.compile(r"\b((?:spots|spotted|spot|sees|saw|see|notices|noticed|notice|spies|spied) (?:a|an) [a-z]+) [a-z]+ing"
                r"(?: (?:along|across|around|past|by|under|over|up|down|on) the [a-z]+)?(?=\s*[,.;!]|\s*$)", re.I),
     r"\1"),  # fmt: skip
    (re.compile(rf"\bthe (?:whole )?(?:party|group|team) \(({_NAMES_PLAIN})\)", re.I), r"\1"),
    (re.compile(rf"\b(?:the (?:whole )?(?:party|group|team)) (?:regroups|regrouped|gathers|gathered|reassembles|"
                rf"reassembled)\s*:\s*(?=(?:{_NAMES_PLAIN})\b)", re.I), ""),  # fmt: skip
    (re.compile(r"\b([Tt]hen|[Aa]nd) away(?=\s*[,.;!]|\s*$)"), r"\1 goes away"),  # "..., a quiet minute and then away"
    (re.compile(r"\b(?:catch|catches|caught) sight of\b", re.I), "saw"),
    (re.compile(r",?\s*\bdead (?:still|quiet|silent)\b", re.I), ""),
    (re.compile(r"(?:\b(?:is|was)|'s) (?:the )?last,\s*"), " "),  # "Hannah's last, sticks around ..."
    (re.compile(r"\b(?:is|are|was|were) off,? (?:out of|from) the\b", re.I), "goes out of the"),  # "Ava's off, out of"
    (re.compile(r"(\bthen|\band|,) out of the ([a-z_]+(?: [a-z_]+)?)(?=\s*[,.;!]|"
                r"\s*$)", re.I), r"\1 goes out of the \2"),
    (re.compile(r",\s*(?:bless(?: (?:him|her|them))?|for the record|for what it's worth)\s*(?=[,.!?]|$)", re.I), ""),
    (re.compile(r"\bout of the ([a-z_ ]+?),? and (?:then )?(into|to) the\b", re.I), r"from the \1 \2 the"),
    (
        re.compile(r"\b(look|peek|nose) (round|around|about) the [a-z_ ]+?(?=\s+(?:and|then)\b|\s*[,.;]|$)", re.I),
        r"\1 \2",
    ),
    (
        re.compile(
            r"\b(?:(?:has|had|have|having|slips|slipped|slip|drops|dropped|drop|puts|put|leans in with|leaned in with|"
            r"leant in with|leaning in with|with) )?an? (?:quiet |private |little |quick |secret |hushed |sly )?word "
            r"(?:in(?:to)? ([A-Z]\w*)'s ear|with ([A-Z]\w*)|to ([A-Z]\w*))\b"
        ),
        r"whispers to \1\2\3",
    ),
    (re.compile(r"\bwhisper(s|ed)? in(?:to)? ([A-Z]\w*)'s ear\b"), r"whisper\1 to \2"),
    # what the teller adds: "which it isn't", "Noah is the last one in there" (she stays where she is)
    (re.compile(r",\s*which (?:it|that) (?:is not|isn't|was not|wasn't|is|was)(?: true)?\b", re.I), ""),
    (
        re.compile(
            r"\b(?:is|was) the (?:last|only) one(?: left| remaining)?"
            r"(?: in there| there| in here| inside)?(?=\s*[,.;]|$)"
        ),
        "stays",
    ),
)
NEGATION = frozenset("not never no nothing nobody without".split())


@cache
def _forms() -> dict[str, str]:
    """Every inflection of every verb of :data:`VERBS` -> its lemma."""
    from lemminflect import getAllInflections  # noqa: PLC0415 — loaded on the first non-template sentence

    forms: dict[str, str] = {}
    for lemmas in VERBS.values():
        for lemma in lemmas:
            forms.setdefault(lemma, lemma)
            for inflections in getAllInflections(lemma, upos="VERB").values():
                for form in inflections:
                    forms.setdefault(form, lemma)
    forms.update({"is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be", "am": "be"})
    return forms


@dataclass
class Context:
    """What a sentence may refer to: the agents the event before was about (a leading "he" / "she" /
    "they"), the room each agent is in ("left the room", "stayed there"), and the object named last
    ("it")."""

    subject: tuple[str, ...] = ()
    rooms: dict[str, str] = field(default_factory=dict)
    obj: str | None = None
    agents: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()  # rooms and containers named so far
    containers: frozenset[str] = frozenset()  # the containers among them
    objects: frozenset[str] = frozenset()  # the objects named so far
    mentioned: frozenset[str] = frozenset()  # others the sentence names: whom "him" / "her" means
    holding: tuple[str, str] | None = None  # (who, what) was taken ("took the pear out") and not yet put anywhere
    room: str | None = None  # the room named last: what "entered it" enters
    background: bool = False  # "after Ann had left, ...": a state that may already hold, then no event
    predicate: tuple[str, ...] = ()  # what the last clause said of its subject: "Mila does too" says it again
    group: tuple[str, ...] = ()  # the last people named together: whom "they", "all of them" mean
    left: dict[str, str] = field(default_factory=dict)  # the room each agent left last: where "came back" goes
    moved: tuple[str, str] | None = None  # (mover, object) of the last event, a move: "Then to the bag." goes on
    # a script's scene heading in force ("INT. HALL - DAY"): whether there is one, and the room where a bare
    # "X enters." / "they file in" goes (None: the heading names several rooms or the story's events disagree)
    scripted: bool = False
    scene: str | None = None


def _one_name(words: list[str]) -> str:
    """["red", "box"] -> "red_box": a name of several words as one token, as Hi-ToM writes them."""
    return "_".join(words)


#: Words that end a statement of where or how long someone stayed ("... in the hall", "... a minute").
_STAY_ENDS = frozenset({w for room in ROOMS for w in room.split("_")[-1:]} | {"minute", "minutes", "there", "room"})
#: Words that carry no event: interjections, asides, "without moving anything".
_FILLER = re.compile(
    r"^(?:(?:okay|ok|so|well|alright|oh no|oh|uh oh|anyway|right|now then)\b[,!]?\s*)+"
    r"|\b(?:lol|btw|haha|by the way|not that it matters|as well|as usual|for (?:his|her|their) part|of course|"
    r"in turn|from there|ugh|argh|apparently|just so you know|this time|at the whistle|as we (?:get|got) (?:under way|"
    r"underway|going|started)|as we (?:join|pick up|rejoin|go|come|return to) (?:the action|live|back|play)|"
    r"to start(?= *[!.]| *$)|to (?:get|kick) us (?:going|off|started|under way)|somewhere along the way|look at this|"
    r"(?:dear )?oh dear|(?:just )?as (?:quickly|fast|swiftly)|we(?: are|'re) told|the stats tell us|folks|"
    r"make no mistake|as you (?:like|please)|you can tell|of all things|by the look of (?:it|things)|"
    r"in (?:his|her|their) turn|in (?:like|the same|the like) (?:fashion|manner|wise)|without (?:further )?ceremony|"
    r"(?:upon|on) (?:his|her|their) own motion|in due course|not to be outdone|(?:upon|on) (?:a )?second thoughts?|"
    r"in an? (?:most |very |rather )?\w+ (?:humour|humor|mood)|"
    r"as it (?:happened|chanced|fell out|turned out)|be it (?:said|known|noted|observed)|it (?:may|must|should|"
    r"might) be "
    r"(?:said|observed|noted|owned|remarked|added|confessed|admitted)|for reasons best known to (?:himself|"
    r"herself|themselves)"
    r"|poor (?:soul|thing|dear|child|creature)|to (?:his|her|their) (?:vexation|annoyance|dismay|chagrin|sorrow|regret|"
    r"surprise|delight)|(?:upon|on) the (?:morning|afternoon|evening|day|night) in question|by (?:a|"
    r"an) (?:small |slight |"
    r"sad )?(?:misfortune|mischance|accident)|at length|not long (?:thereafter|after)|some while (?:afterwards|"
    r"after|later)"
    r"|(?:one|upon a certain|on a certain|one fine) (?:morning|afternoon|evening|day)|"
    r"right away|straight away|(?:almost |nearly )?at once|almost immediately|poor(?= [A-Z])|in the meantime|"
    r"once more|once again|by contrast|"
    r"(?:right |just |soon |shortly )?after (?:him|her|them)|at last)\b"
    r"|,?\s*\b(?:without|not) (?:making|moving|doing|touching|disturbing|changing|saying)\b{rest}"
    r"|,?\s*(?:making|moving|doing|touching) (?:\w+ly )?(?:no|nothing)\b{rest}"
    r"|(?:,\s*|\bwith )no (?:movement|movements|move|moves|moving|motion)\b{rest}"
    # said after where or how long someone stayed: "... in the hall a minute no movements", "... didn't move"
    r"|{after_stay}\s+(?:and )?(?:made |making )?no (?:movement|movements|moves)(?=\s*[.,;!]|\s*$)"
    r"|{after_stay},?\s*(?:and )?(?:didn't|did not|doesn't|does not) (?:move|budge|do|touch)(?: anything| a thing)?"
    r"(?: at all)?(?=\s*[.,;!]|\s*$|\s+(?:and|then|so)\b)"  # (not "didn't move a muscle", "... the apple")
    r"|,\s*(?:now )?the (?:last|only) one(?: left| remaining| there)?\s*,"
    r"|,\s*the last(?: of (?:them|them all|all))?\s*,"
    r"|,\s*(?:and )?nothing (?:happens|happened)\s*(?=,)"  # "sticks around a minute, nothing happens, then ..."
    r"|,\s*(?:thinking|wondering|hoping|feeling|musing|humming|sighing|smiling|yawning)\b{rest}"
    r"|,?\s*\b(?:alone now|now alone|on (?:his|her|their) own|by (?:himself|herself|themselves)|quite still|"
    r"still as an? \w+|motionless|unmoving|stock[- ]still|stationary|without so much as an? \w+|"
    r"in plain view of (?:them all|everyone)|for (?:his|her) ears only|at all)\b"
    r"|,\s*(?:alone|on (?:his|her) own) in the [\w ]+?,|,\s*changing (?:his|her|their) minds?,"
    r"|,\s*(?:wherever|whatever|whoever) [^,;.]*,"
    # "Emma, it chanced, had lost ..."
    r"|,\s*it (?:so )?(?:chanced|happened|seems|seemed|appears|appeared|would seem|transpired|turns out|turned out)\s*,"
    r"|,?\s*\bwithout (?:\w+ing )?so much as (?:an? |one )?\w+\b"
    r"|,?\s*\bwithout (?:any |the (?:least|smallest|slightest) )?(?:movement|movements|motion|a word|\w+ing)\b{rest}"
    r"|,\s*(?:not a (?:muscle|finger|toe) moving|not moving a (?:muscle|finger)|not a twitch|not budging(?: an inch)?|"
    r"(?:does not|doesn't|did not|didn't) budge(?: an inch)?|frozen in place|rooted to the spot)\b"
    r"|,?\s*\bwithout (?:a|one) (?:twitch|flicker)\b"
    r"|,?\s*\b(?:in|with) (?:perfect |complete |utter |absolute |like |the same |the like |a like |great )?"
    r"(?:stillness|repose|composure|quietude|tranquill?ity)\b|,?\s*\b(?:stirring not at all|not stirring)\b"
    r"|\b(?:got|gets|get|stood|stands|stand) up and\b"
    r"|,?\s*\b(?:side by side|hand in hand|one by one|one after (?:another|the other))\b"
    r"|\bfor a (?:walk|stroll|run|swim|drive|ride)\b"
    r"|,\s*with [A-Z]\w+(?: and [A-Z]\w+)? (?:remaining|staying|left|still)"
    r"(?: behind| there| inside| in the [\w ]+)?(?=[,.;!]|$)"
    r"|^(?:in the end|at the end|last of all|first of all|later on|after a while|before long|all of a sudden|"
    r"and so)\b,?"
    r"|^(?:the )?last (?:one|man|woman|player) (?:standing|left|remaining)\s*,"  # "Last one standing, Hannah ..."
    r"|\s*[—–,-]\s*(?:and )?(?:never|always) (?:could|can|did|does|has|had|will|would)\b(?:\s*[!.])?\s*$"
    r"|^(?:because |since |as )?it (?:was|is|'s|had been) (?:raining|pouring|snowing|drizzling|stormy|cold|freezing|"
    r"hot|late|dark|sunny|windy|foggy|(?:a|one) (?:rainy|snowy|cold|hot|sunny|windy|grey|gray|quiet|lazy|wet) "
    r"(?:day|morning|afternoon|evening|night))(?: outside)?,?\s*(?:so|and)?\b,?"  # the weather, nothing more
    r"|\b(?:stayed|stay|stays) (?:inside|indoors|in|home|at home) and\b"
    r"|,?\s*(?:and |so |so that |where |when )?(?:nobody|no one|no-one) else "
    r"(?:heard|could hear|was listening|knew)(?: (?:it|that|this))?\b".format(
        rest=r"(?:(?!\b(?:and|then|before|after|but|while|once|so)\b)[^,;.()])*",  # up to the next clause
        after_stay="(?:" + "|".join(f"(?<=\\b{w})" for w in sorted(_STAY_ENDS)) + ")",
    ),
    re.IGNORECASE,
)
#: "'s" that is "is" or "has", not an owner: before where, how or a participle ("Ann's in the den").
_IS = re.compile(
    r"\b([A-Za-z]+)'s (?=(?:in|inside|at|now|still|already|gone|out|off|back|just|not|there|here|a|an|the|"
    r"been|got|lost|moved|put|left|taken|also|really|then|currently|sitting|lying|sat|stood|over|up|into|fond)\b"
    r"|[a-z]+ing\b(?! (?:is|was|are|were)\b))"  # "Mila's knocking about", not "Mila's painting is in ..."
)


_NAMES_LIST = r"([A-Z][a-z]*(?:, [A-Z][a-z]*)*,? (?:and|&) [A-Z][a-z]*)"
_NAMED_GROUP = re.compile(
    rf"\b(?:(?:all|the|both|every one|everyone|everybody)\s*)?(?:\w+ ?)?(?:of them ?)?\({_NAMES_LIST}\)"  # (A, B and C)
    rf"|\b(?:all|both|the|everyone|"
    rf"everybody)(?: \w+){{0,2}}(?: of them)?, {_NAMES_LIST},",  # "All five, A, B and C, went"
    re.IGNORECASE,
)
#: "all five go into the den: A, B, C, D and E." -> "A, B, C, D and E go into the den."
_GROUP_NAMED_AFTER = re.compile(
    rf"\b(?:all|both|the|two|three|four|five|six|seven)(?: \w+)?(?: of them)? (?P<said>[^:,]*)[:,] "
    rf"(?P<names>{_NAMES_LIST[1:-1]})\W*$",
    re.IGNORECASE,
)


#: A report's "was observed to move" (did move) / "was seen leaving" (was leaving) / "was seen in".
_OBSERVED = re.compile(r"\b(?:was|were) (?:observed|seen|noted|witnessed|recorded)( to)? (\w+)", re.I)
#: A report's word for a person before the name ("the subject Anne").
_TITLE = re.compile(r"\b(?:the )?(?:subject|suspect|participant|individual|person|witness)s? (?=[A-Z])", re.I)


def _observed(m: re.Match) -> str:
    """ "was observed to move" -> "did move", "was seen leaving / in" -> "was leaving / in"; kept
    where the next word is no event ("was observed looking at a monkey": seeing, no event)."""
    word = m[2].lower()
    lemma = _forms().get(word)
    if word in ("in", "inside", "at") or lemma in _EVENT_VERBS | {"be", "stay"} or lemma in VERBS["claim"]:
        return f"{'did' if m[1] else 'was'} {m[2]}"
    return m[0]


#: Quoted speech, before or after who said it: "'The pear is in the box,' Ann whispered to Bob." /
#: "Ann announced, \"The pear's in the box!\"" (a quote opens at the start or after ", " / ": ").
_QUOTE_FIRST = re.compile(r"^\s*([\"'])(?P<said>.+?)[,.!?]?\1[,.!]?\s+(?P<who>.+?)\s*[.!]?\s*$")
_QUOTE_AFTER = re.compile(r"^(?P<who>.+?)[,:]?\s+([\"'])(?P<said>.+?)[,.!?]?\2\s*[.!]?\s*$")


def _unquote(text: str) -> str:
    """Quoted speech as a "that" clause: "'The pear is in the box,' said Ann to Bob." is "Ann said to
    Bob that the pear is in the box" (the claim reader then asks who heard it)."""
    text = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'")
    m = _QUOTE_FIRST.match(text) or _QUOTE_AFTER.match(text)
    if m is None or not re.search(r"\b(?:is|are|was|were|'s)\b", m.group("said")):
        return text
    said = re.sub(r"^(?:(?:psst+|pst|shh+|hey|oi|listen|guess what|ooh|oh)\s*[!,.?]+\s*)+", "", m.group("said"),
                  flags=re.I)  # '"Psst! The pear is in the box," ...': what is said starts after the hush
    who = m.group("who")
    who = re.sub(
        rf"^(\w+) ({NAME})\b",
        lambda v: f"{v.group(2)} {v.group(1)}" if _forms().get(v.group(1).lower()) else v.group(0),
        who,
    )
    return f"{who} that {said}"


_GO = (
    r"(?i:go|goes|went|come|comes|came|enter|enters|entered|run|runs|ran|walk|walks|walked|skip|skips|skipped|march|"
    r"marches|marched|pop|pops|popped|hop|hops|hopped|tiptoe|tiptoes|tiptoed|scamper|scampers|scampered|dash|dashes|"
    r"dashed|trot|trots|trotted|creep|creeps|crept|step|steps|stepped|rush|rushes|rushed|wander|wanders|wandered)"
)
_WHERE = (
    r"(?i:(?:(?:back|down|up) )*(?:out of|into|in|inside) the [a-z][\w ]*?"
    r"|(?:(?:back|down|up) )*(?:out|in|off|away|inside)|back)"
)
_NAMES = r"[A-Z][a-z]+(?:(?:,| and|, and) [A-Z][a-z]+)*"
_WHO = (  # "little Noah", "all of them"
    rf"(?:(?:[a-z]+ )?{_NAMES}|he|she|they(?: all)?|all of them|everyone|everybody|the [a-z]+(?: [a-z]+)?(?=[.!,]|$))"
)
#: Inverted word order, as picture books and second-language writers put it: "Out goes Owen.", "In go
#: Lucas and Noah.", "Into the den they go.", "Now go A, B and C into the hall.", "In the den enter A and B."
_PRE = r"^(?P<pre>(?i:(?:(?:and|then|now|later|next|so),? )*))"
_INVERTED = tuple(
    (re.compile(_PRE + pattern + r"\b"), order)
    for pattern, order in (
        (rf"(?P<where>{_WHERE}) (?P<verb>{_GO}) (?P<who>{_WHO})", "{pre}{who} {verb} {where}"),  # "Out goes Owen."
        (rf"(?P<where>{_WHERE}) (?P<who>{_WHO}) (?P<verb>{_GO})", "{pre}{who} {verb} {where}"),  # "In they go."
        (rf"(?P<verb>{_GO}) (?P<who>{_WHO})", "{pre}{who} {verb}"),  # "Now go A and B into the hall."
        (rf"(?P<where>{_WHERE}) (?P<verb>is|are|was|were) (?P<who>{_NAMES})", "{pre}{who} {verb} {where}"),
        # "Back in the cellar is Ava." (names only: "In the box is the pear" is not inverted)
    )
)


def _uninvert(text: str) -> str:
    """Subject first: "Out goes Owen." is "Owen goes out."."""
    for pattern, order in _INVERTED:
        if (m := pattern.match(text)) and (
            re.search(r"\b[A-Z]", m["who"])
            or m["who"].lower().startswith(("he", "she", "they", "the ", "all of them", "everyone", "everybody"))
        ):
            return order.format(**{k: v or "" for k, v in m.groupdict().items()}) + text[m.end() :]
    return text


#: Why someone went, after the going: "slipped out to get a coffee" is slipping out.
_PURPOSE = re.compile(
    r"\b((?:out|off|away|outside)(?: of the [a-z][\w ]*?)?),? (?:in order )?to ([a-z]+)\b[^,;.!]*", re.I
)


@cache
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's lemmas of an English word by part of speech ({} for a word it does not know)."""
    from lemminflect import getAllLemmas  # noqa: PLC0415 — loaded on the first non-template sentence

    return getAllLemmas(word)


@cache
def _base_verb(word: str) -> bool:
    """Whether an English word is a verb's base form ("play", "sleep"): after "to", an infinitive."""
    return word in _lemmas(word).get("VERB", ())


def _only_verb(word: str) -> bool:
    """Whether an English word is a bare verb and nothing else, an infinitive after "to" ("get",
    "fetch"; not "work" or "school", nor "waiting" of "waiting room")."""
    lemmas = _lemmas(word)
    return set(lemmas) == {"VERB"} and word in lemmas["VERB"]


#: "did nothing" (or a learner's "not do anything"): with a verb of staying in the sentence it adds
#: nothing, alone it is staying. "did not do anything" is a negated clause: no event.
_DID_NOTHING = re.compile(
    r"(?:,\s*|\s+and\s+)?\b(?:(?:did|does|do|said|says|say) nothing|(?:kept|keeps|keep) (?:quiet|silent)"
    r"|(?<!did )(?<!does )(?<!do )not do anything)(?: at all)?\b"
    r"(?:\s*(?:,|and|but)(?=\s))?",
    re.IGNORECASE,
)


def _waited(m: re.Match) -> str:
    """ "did nothing" alone as staying, its joiners kept ("does nothing for a minute and leaves": the
    "and" was eaten with it, and "waited leaves the den" read nothing)."""
    lead = re.match(r"\s*(,|and\b)", m[0])
    trail = re.search(r"(,|\band|\bbut)\s*$", m[0])
    return f"{' ' + lead[1] if lead else ''} waited {trail[1] if trail else ''} "


def _stays(text: str) -> bool:
    return any(_forms().get(w.lower()) in VERBS["stay"] for w in re.findall(r"[A-Za-z]+", text))


#: Words of the rooms stories name, and words that say where: an opening phrase with one says where.
ROOM_WORDS = frozenset(
    {w for room in ROOMS for w in room.split("_")} | set("room inside outside there here back".split())
)
#: Words that make a sentence's opening phrase say when ("A little while later,", "One sunny morning,").
_WHEN = frozenset(
    "later time while moment moments point morning afternoon evening night day days week soon afterwards".split()
)


def _how_first(text: str) -> str:
    """The text without an opening phrase that says only how someone felt ("Satisfied at last, she
    slipped out", "Tired and bored, Ann left"): adjectives, participles and adverbs before a comma and
    a person (a name or he / she / they)."""
    m = re.match(r"([A-Za-z ]{2,40}),\s+(?=(?:he|she|they|[A-Z]\w*)\b)", text)
    if m is None:
        return text
    words = [w.lower() for w in m.group(1).split()]
    describing = [
        w in ADVERBS | {"and", "at", "last", "but", "so", "very", "quite"}
        or set(_lemmas(w)) & {"ADJ"}
        and "NOUN" not in _lemmas(w)
        or w.endswith("ed")
        and "VERB" in _lemmas(w)
        for w in words
    ]
    if not all(describing) or any(w in ROOM_WORDS or w in _forms() and not w.endswith("ed") for w in words):
        return text
    return text[m.end() :]


def _when_first(text: str) -> str:
    """The text without an opening phrase that says only when: it has a word of :data:`_WHEN`, no
    name, no verb the reader knows and no room ("Once upon a time,", "A little while later,", "That
    evening,"; not "When Ann left," nor "In the den at night,")."""
    m = re.match(r"([A-Za-z' ]{2,40}),\s+(?=\S)", text)
    if m is None:
        return text
    words = m.group(1).split()
    low = [w.lower() for w in words]
    if (
        not _WHEN & set(low)
        or any(w[:1].isupper() and k > 0 for k, w in enumerate(words))
        or any(w in _forms() or w in ROOM_WORDS for w in low)
    ):
        return text
    return text[m.end() :]


_SOUND_OF = re.compile(r"^[^,]{1,30},\s*(?:went|goes|said|says|cried|barked|purred|squeaked) the [a-z]+\s*[.!]*$", re.I)
_EXCLAIMED = re.compile(r",\s*([a-z]+(?:[ -][a-z]+){0,2})\s*!+\s*$")


def _without_sounds(text: str) -> str:
    """A story read aloud without its sounds: "Woof woof, went the dog." is nothing, and "..., plop!"
    ends where the sound starts (words the reader knows, such as "..., quickly!", stay)."""
    if _SOUND_OF.match(text):
        return ""
    m = _EXCLAIMED.search(text)
    words = m.group(1).split() if m else []
    known = FUNCTION_WORDS | ADVERBS | ROOM_WORDS | _PARTICLES  # and going: "..., off!" is no sound
    going = set(VERBS["motion"] + VERBS["leave"] + VERBS["enter"])
    if words and not any(w in known or _forms().get(w) in going for w in re.split(r"[ -]", m.group(1))):
        return text[: m.start()]
    return text


#: "Mila, in a low voice meant for Emma alone, confided that ...": told Emma privately.
_FOR_EARS = re.compile(
    r",\s*(?:in an? (?:low|soft|hushed|quiet|lowered|confidential) (?:voice|tone|whisper) )?(?:meant |intended )?"
    r"for (?P<who>[A-Z][a-z]+)(?:'s ears)? (?:alone|only),\s*(?P<verb>[a-z]+)\b(?! to\b)"
)


def _for_ears(m: re.Match) -> str:
    """ "..., for X's ears alone, confided" as "confided to X privately" (a verb of telling only)."""
    if _forms().get(m["verb"]) not in VERBS["claim"]:
        return m[0]
    return f" {m['verb']} to {m['who']} privately"


#: "Noah tarried his minute and withdrew; Hannah tarried hers": her minute.
_STAYED_HERS = re.compile(r"\b([a-z]+) (hers|his|theirs)(?=\s*(?:[,.;!]|$)|\s+(?:and|then|also|too|likewise)\b)")


def _stayed_hers(m: re.Match, text: str) -> str:
    """A verb of staying with "hers / his / theirs" as staying a minute where the sentence said a
    minute before (its own minute); otherwise as it is."""
    if _forms().get(m[1]) not in VERBS["stay"] or not re.search(r"\bminutes?\b", text[: m.start()]):
        return m[0]
    return f"{m[1]} a minute"


#: "It was into the hall that A and B made their way": the place after the verb ("A and B made their way into
#: the hall"), the verb group ending at the first comma, semicolon or stop that is not in the names.
_CLEFT = re.compile(
    rf"^\s*It was (?P<where>(?:into|to|in|inside|out of|from) the [a-z]+(?: [a-z]+)?) that "
    rf"(?P<who>{_NAMES_PLAIN}|he|she|they) (?P<verb>[^,;.!]+?)(?=\s*(?:[,;.!]|$))"
)
#: "The bathroom received A, B and C": they entered it.
_RECEIVED = re.compile(rf"^\s*The (?P<room>[a-z]+(?: [a-z]+)?) (?:received|admitted)[\s,]*(?P<who>{_NAMES_PLAIN})\b")
#: "..., the grapefruit then reposing in the red pantry": where it lay (a clause of its own).
_LYING_THEN = re.compile(
    r",\s*(?P<thing>(?:the|a|an) [a-z]+(?: [a-z]+)?) (?:then |now |still |meanwhile )?"
    r"(?:lying|reposing|resting|sitting) (?P<prep>in|within|inside)\b"
)


#: A commentator's "A and B take the field — well, the bathroom!": they enter the room said after the correction.
_TAKE_THE_FIELD = re.compile(
    r"\b(takes?|took) the (?:field|pitch|court|stage|floor)\s*[—–,-]?\s*(?:well|or rather|I mean|that is),?\s+"
    r"(?:into |onto )?the ([a-z]+(?: [a-z]+)?)(?=\s*[!.]*\s*$)"
)


def _older_order(text: str) -> str:
    """An older narrator's word order in the templates' ("It was into the hall that ...", "The hall
    received ...", "..., the pear lying in the box", "...; and in that hall the pear lay ...")."""
    text = _CLEFT.sub(lambda m: f"{m['who']} {m['verb']} {m['where']}", text)
    text = _RECEIVED.sub(lambda m: f"{m['who']} entered the {m['room']}", text)
    text = _LYING_THEN.sub(lambda m: f"; {m['thing']} lay {m['prep']}", text)
    entered = {"take": "enter", "takes": "enters", "took": "entered"}
    text = _TAKE_THE_FIELD.sub(lambda m: f"{entered[m[1]]} the {m[2]}", text)
    return re.sub(r"([;,]\s*(?:and\s+)?)in that [a-z]+(?: [a-z]+)?,?\s+(?=(?:the|a|an) [a-z])", r"\1", text)


def tokenize(text: str) -> list[str]:
    text = _unquote(text.replace("’", "'").replace("‘", "'"))
    text = re.sub(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\)|(?:step|item|entry|no\.?|#) ?\d+[.:)]?)\s+", "", text, flags=re.I)
    # a list item's marker: "-", "3.", "(3)", "Step 3:"
    text = _IS.sub(lambda m: f"{m.group(1)} {'has' if _participle_after(m) else 'is'} ", text)
    text = re.sub(r"^\s*\((.*)\)\s*[.!]?\s*$", r"\1", text)  # a whole sentence in brackets
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = _FOR_EARS.sub(_for_ears, text)
    text = re.sub(r"\ba like (minute|while)\b", r"a \1", text)  # "lingered a like minute": the same again
    text = _STAYED_HERS.sub(lambda m: _stayed_hers(m, text), text)
    text = _FILLER.sub(" ", _TIME.sub(" ", text))
    text = _DID_NOTHING.sub(lambda m: " " if _stays(text) else _waited(m), text)
    text = _older_order(text)
    text = re.sub(r"^\s*(?:and|then|but|so|whereupon),?\s+", "", text, flags=re.I)  # a sentence cut after "and"
    text = _uninvert(
        _how_first(_when_first(_without_sounds(text.strip(" ,;:"))))
    )  # ", out skipped Owen" once "After that" is gone
    text = re.sub(
        r"\b(?:make|makes|made|making) the exit (?:of|from)\b", "exits", text, flags=re.I
    )  # "makes the exit of"
    text = re.sub(r"\bwithout to \w+", " ", text, flags=re.I)  # "without to move"
    text = _PURPOSE.sub(lambda m: m.group(1) if _only_verb(m.group(2).lower()) else m.group(0), text)
    text = re.sub(r"\b(off|out|away) (he|she|they|[A-Z][a-z]+) (goes|go|went)\b", r"\2 \3 \1", text)  # "off he goes"
    text = re.sub(
        r"\b(made|makes|make|making) (?:his|her|their|its) way\b", r"\1", text, flags=re.I
    )  # "made her way to"
    text = re.sub(r"\b(went|goes|go) on (?:his|her|their) way\b", r"\1 off", text, flags=re.I)
    text = re.sub(  # "was the last to leave (the den)": left it
        r"\b(?:was|is|were|are) the (?:last|first|next)(?: one)? to (?:leave|go|exit|depart)\b",
        "left",
        text,
        flags=re.I,
    )
    text = _OBSERVED.sub(_observed, text)  # "was observed to move": moved
    text = _TITLE.sub("", text)  # "the subject Anne": Anne
    text = _NAMED_GROUP.sub(lambda m: m.group(1) or m.group(2), text)  # "all five of them (A, B and C)"
    text = _GROUP_NAMED_AFTER.sub(lambda m: f"{m['names']} {m['said']}", text)
    tokens = re.findall(r"[^\W\d_][\w-]*(?:'s|')?|[,;:()]|\b[2-9]\b", text)  # "all 3 go in", "Zoë"
    return [t for t in tokens if not _manner_adverb(t.lower())]


@cache
def _adverb_not_noun(word: str) -> bool:
    """An English adverb that is no noun ("only", "alone", "instead", "though"): it cannot end a
    name, so "the hall only" is the hall. A word that can be a verb too is taken for a noun the
    dictionary lacks ("tin": lemminflect knows it as an adverb and a verb only)."""
    kinds = set(_lemmas(word))
    return "ADV" in kinds and kinds <= {"ADV", "ADJ"}


@cache
def _comparative(word: str) -> bool:
    """A comparative adverb ("closer", "nearer", "further"): how far, never a thing's name."""
    adverb = _lemmas(word).get("ADV", ())
    return bool(adverb) and word not in adverb


def _trailing_adverb(word: str) -> bool:
    """An adverb after a clause's last complement that says no direction ("only", "instead")."""
    return _adverb_not_noun(word) and word not in FUNCTION_WORDS | _PARTICLES | set(_MOTION_WORDS) | _NOT_TRAILING


#: Adverbs that say where or whether, never dropped at a clause's end.
_NOT_TRAILING = frozenset("here there home not never upstairs downstairs outdoors indoors elsewhere".split())


@cache
def _manner_adverb(word: str) -> bool:
    """An "-ly" word that is only an adverb ("patiently", "happily"): how, not what; dropped. Those
    that say who heard a claim ("privately", "publicly", "only") or that it did not happen ("nearly")
    are kept."""
    if not word.endswith("ly") or word in PUBLIC | PRIVATE | _UNREAL | _EARLIER:
        return False
    kinds = set(_lemmas(word))
    return "ADV" in kinds and kinds <= {"ADV", "ADJ"}


@cache
def _vocabulary() -> frozenset[str]:
    """The words the reader knows: what a misspelling is read as."""
    words = set(_forms()) | ADVERBS | FUNCTION_WORDS | PUBLIC | PRIVATE | _STATE_WORDS | _PARTICLES
    return frozenset(
        words | set("together minute minutes movement movements nothing anything everyone everybody".split())
    )


def respell(text: str, context: Context) -> str:
    """The text with misspellings of the reader's words and of the story's places and objects read
    as them ("togther", "privatly", "bukcet"): :func:`~mindzero.core.spelling.typo_fixes`."""
    named = {w.lower() for p in context.places | context.objects for w in p.split("_")}
    for offset, typed, meant in reversed(
        typo_fixes(text, _vocabulary() | named, lambda w: bool(_lemmas(w)), lambda w: _forms().get(w, w))
    ):
        text = text[:offset] + meant + text[offset + len(typed) :]
    for name in context.agents:  # "then maya leaves": a name typed in lower case that is no English word
        if not _lemmas(name.lower()):
            text = re.sub(rf"\b{name.lower()}\b", name, text)
    return text


def _participle_after(m: re.Match) -> bool:
    """Whether the word after "X's" is a past participle ("Ava's lost her watch": has)."""
    rest = m.string[m.end() :].split(" ", 1)[0].lower()
    return rest in ("been", "got", "lost", "moved", "put", "left", "taken", "gone")


#: Hesitations of speech ("puts it in the red bucket um and then ..."): no word of the story.
HESITATION = re.compile(r"(?<![\w'])(?:um+|uh+|erm+|uhm|hmm+)(?![\w'])[,.]?\s*", re.I)


#: Contractions typed without their apostrophe ("didnt"): words, never names.


@cache
def _verb_forms() -> str:
    """Every form of every verb the reader knows, as a regex alternation (longest first)."""
    return "|".join(sorted(map(re.escape, _forms()), key=len, reverse=True))


#: A game's or a script's note of who is where: "[Owen: in the workshop]", "[In the den: Ben, Owen]".
_WHO_IS_WHERE = re.compile(r"\[\s*(?P<who>[A-Z][\w ,&]*?)\s*:\s*in the (?P<room>[\w ]+?)\s*\]")
_WHERE_WHO = re.compile(r"\[\s*in the (?P<room>[\w ]+?)\s*:\s*(?P<who>[A-Z][\w ,&]*?)\s*\]", re.I)
#: A turn marker: "[Turn 2]", "[Round 1]".
_TURN = re.compile(r"\[\s*(?:turn|round|scene|chapter|part|act)\s*\w+\s*\]\s*", re.I)


def bracket_notes(text: str) -> str:
    """Notes in square brackets as sentences: "[Owen: in the workshop]" says where Owen is ("Owen
    is in the workshop."), "[In the den: Ben, Owen]" who is in the den; a turn marker ("[Turn 2]")
    says nothing. (Such a note was dropped as an aside, and with it where someone was.)"""
    text = _TURN.sub("", text)
    text = _WHERE_WHO.sub(lambda m: f" {_listed(m['who'])} in the {m['room']}. ", text)
    return _WHO_IS_WHERE.sub(lambda m: f" {_listed(m['who'])} in the {m['room']}. ", text)


#: A script's scene heading: "INT. HALL - DAY", "EXT. FRONT YARD - CONTINUOUS", "INT. DEN / TV ROOM - INTERCUT -
#: NIGHT", or a bare slug line of a room ("FRONT YARD", "WAITING ROOM - LATER"): capitals only.
_HEADING = re.compile(
    r"^(?:(?P<int>(?:INT|EXT|I/E|INT\.?/EXT|EXT\.?/INT)\.?)\s+)?(?P<places>[A-Z][A-Z']*(?: [A-Z][A-Z']*)*"
    r"(?:\s*/\s*[A-Z][A-Z']*(?: [A-Z][A-Z']*)*)*)(?:\s+[-–—]+\s+[A-Z][A-Z' ]*)*\s*\.?$"
)
#: A script's transitions and directions of no event: "CUT TO:", "FADE IN:", "BACK TO SCENE".
_TRANSITION = re.compile(
    r"^(?:(?:SMASH |MATCH |JUMP |HARD )?CUT(?: BACK)? TO:?|DISSOLVE TO:?|FADE (?:IN|OUT|TO BLACK)[:.]?|"
    r"BACK TO SCENE\.?|"
    r"(?:END )?INTERCUT\.?|CONTINUOUS\.?|THE END\.?)$"
)


def scene_heading(line: str) -> tuple[str, ...] | None:
    """The rooms a script's scene heading names ("INT. HALL - DAY": ``("hall",)``; "INT. DEN / TV ROOM -
    INTERCUT": ``("den", "TV_room")``), ``()`` for a transition ("CUT TO:"), None for any other line. A
    slug line without "INT." / "EXT." is a heading only when each of its places ends in a room's word
    ("FRONT YARD", "WAITING ROOM"; "BENJAMIN", a speaker, is none)."""
    line = line.strip()
    if _TRANSITION.match(line):
        return ()
    m = _HEADING.match(line)
    if m is None:
        return None
    known = {room.lower(): room for room in ROOMS}
    rooms = []
    for place in re.split(r"\s*/\s*", m["places"]):
        words = [w for w in place.lower().split() if w != "the"]
        if not words or not m["int"] and words[-1] not in ROOM_WORDS - {"inside", "outside", "there", "here", "back"}:
            return None
        rooms.append("" if "'" in place else known.get("_".join(words), "_".join(words)))  # "OWEN'S DEN": whose?
    return tuple(rooms)


#: A speaker's cue in a script: a name alone on its line ("BENJAMIN", "Benjamin (CONT'D)"), with its
#: parenthetical on the same line or the next ("(whispering to Owen)").
_CUE = re.compile(r"^(?P<who>[A-Z][A-Za-z'-]+)(?:\s*\((?:CONT'D|CONT’D|CONTINUING)\))?(?:\s*\((?P<how>[^()]+)\))?$")
_PARENTHETICAL = re.compile(r"^\((?P<how>[^()]+)\)$")
#: How a line is said: to one listener in a low voice (a private telling) or to everyone (a public claim).
_WHISPERED = re.compile(
    r"^(?:(?:whispering|whispers|murmuring|murmurs|muttering|mutters|quietly|softly|privately|aside|sotto voce|"
    r"low|leaning in|leaning close|under (?:his|her|their) breath)[,]?\s+)+(?:to|in|into) (?P<to>[A-Z][a-z]+)"
    r"(?:'s ear)?$", re.I)  # fmt: skip
_ANNOUNCED = re.compile(
    r"^(?:(?:announcing|announces|calling out|loudly|aloud)[,]?\s*)*(?:to (?:everyone|everybody|all|the room|"
    r"the group|the others|the whole party|them all)(?: present)?)?$|^(?:announcing|calling out|loudly|aloud)$",
    re.I)  # fmt: skip
#: Words before a line's news that say nothing of the story: "Just so you all know, ...", "Listen, ...".
_LEAD_IN = re.compile(
    r"^(?:(?:just so you (?:all |guys )?know|for the record|listen(?: up)?|look|okay|ok|hey|psst|heads up|fyi|so|"
    r"guys|everyone|everybody|folks|you guys|all right|alright)[,!.:]?\s+)+", re.I)  # fmt: skip


#: A speech :func:`script_dialogue` could not read, kept whole: never read as anything.
_SPEECH_NOT_READ = re.compile(r"^[A-Z][A-Za-z'-]+ \([^()]+\) says: ")


def script_dialogue(text: str) -> str:
    """A script's speeches as sentences: a speaker's cue, a parenthetical of how the line is said and
    the line ("BENJAMIN / (whispering to Owen) / The radish is in the red bucket.") is "Benjamin
    whispers to Owen that the radish is in the red bucket." ("(to everyone)": "announces to everyone
    that"). A line of two fragments, a thing and a place the story names elsewhere with "the"
    ("Radish. Red bottle.", "The onion? Blue bathtub."), says the one is in the other. A cue with any
    other parenthetical, none, or a line that is no single statement is kept as one sentence that is
    not read ("Benjamin (to Owen): ..."), never as a statement of fact by the narrator."""
    if not re.search(r"^\s*\(", text, re.M):
        return text
    lines = text.split("\n")
    out = list(lines)
    k = 0
    while k < len(lines):
        cue = _CUE.match(lines[k].strip())
        if cue is None or scene_heading(lines[k]) is not None or cue["who"].lower() in FUNCTION_WORDS:
            k += 1
            continue
        how, j = cue["how"], k + 1
        if how is None and j < len(lines) and (p := _PARENTHETICAL.match(lines[j].strip())):
            how, j = p["how"], j + 1
        said = []
        while j < len(lines) and lines[j].strip() and not _PARENTHETICAL.match(lines[j].strip()):
            said.append(lines[j].strip())
            j += 1
        if how is None or not said:
            k += 1
            continue
        who = cue["who"].title() if cue["who"].isupper() else cue["who"]
        line = _said_as_claim(who, how.strip(), " ".join(said), text)
        out[k] = line or f"{who} ({how}) says: " + re.sub(r"[.?!]+(?=\s|$)", ",", " ".join(said))  # never read
        for n in range(k + 1, j):
            out[n] = ""
        k = j
    return "\n".join(out)


def _said_as_claim(who: str, how: str, said: str, text: str) -> str | None:
    """The sentence a speech means (:func:`script_dialogue`), or None."""
    if m := _WHISPERED.match(how):
        verb, to = f"whispers to {m['to']}", m["to"]
    elif _ANNOUNCED.match(how) and how:
        verb, to = "announces to everyone", ""
    else:
        return None
    said = _LEAD_IN.sub("", said.strip())
    if to:
        said = re.sub(rf"^{to},\s+", "", said)  # "Owen, it's in the box."
    two = re.fullmatch(r"(?:the )?([a-z]+(?: [a-z]+)?)[.?!]\s+(?:(?:it's |it is )?in )?(?:the )?"
                       r"([a-z]+(?: [a-z]+){0,2})[.!]*", said, re.I)  # fmt: skip
    if two:  # "Radish. Red bottle.": only a thing and a place the story names
        thing, place = two[1].lower(), two[2].lower()
        coloured = len(place.split()) > 1 and place.split()[0] in _COLOURS  # "Blue bathtub." (a colour: a container)
        if not re.search(rf"\b(?:the|a|an) {thing}\b", text, re.I) or not (
            coloured or re.search(rf"\bthe {place}\b", text, re.I)
        ):
            return None
        said = f"the {thing} is in the {place}"
    said = said.rstrip(".! ")
    if re.search(r"[.?!;:]", said) or not said:
        return None  # more than one statement
    return f"{who} {verb} that {said[0].lower() + said[1:]}."


def _listed(who: str) -> str:
    """"Ben, Owen" → "Ben and Owen are", "Owen" → "Owen is"."""
    names = [n.strip() for n in re.split(r",|&|\band\b", who) if n.strip()]
    return f"{names[0]} is" if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]} are"


#: Verbs of coming and going: their forms are never names ("Exits.", "Enters the den.").
_GOING = frozenset(VERBS["enter"] + VERBS["leave"])


#: A post's number in a thread: "1/", "(2/6)", "🧵 3/7" (at a line's start or a post's end).
_POST_NUMBER = re.compile(r"(?<!\S)\(?\d{1,2}/\d{0,2}\)?(?=\s|$)")
#: An emoji or other pictograph (with its joiners and variation selectors).
_EMOJI = re.compile(
    "[\U0001F000-\U0001FAFF\u2600-\u27BF\u2300-\u23FF\u2B00-\u2BFF\uFE0F\u200D\U0001F3FB-\U0001F3FF]+"
)
#: A thread's words about itself: "ok so this one's got two parts", "that's the thread", "end of thread",
#: "moving on", "fin": no event.
_THREAD_TALK = re.compile(
    r"^\s*(?:(?:ok|okay|so|and|alright)\b[,]?\s*)*(?:this one'?s got \w+ parts?|(?:that'?s|thats) (?:the|this|my) "
    r"thread|(?:the )?end of (?:the )?thread|moving on|fin|thread)\s*[.!]*\s*$",
    re.I,
)


def thread_marks(text: str) -> str:
    """A social-media thread as sentences: post numbers ("1/", "(2/6)", "🧵 3/7") and hashtags
    ("#ToM") are no words of the story; an emoji ends a sentence where a new one starts after it
    ("... in the red cupboard 🍅 the tomato is ...", "spots a mouse 🐭 then Owen dips out"), and is
    dropped elsewhere ("the cucumber 🥒 is in the box"); a thread's words about itself ("end of
    thread", "ok moving on") say nothing."""
    if not _EMOJI.search(text) and not _POST_NUMBER.search(text) and "#" not in text:
        return text
    text = re.sub(r"(?<![\w&])#[A-Za-z]\w*", " ", text)
    text = _POST_NUMBER.sub(" ", text)

    def emoji(m: re.Match) -> str:
        before, after = m.string[: m.start()].rstrip(), m.string[m.end() :].lstrip()
        word = re.match(r"[A-Za-z']+", after)
        ends = bool(before) and before[-1].isalnum()
        starts = word is not None and (
            word[0][0].isupper() or word[0].lower() in ("the", "a", "an", "then", "and", "he", "she", "they", "it")
        )
        return ". " if ends and starts else " "

    text = _EMOJI.sub(emoji, text)
    return "\n".join(re.sub(r"[ \t]{2,}", " ", line).strip() for line in text.split("\n"))


def title_shouted_names(text: str) -> str:
    """A script's names in capitals ("OWEN crosses to the bucket. ... Owen exits.") written as the
    text writes them elsewhere, so that OWEN and Owen are one person."""
    titled = set(re.findall(r"\b[A-Z][a-z]+\b", text))
    return re.sub(r"\b[A-Z]{2,}\b", lambda m: m[0].title() if m[0].title() in titled else m[0], text)


def capitalise_names(text: str) -> str:
    """A story typed or dictated without any capital letter, with its people's names capitalised.
    A name is a word that never follows an article, is no function word, room or verb the reader
    knows, and either is no English word (lemminflect knows no lemma of it: "owen", "mila") and
    stands before a verb or in a list of such words before one ("owen charlotte and noah went"), or
    stands before a verb twice or more ("jack went ... jack moved"). Text with a capital letter is
    returned as it is."""
    if any(c.isupper() for c in text):
        return text
    words = re.findall(r"[a-z][a-z'-]*", HESITATION.sub("", text))
    forms, known = _forms(), FUNCTION_WORDS | ROOM_WORDS | ADVERBS | _PARTICLES | BARE_CONTRACTIONS | NEGATION
    articles = ("the", "a", "an", "his", "her", "their", "some")
    after_article = {b for a, b in zip(words, words[1:]) if a in articles}
    after_article |= {c for a, b, c in zip(words, words[1:], words[2:]) if a in articles and "ADJ" in _lemmas(b)}
    # ("the blue drawer"; not "moved the peach jackson left")
    plain = {w for w in words if w.isalpha() and w not in known and w not in forms and w not in after_article}
    foreign = {w for w in plain if not _lemmas(w)}
    acts = Counter(a for a, b in zip(words, words[1:]) if a in plain and forms.get(b, "be") != "be")
    names = {w for w, n in acts.items() if w in foreign or n >= 2}
    run: list[str] = []  # a list of foreign words ("owen charlotte benjamin and noah") ending before a verb
    for word, nxt in zip(words, [*words[1:], ""]):
        if word in foreign:
            run.append(word)
        elif word not in ("and", "all", "both"):
            run = []
        if run and nxt in forms and forms[nxt] != "be":
            names |= set(run)
    if not names:
        return text
    said = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    text = re.sub(rf"\b({said})\b", lambda m: m[1].capitalize(), text)
    text = re.sub(rf"\b({said.title()}) (?=(?:{said.title()})\b)", r"\1, ", text)  # "owen ben and noah": a list
    text = with_apostrophes(text)
    # a run-on cut where the speaker goes on to the next event: "..., and then ...", "... so ...",
    # "... and Ben left ..." (a name that acts)
    who = rf"(?:{said.title()})(?:,? (?:and )?(?:{said.title()}))*(?: (?:all|both))?"  # "Ava, Ella and Ben (all)"
    cut = re.compile(rf"\s+(?:(?:okay|ok|and) )?(?=(?:and then|then|so|okay so|ok so|okay and|ok and)\b|(?:and )?"
                     rf"{who}(?: (?:just|then|also))? (?:{_verb_forms()})\b)")  # fmt: skip
    listed = re.compile(rf"(?:{said.title()}),?$")  # "Ava, Ella and Charlotte went": no cut inside a list
    lines = []
    for line in text.split("\n"):
        if not re.match(r"^(?:(?:okay|ok|so|and|now|um|uh)\s+)*where\b", line, re.I):  # not a question
            line = cut.sub(lambda m: m[0] if listed.search(m.string[: m.start()]) else ". ", line)
            line = re.sub(r"\.\s*\.", ".", line)
            line = re.sub(r"(^|\. )((?:and )?(?:then|so|okay so|ok so|okay|ok))\. ", r"\1\2 ", line)  # "then. Ben"
        lines.append(line)
    return "\n".join(lines)


def is_name(token: str, agents: frozenset[str]) -> bool:
    """Whether a token names a person: one the story has named, or a capitalised word that is no
    function word and no form of a verb of coming or going ("Exits." is no one: it was read as a
    sentence naming someone and saying nothing)."""
    word = token.removesuffix("'s").removesuffix("'")
    return word in agents or (
        word[:1].isupper()
        and word.lower() not in FUNCTION_WORDS
        and word.replace("-", "").isalpha()
        and _forms().get(word.lower()) not in _GOING
    )


class Clause:
    """One clause's tokens with a cursor: the reader takes a subject, a verb and complements in turn."""

    def __init__(self, tokens: list[str], context: Context):
        self.t, self.i, self.context = tokens, 0, context

    def peek(self, k: int = 0) -> str:
        return self.t[self.i + k].lower() if self.i + k < len(self.t) else ""

    def ahead(self) -> str:
        """The next word that is not an adverb ("slipped straight out": "out"), not consumed."""
        j = self.i
        while j < len(self.t) and (self.t[j].lower() in ADVERBS or self.t[j] == ","):
            j += 1
        return self.t[j].lower() if j < len(self.t) else ""

    def done(self) -> bool:
        """Whether the clause is read to its end; trailing words of how or when ("the hall only",
        "..., instead", "as well") add nothing."""
        self.skip_adverbs()
        rest = [w.lower() for w in self.t[self.i :]]
        if rest == ["as", "well"] or all(w == "," or _trailing_adverb(w) for w in rest):
            self.i = len(self.t)
        return self.i >= len(self.t)

    def skip_to_subject(self) -> None:
        """Skip adverbs before a subject, but not "both" / "all", which may be it ("Both girls leave")."""
        while self.peek() in ADVERBS - {"both", "all"} or self.peek() == ",":
            self.i += 1

    def skip_adverbs(self) -> None:
        while self.peek() in ADVERBS or self.peek() in (",", "over", "up", "around", "about", "along"):
            self.i += 1

    def accept(self, *phrases: str) -> str | None:
        """Consume the first phrase (words) that follows, after adverbs; None if none does."""
        self.skip_adverbs()
        for phrase in phrases:
            j = self.i
            for word in phrase.split():
                while j > self.i and j < len(self.t) and self.t[j].lower() in ADVERBS and self.t[j].lower() != word:
                    j += 1  # "was very fond of"
                if j >= len(self.t) or self.t[j].lower() != word:
                    break
                j += 1
            else:
                self.i = j
                return phrase
        return None

    def names(self) -> list[str] | None:
        """ "Ann", "Ann and Bob", "Ann, Bob and Cy", "he" / "she" / "they" (the subject before)."""
        self.skip_to_subject()
        if self.peek() in ("he", "she", "they", "him", "her", "them"):
            pronoun = self.peek()
            subject = self.context.subject
            if pronoun in ("they", "them") and len(subject) < 2:
                subject = self.context.group  # "they": the last people named together
            if not subject or (pronoun in ("he", "she", "him", "her") and len(subject) != 1):
                return None
            self.i += 1
            if self.peek() == "and" and is_name(
                self.t[self.i + 1] if self.i + 1 < len(self.t) else "", self.context.agents
            ):
                self.i += 1
                return [*subject, *(self.names() or [])]  # "she and Emily"
            return list(subject)
        if group := self._group():
            return group
        if self.peek() == "only" and self.i + 1 < len(self.t) and is_name(self.t[self.i + 1], self.context.agents):
            self.i += 1  # "so only Charlotte remains"
        out: list[str] = []
        self.i = self._epithet(self.i)
        while self.i < len(self.t) and is_name(self.t[self.i], self.context.agents):
            out.append(self.t[self.i])
            self.i += 1
            after = self._epithet(self.i + 1 + (self.peek(1) == "and"))  # the name after ", " / " and " / ", and "
            if self.peek() in (",", "and", "&") and after < len(self.t) and is_name(self.t[after], self.context.agents):
                self.i = after
                continue
            break
        return out or None

    def _epithet(self, j: int) -> int:
        """Where the name starts that words at ``j`` describe ("her brother Tom", "little Noah", "clever
        Ella", "my friend Sam"): past up to three lower-case nouns or adjectives after an optional owner;
        ``j`` itself where no name follows them."""
        k = j + (j < len(self.t) and self.t[j] in ("her", "his", "their", "my", "our", "your"))
        while (
            k < len(self.t)
            and k - j < 4
            and re.fullmatch(r"[a-z]+", self.t[k] if k else self.t[k].lower())  # "Little Noah" opens a sentence
            and self.t[k].lower() not in FUNCTION_WORDS | ADVERBS | set(_forms())
            and {"NOUN", "ADJ"} & set(_lemmas(self.t[k].lower()))
        ):
            k += 1
        return k if k > j and k < len(self.t) and is_name(self.t[k], self.context.agents) else j

    def _all_but(self, start: int) -> list[str] | None:
        """ "everyone except Noah": everyone in the room Noah is in but Noah (None where the ones left
        out are in no room or in different ones)."""
        excepted = self.names() or []
        rooms = {self.context.rooms.get(a) for a in excepted}
        group = sorted(a for a, room in self.context.rooms.items() if room in rooms and a not in excepted)
        if not excepted or len(rooms) != 1 or None in rooms or not group:
            self.i = start
            return None
        return group

    def _unknown_motion(self) -> str | None:
        """A verb we do not know, in a frame only motion has: "troop / squeeze / climb (up) into the R"
        (not a known container) is going there, "climbs out (of the R)" is leaving; else None."""
        word, j = self.peek(), self.i + 1
        if not re.fullmatch(r"[a-z]+", word) or word in FUNCTION_WORDS | ADVERBS | _NOT_MOTION:
            return None
        while j < len(self.t) and self.t[j].lower() in _PARTICLES - {"out", "off", "away"} | {"back"}:
            j += 1
        after = self.t[j].lower() if j < len(self.t) else ""
        at_end = all(t.lower() in ADVERBS or t == "," for t in self.t[j + 1 :])
        if after in ("into", "inside") or after in ("out", "in") and (after == "out" or at_end):
            probe = Clause(self.t, self.context)
            probe.i = j + 1
            if after == "out" or _place(probe) not in self.context.containers:
                self.i = j
                return "go"
        return None

    def _group(self) -> list[str] | None:
        """ "everyone", "all five (participants)", "the two of them", "both of them", "all of them":
        the agents the sentence before was about, else the last people named together, else every
        agent of the story — the first whose number fits (two or more)."""
        start = self.i
        self.i += self.peek() in ("all", "the")  # not accept(): it would skip "both", an adverb elsewhere
        word = self.peek()
        count = _NUMBERS.get(word)
        if count is None and word not in ("everyone", "everybody", "both", "of"):
            self.i = start
            return None
        self.i += word != "of"
        if self.peek() == "of" and self.peek(1) == "the" and self.peek(2) in _PEOPLE:
            self.i += 2  # "both of the girls"
        self.accept("of them", "of us", *_PEOPLE)
        if word in ("everyone", "everybody") and self.accept("except for", "except", "but", "apart from", "other than"):
            return self._all_but(start)
        groups = [list(self.context.subject), list(self.context.group), sorted(self.context.agents)]
        if word in ("everyone", "everybody"):
            groups = groups[2:]
        for group in groups:
            if len(group) >= 2 and len(group) == (count or (2 if word == "both" else len(group))):
                return group
        self.i = start
        return None

    def thing(self) -> str | None:
        """A thing's name after an optional article or owner: up to three lower-case words that are
        not verbs, prepositions or joining words; "it" / "them" is the object named last."""
        self.skip_adverbs()
        if self.peek() in ("it", "them"):
            self.i += 1
            return self.context.obj
        owner = None
        if self.peek() in _DETERMINERS:
            self.i += 1
            self.i += self.peek() == "own"  # "her own box"
        elif (
            self.i < len(self.t)
            and self.t[self.i].endswith(("'s", "'"))
            and is_name(self.t[self.i], self.context.agents)
        ):
            owner = self.t[self.i].removesuffix("'s").removesuffix("'")
            self.i += 1
        words: list[str] = []
        while len(words) < 3 and self.i < len(self.t):
            word = self.t[self.i]
            low = word.lower()
            if not words and low in _forms() and all(t.lower() in ADVERBS or t == "," for t in self.t[: self.i]):
                break  # a clause that starts "puts it in": a verb, not a thing called "puts"
            if not words and owner is None and self.t[self.i - 1].lower() == "to" and _only_verb(low):
                break  # "went to get a coffee": an infinitive, not a place called "get"
            if not words and owner is None and self.t[self.i - 1].lower() not in _DETERMINERS:
                if low in _forms() and self.peek(1) in _MOTION_WORDS or _comparative(low):
                    break  # "leaves all go to the attic", "moved closer to": no thing "go", "closer"
            if (
                not re.fullmatch(r"[a-z][a-z0-9_-]*", low)
                or low in FUNCTION_WORDS | ADVERBS | _STATE_WORDS | _PARTICLES
            ):
                break
            gerund = low.endswith("ing") and self.peek(1) not in ("", *FUNCTION_WORDS)
            if (low in _forms() or low in _LYING) and not gerund and (words or low.endswith("ing")):
                break  # "the pear sits / lies", "kept waiting in": a verb ends a name (not "the waiting room")
            if word[:1].isupper() and word in self.context.agents:
                break
            if words and _adverb_not_noun(low):
                break  # "the hall only", "the crate instead": a name ends in a noun
            words.append(word if word.isupper() else low)  # "TV room" -> TV_room, as Hi-ToM writes it
            self.i += 1
        if words in (["pair"], ["bunch"], ["couple"], ["set"], ["handful"], ["piece"]) and self.peek() == "of":
            self.i += 1  # "a pair of gloves": the gloves
            return self.thing()
        if not words or words[0] in _REFERRING:
            return None  # "the other box", "the same box": which one is not said (refused, not guessed)
        return _one_name(([owner] if owner else []) + words)

    def verb(self) -> str | None:
        """The clause's verb lemma (auxiliaries "had", "has", "did", "will", "proceeded to", "decided to"
        and adverbs skipped), or None."""
        self.skip_adverbs()
        while self.peek() in ("had", "has", "have", "did", "does", "do", "will", "would", "then", "soon") or (
            self.peek()
            in (
                "proceed",
                "proceeds",
                "proceeded",
                "decide",
                "decides",
                "decided",
                "go",
                "goes",
                "went",
                "choose",
                "chose",
                "chooses",
                "manage",
                "managed",
                "manages",
                "begin",
                "began",
                "begins",
            )
            and self.peek(1) == "to"
            and _forms().get(self.peek(2)) not in (None, "be")
            and not self.peek(2).endswith("ing")  # "went to waiting room": a place, not "went to wait"
            and self.peek(2) not in ("the", "a")
        ):
            self.context.background |= self.peek() == "had"
            self.i += 2 if self.peek(1) == "to" else 1
            self.skip_adverbs()
        lemma = _forms().get(self.peek())
        if lemma is None:
            return self._unknown_motion()
        self.i += 1
        if lemma == "be" and self.ahead().endswith("ing") and _forms().get(self.ahead()) not in (None, "be"):
            self.skip_adverbs()  # "are both going", "is hanging out": the verb of the -ing form
            lemma = _forms()[self.peek()]
            self.i += 1
        if lemma in ("pick", "hang", "make") and self.peek() in (
            "up",
            "around",
            "about",
            "out",
            "no",
            "way",
            "his",
            "her",
            "their",
        ):
            pass  # "pick up", "hang around", "make one's way": the particle is read by the caller
        return lemma


def _join(agents: list[str] | tuple[str, ...]) -> str:
    """ "A", "A and B", "A, B and C": the templates' list of names."""
    return agents[0] if len(agents) == 1 else ", ".join(agents[:-1]) + " and " + agents[-1]


def _place(c: Clause, room: bool = False) -> str | None:
    """A room or container: a thing's name as a known place is spelt (any case), or the one known
    place it is the last words of ("the yard" for ``front_yard``; None when several end so).
    "it" is the room named last where a room is meant (``room``), else no place."""
    if c.peek() in ("it", "them"):
        c.i += room
        return c.context.room if room else None
    name = c.thing()
    if name is None:
        return None
    same = [p for p in c.context.places if p.lower() == name.lower()]
    ends = [p for p in c.context.places if p.lower().endswith("_" + name.lower())]
    if same or len(ends) == 1:
        return same[0] if same else ends[0]
    return None if ends else name  # "the box" beside a red and a blue box: which one? (refused)


#: Where a thing may be put that is not in a container: kept in the place's name, never read as "in".
_BESIDE = ("under", "underneath", "beneath", "behind")


def _where_to(c: Clause) -> str | None:
    """A container or room after "(back / down) to / into / in / inside / onto"."""
    j = c.i
    while j < len(c.t) and (c.t[j].lower() in _PARTICLES or c.t[j].lower() in ADVERBS):
        j += 1  # "set it down again in the cupboard"
    if j < len(c.t) and c.t[j].lower() in _PREP_IN + ("on", "over"):
        c.i = j
    if (beside := c.accept(*_BESIDE)) is not None:  # "hid it under the bed": a place of its own, "under_bed"
        place = _place(c)
        return place and _one_name([beside, place])
    if c.accept("over to", "back into", "back to", "on to", *_PREP_IN) is None:
        return None
    return _place(c)


def _here(c: Clause, agent: str) -> str | None:
    """The room named next ("in the R") or, for "there" / "put" / nothing, the agent's room."""
    c.accept("put", "there", "here", "out", "around", "about", "behind")  # "stays behind": where she is
    if c.accept("in there", "in here") is None and c.accept("in", "inside", "at") is not None:
        return _place(c)
    c.accept("there", "here")
    return c.context.rooms.get(agent)


def _doing_in(c: Clause) -> bool:
    """Skip a verb the reader does not know before "in / at the R" ("playing", "reading", "work"):
    doing something in a room is being there. Whether one was skipped."""
    word, after = c.peek(), 1 + (c.peek(1) in ("about", "around"))  # "knocking about in the den"
    if word in _forms() or "VERB" not in _lemmas(word) or c.peek(after) not in ("in", "at", "inside"):
        return False
    c.i += after
    return True


def _being_in(c: Clause, agents: list[str], room: str | None, moves: bool = True) -> Reading | None:
    """ "Ann and Bob are in the den" once the room is read: entering it, or nothing where they are there
    already; a person is in a room, never in a container ("And Owen, too." after a thing's place).
    With ``moves`` False (a verb that only says what they do there) someone in another room is refused."""
    who, one = tuple(agents), agents[0] if len(agents) == 1 else None
    if room is None or not c.done() or set(agents) <= c.context.agents and not _a_room(room, c.context):
        return None
    if not moves and any(c.context.rooms.get(a) not in (None, room) for a in agents):
        return None
    if all(c.context.rooms.get(a) == room for a in agents):
        return [], who  # "while Ann was still there": no event
    if one and one not in c.context.agents:  # "Eggplant is in red bucket": a thing, told without "the"?
        kind = _new_name_or_thing(one, room, c.context)
        if kind != "name":
            return ([f"The {one.lower()} is in the {room}."], ()) if kind == "thing" else None
    return ([f"{_join(agents)} entered the {room}."] if one is None else [f"{one} is in the {room}."]), who


def _location_clause(c: Clause) -> tuple[str, str] | None:
    """ "(that) (the) O is / was (now) in the C" -> (O, C)."""
    c.accept("that")
    obj = c.thing()
    if obj is None or _forms().get(c.peek()) != "be" and c.peek() not in ("lay", "lies", "sits", "sat", "rests"):
        return None  # "... that the pear lay in the box"
    c.i += 1
    while c.peek() in _STATE_WORDS:
        c.i += 1
    container = _where_to(c)
    return (obj, container) if container else None


Reading = tuple[list[str], tuple[str, ...]]  # template sentences, and the agents they are about

#: Verb phrases that leave the room with nothing after them ("took off", "was gone", "is out of there").
_GONE = ("gone", "off", "out of there", "out", "away", "out of here", "outside")


def _read_clause(c: Clause) -> Reading | None:
    """A clause as template sentences, and the agents it is about; None when it cannot be read."""
    if _unreal([w.lower() for w in c.t]):
        return None
    c.skip_to_subject()
    if c.peek() == "there":  # "There is a pear (sitting) in the box." (not accept(): it skips "both")
        c.i += 1
        if _forms().get(c.peek()) != "be":
            return None
        c.i += 1
        obj = c.thing()
        while c.peek() in _STATE_WORDS:
            c.i += 1
        container = _where_to(c)
        c.context.obj = obj or c.context.obj
        return ([f"The {obj} is in the {container}."], ()) if obj and container and c.done() else None
    start = c.i
    agents = c.names()
    if agents is None:
        c.i = start
        return _thing_clause(c)
    word = c.peek()
    if len(agents) == 1 and agents[0] not in c.context.agents and re.fullmatch(r"[a-z]+", word):
        if word not in _forms() and word not in ADVERBS | FUNCTION_WORDS and (read := _capitalised_thing(c, start)):
            return read  # "Sweet potato is in red box.": no person's name
    who = tuple(agents)
    one = agents[0] if len(agents) == 1 else None
    liking = c.accept(*_LIKING)
    if liking in ("is into", "was into") and one:  # "Noah's into the den": he went in (a room is no taste)
        start_thing = c.i
        thing = _place(c, room=True)
        if thing and (thing in ROOMS or thing in c.context.places - c.context.containers) and c.done():
            return [f"{one} entered the {thing}."], who
        if thing not in c.context.objects | c.context.containers and not (
            thing and thing.split("_")[0] in _COLOURS and "_" in thing
        ):
            return None  # "Noah's into the shed": a place he went into, or a thing he likes? (refused)
        c.i = start_thing
    if liking and one:
        thing = c.thing()
        return ([f"{one} {_LIKING[liking]} {thing}."], who) if thing and c.done() else None
    if one and _possession(c):
        return [], who  # "Sally has a basket.": no event
    if _negated(c):
        return ([], who) if "that" not in (w.lower() for w in c.t) else None  # "did not move anything": nothing happens
    verb = c.verb()
    if verb is None and c.peek() in ("share", "shares", "shared"):  # "Priya and Dev share an office": in it
        c.i += 1
        c.accept(*_OBJECT_STARTS)
        room = _place(c, room=True)
        return _being_in(c, agents, room) if room not in c.context.objects else None
    if verb is None and c.ahead() in ("into", "out") and set(agents) <= c.context.agents:
        return _motion(c, agents)  # a commentator's "Jacob, Abigail and Ava into the den!", "Ava out of the den."
    if verb is None and _doing_in(c):  # "Mia and Tom play in the nursery" as a story opens: there
        return _being_in(c, agents, _here(c, agents[0]), moves=False)  # not "Theo dances in the attic"
    if verb is None:
        return None
    if verb == "be":  # "Ann and Bob are in the den.", "Ann was still there.", "Ann is gone."
        if one and c.peek() == "out" and c.peek(1) == "of":  # "then he's out of the hall"
            return _leave(c, one)
        if one and c.accept(*_GONE) and (c.thing() is None) and c.done():
            return ([], who) if one not in c.context.rooms else _leave(c, one)  # "while Ann was away": no event
        _doing_in(c)
        return _being_in(c, agents, _here(c, agents[0]))
    if verb in VERBS["enter"]:
        if c.context.scripted and c.done():  # a script's "X enters.": the scene's room
            return _into_scene(c, agents)
        room = _place(c, room=True) or _where_to(c)
        return ([f"{_join(agents)} entered the {room}."], who) if _a_room(room, c.context) and c.done() else None
    if verb in ("take", "set", "head", "make") and one and c.accept("off") and c.done():
        return _leave(c, one)  # "took off", "set off", "headed off"
    if verb in VERBS["leave"] and not one:
        return _leave_together(c, agents)
    if verb in VERBS["leave"] and one:  # "left (the den)", else "left the pear in the box" (a move)
        start = c.i
        if (read := _leave(c, one)) is not None:
            return read
        c.i = start
    if verb in ("stick", "hang") and (c.peek() in ("around", "about", "out") or c.done()):
        verb = "stay"  # "sticks around", "hangs out"
    if verb in ("hold", "keep") and c.accept("still", "put", "quiet"):
        verb = "stay"  # "holds still for a minute"
    if verb in VERBS["stay"] or (verb == "make" and c.accept("no movements", "no movement", "no move")):
        if verb == "make":
            if c.done():
                return [], who  # "..., makes no movements, and leaves"
            c.accept("and")
            c.verb()
        room = _here(c, agents[0])
        if room is None or not c.done():
            return None
        if one is None:  # "Mara and Ines remain": where they are, no event; "are sitting in the den": there
            return _being_in(c, agents, room, moves=False)
        if c.context.rooms.get(one) != room:
            if not _a_room(room, c.context):
                return None  # "stays a minute in silence": a state, not a room
            return [f"{one} is in the {room}."], who  # "Lucas is hanging out in the den": he is there now
        return [f"{one} made no movements and stayed in the {room} for 1 minute."], who
    if verb in VERBS["claim"] and one:
        return _claim(c, one, verb)
    if verb in ("pull", "take", "draw") and one and c.names() and c.accept("aside", "to one side") and c.done():
        return [], who  # "pulls Owen aside": the telling that follows is private
    if verb in VERBS["turn"] and one:  # "turned to Owen", "faced the room": whom the telling after is to
        c.accept("over", "in", "close", "across")
        c.accept("to", "towards", "toward")
        if c.names() is not None or c.accept(
            "the room", "the group", "the others", "everyone", "everybody", "them all"
        ):
            c.accept("there", "present")
            if c.done():
                return [], who
    if verb in VERBS["take"] and one and not (verb == "get" and c.ahead() in _MOTION_WORDS + tuple(_PARTICLES)):
        c.accept("up", "out")
        obj = c.thing()
        if obj is None or verb == "get" and obj not in c.context.objects:
            return None  # "went to get a coffee": not a thing of the story
        c.context.obj = obj
        c.accept("out", "up")
        if c.accept("of", "from", "off") and _place(c) is None:  # "(out) of / from the C"
            return None
        if not c.done() and c.peek() in _PREP_IN + ("back", "over"):  # "removed it to the box", "takes it to the box"
            container = _where_to(c)
            if container is None or not c.done() or not _placeable(obj, container, c.context):
                return None
            return [f"{one} moved the {obj} to the {container}."], who
        c.context.holding = (one, obj)
        return ([], who) if c.done() else None  # the move is the "put" that follows
    if verb == "follow" and c.ahead() not in ("into", "in") and c.names() is None:  # "follows her into the study"
        return None
    if verb in VERBS["motion"] and (
        one is None or c.ahead() in _MOTION_WORDS + tuple(_PARTICLES) or verb in ("go", *_ARRIVING) and c.done()
    ):
        return _motion(c, agents, verb)
    if verb in VERBS["place"] and one:
        obj = c.thing()
        if obj is None:
            return None
        c.context.obj = obj
        if c.accept("out of", "from", "off", "out from") and _place(c) is None:
            return None
        container = _where_to(c)
        if container is None or not c.done() or not _placeable(obj, container, c.context):
            return None
        c.context.holding = None
        return [f"{one} moved the {obj} to the {container}."], who
    if one and any(verb in VERBS[kind] for kind in _DISTRACTORS.values()):
        thing = c.thing()
        kind = next(k for k, v in _DISTRACTORS.items() if verb in VERBS[v])
        if (
            thing is None
            or not c.done()
            or thing in c.context.agents
            or kind == "lost his"
            and thing in c.context.objects
        ):
            return None  # "lost her marble", the story's marble: where is it now? (not a watch lost)
        return [f"{one} {kind} {thing}."], who
    return None


#: The distractor template each kind of verb is read as (they change no belief).
_DISTRACTORS = {
    "saw a": "notice",
    "likes the": "like",
    "loves the": "love",
    "dislikes the": "dislike",
    "hates the": "hate",
    "lost his": "lose",
}
#: Words after a verb of going or placing that make it going (not placing): "moved to the hall".
_MOTION_WORDS = tuple("on onto into in to inside back over out off away through towards toward from outside".split())


#: Colours name Hi-ToM's containers ("the red bucket"), never its rooms.
_COLOURS = frozenset("red blue green yellow orange purple pink white black brown grey gray".split())


def _new_name_or_thing(word: str, place: str, context: Context) -> str:
    """Whether a capitalised word never seen as a person, "is in" a place, is a new person ("name"),
    a thing told without "the" ("thing") or cannot be told ("unknown"): a known object or container
    (or a colour-named one) makes it a thing, a known room a person, an English noun ("Eggplant")
    in an unknown place stays unknown."""
    if (
        word.lower() in {o.lower() for o in context.objects}
        or place in context.containers
        or place.split("_")[0].lower() in _COLOURS
    ):
        return "thing"
    if place in context.places:
        return "name"
    return "unknown" if "NOUN" in _lemmas(word.lower()) else "name"


#: Phrases of liking and disliking (distractors: no event), each read as its template's verb.
_LIKING = {
    **dict.fromkeys(
        "is fond of|was fond of|had been fond of|has been fond of|is a fan of|was a fan of|is a big fan of|"
        "was a big fan of|is keen on|was keen on|is into|was into|took a liking to|had taken a liking to|"
        "took a fancy to|had taken a fancy to|cared for|has a thing for|has got a thing for|had a thing for|"
        "has a soft spot for|had a soft spot for|was partial to|is partial to|had a fondness for|has a fondness for|"
        "had a great fondness for|had a liking for|had a great liking for|has a liking for|looked with favour upon|"
        "looked with favor upon|looked with favour on|had a great love for|had a love for|has got a soft spot for|"
        "had got a soft spot for".split("|"),
        "likes the",
    ),
    **dict.fromkeys(
        "can not stand|could not stand|can not bear|does not like|did not like|do not like|never cared for|"
        "had never cared for|never liked|had never liked|has an aversion to|had an aversion to|is not keen on|"
        "was not keen on|is not fond of|was not fond of|cherished no affection for|had no affection for|"
        "had no great love for|"
        "had no love for|could not abide|can not abide|had a dislike of|had a dislike for|has a dislike of|"
        "had no liking for|had little liking for".split("|"),
        "dislikes the",
    ),
}


def _negated(c: Clause) -> bool:
    """Whether the verb that follows is negated ("does not move anything", "never left")."""
    return bool(c.accept(*(f"{aux} {no}" for aux in _AUXILIARIES for no in ("not", "never")), "never"))


_AUXILIARIES = ("does", "did", "do", "had", "has", "have", "would", "will", "is", "was", "could", "can", "should")


def _thing_clause(c: Clause) -> Reading | None:
    """ "The pear is / sits in the box.", "The pear was moved to the box by Ann."."""
    obj = c.thing()
    if obj is None:
        return None
    c.accept("had", "has", "have")  # "had been placed in"
    held = c.context.holding
    if held and held[1] == obj and _forms().get(c.peek()) in VERBS["motion"]:  # "Into the box goes the pear."
        c.i += 1
        container = _where_to(c)
        if container is None or not c.done() or not _placeable(obj, container, c.context):
            return None
        c.context.holding = None
        return [f"{held[0]} moved the {obj} to the {container}."], (held[0],)
    if not (_forms().get(c.peek()) in ("be", "stay") or c.peek() in _LYING):
        return None
    c.i += 1
    c.skip_adverbs()
    while c.peek() in _STATE_WORDS or _forms().get(c.peek()) in VERBS["place"]:
        c.i += 1
    container = _where_to(c)
    if container is None:
        return None
    c.context.obj = obj
    if c.accept("by"):
        mover = c.names()
        ok = mover is not None and len(mover) == 1 and c.done() and _placeable(obj, container, c.context)
        return ([f"{mover[0]} moved the {obj} to the {container}."], tuple(mover)) if ok else None
    return ([f"The {obj} is in the {container}."], ()) if c.done() else None


_LYING = ("sits", "sat", "lies", "lay", "rests", "reposes", "reposed")
#: Words that make a clause tell what did not (or may not) happen: "almost left", "would have moved".
_UNREAL = frozenset("almost nearly would could might should must may".split())
#: Words that tell of an earlier time (a flashback): what they tell is not now, nor known to be then.
_EARLIER = frozenset("previously earlier beforehand yesterday formerly".split())


def _unreal(low: list[str]) -> bool:
    """Whether a clause tells a near miss, a possibility, an intention ("was going to leave", "is about
    to move it") or an earlier time ("Previously, ..."): no event, and not one to skip either."""
    if _UNREAL & set(low) and not NEGATION & set(low):  # "could not make up her mind": nothing happens
        return True
    if _EARLIER & set(low) or " ".join(low).startswith(("before that", "the day before", "last week")):
        return True  # "Previously, the marble had been in the box": not where it is now
    intention = (["going", "to"], ["about", "to"])
    return any(low[k : k + 2] in intention and _forms().get(low[k + 2]) == low[k + 2] for k in range(len(low) - 2))


#: Parts and furniture of a room: going "to the door" or "to bed" enters no room of the story.
_FIXTURES = frozenset(
    "door doorway window wall corner floor ceiling table desk bed sofa couch chair shelf stairs staircase "
    "entrance exit counter sink bench".split()
    # a state, not a place: "stayed a minute in silence", "sat in perfect repose", "in deep thought"
    + "silence thought thoughts stillness repose quiet peace composure contemplation reverie patience confusion "
    "disbelief wonder shock surprise awe suspense silent still".split()
)


def _a_room(place: str | None, context: Context) -> bool:
    """Whether a place a person goes into or is in can be a room: not a known container, not a part
    or piece of furniture ("the door", "the kitchen door", "bed") and not a bare "room" where the
    story has other rooms."""
    rooms = context.places - context.containers
    if place is None or place in context.containers | context.objects or place.lower() == "room" and rooms - {place}:
        return False  # "walked into the room" beside a kitchen and a den: which? ("are in a room" alone is one)
    words = place.lower().split("_")
    if words[0] in _COLOURS and len(words) > 1 and words[-1] != "room" and place not in rooms:
        return False  # "(goes) into the red bathtub": a colour names a container ("the blue room" is a room)
    return words[-1] not in _FIXTURES


def _leaves_room(clause: list[str], context: Context) -> bool:
    """Whether "leaving ..." leaves a room ("..., leaving the garage"), not a thing somewhere ("leaving
    the pear in the box") or people behind."""
    c = Clause(clause[1:], context)
    place = c.thing()
    return place not in context.objects and c.done() and _a_room(place, context)


#: First words of a name that point at another name instead of giving one.
_REFERRING = frozenset("other another same previous original former latter first second last next".split())
#: Where a thing goes with the person who holds it ("in her pocket"): not a place of the story.
_CARRIED = frozenset("pocket pockets hand hands mouth lap arms sleeve jacket coat backpack purse ear ears".split())


def _placeable(obj: str, container: str, context: Context) -> bool:
    """Whether "moved the O to the C" is a move the templates tell: O is no container ("moved the
    basket to the kitchen", "put the box in the basket") and C no room (one of the story's or a
    room's name: "put the pear in the kitchen") nor something a person carries ("in her pocket")."""
    rooms = context.places - context.containers | set(ROOMS)
    return obj not in context.containers and container not in rooms and container.split("_")[-1] not in _CARRIED


def _possession(c: Clause) -> bool:
    """Whether the clause is "Sally has a basket.", "Anne has got a box", "Sally owns a marble": no
    event (a container, or a thing of hers before it is put anywhere). Not for the story's own object
    once it is somewhere ("Anne has the marble now": taken from where? refused)."""
    start = c.i
    if c.accept("has got", "have got", *sorted(_OWNING)) is None or c.peek() not in (
        "a",
        "an",
        "the",
        "her",
        "his",
        "their",
        "one",
        "two",
        "some",
    ):
        c.i = start
        return False
    thing = c.thing()
    if thing is None or not c.done() or thing in c.context.objects:
        c.i = start
        return False
    return True


def _capitalised_thing(c: Clause, start: int) -> Reading | None:
    """A thing's name of several words capitalised at the start of a sentence, told without "the"
    ("Sweet potato is in red box."): read as "The O is in the C." where :func:`_new_name_or_thing`
    says the first word names a thing there; anything else is refused."""
    k = c.i - 1
    probe = Clause([*c.t[:k], c.t[k].lower(), *c.t[k + 1 :]], replace(c.context))
    probe.i = start
    read = _thing_clause(probe)
    if read is None:
        return None
    if _new_name_or_thing(c.t[k], parse_line(read[0][0]).container, c.context) != "thing":
        return None
    c.context.obj = probe.context.obj
    return read


def _leave(c: Clause, agent: str) -> Reading | None:
    comma = c.peek() == "," and c.peek(1) not in ("out", "from")  # "leaves, gloomy" left no room "gloomy"
    c.accept("from", "out of")
    if c.accept("through", "by", "via"):  # "leaves through the back door", never "through the kitchen"
        way = [w.lower() for w in c.t[c.i :]]
        if not way or way[-1] not in _FIXTURES or len(way) > 4:
            return None
        c.i = len(c.t)
    room = None if comma or c.done() or c.accept("the room", "room", "it", "there", "here") else _place(c)
    if room and room.split("_")[-1].lower() in _FIXTURES:
        room = None  # "heads out the (front) door": out of the room one is in
    elif room and c.context.rooms.get(agent) not in (None, room) and not c.context.background:
        return None  # "Noah is out of the den" while he is in the hall: not a leaving
    if room and agent not in c.context.rooms and c.context.left.get(agent) == room and c.done():
        return [], (agent,)  # "Off she goes, out of the den.": out of it already, said again
    if room in c.context.objects | c.context.containers:
        return None  # "(Mila exits.) The onion.": no room
    room = room or c.context.rooms.get(agent)
    if c.context.background and agent not in c.context.rooms and c.done():
        return [], (agent,)  # "after Ann had left": she had, and was told so
    return ([f"{agent} exited the {room}."], (agent,)) if room and c.done() else None


def _leave_together(c: Clause, agents: list[str]) -> Reading | None:
    """ "They both leave (the kitchen)": each leaves the room they share, one exit each (nothing
    happens between them); None when they are not all in that room."""
    read = _leave(c, agents[0])
    if read is None or not read[0]:
        return None
    room = parse_line(read[0][0]).room
    if any(c.context.rooms.get(a) != room for a in agents):
        return None
    return [f"{a} exited the {room}." for a in agents], tuple(agents)


#: Verbs of coming together: going somewhere only with the place said ("regroup in the den").
_GATHERING = frozenset("meet regroup gather assemble reconvene convene pile repair troop".split())
#: Verbs of going that, with no place after them, arrive rather than leave ("came back").
_ARRIVING = frozenset("come return arrive rejoin join reenter follow get".split())


def _motion(c: Clause, agents: list[str], verb: str = "go") -> Reading | None:
    """ "went into / to / back down into / through to the R" enters R, "came (back) in" the room
    named last; "went out (of the R)", "wandered off" leaves it; "with B (and C)" go too."""
    agents = agents + _companions(c)
    if verb in _GATHERING and not {"in", "into", "inside", "to"} & {t.lower() for t in c.t[c.i :]}:
        return None  # "Ann and Bob meet.", "they regroup": where? (not a leaving)
    start = c.i
    if c.accept("from", "out of") and _place(c, room=True) and c.ahead() in _ENTERING:
        pass  # "went from the hallway into the workshop": entering the second is leaving the first
    else:
        c.i = start
    j = c.i
    while j < len(c.t) and (c.t[j].lower() in _PARTICLES | ADVERBS or c.t[j].lower() in _NUMBERS):
        j += 1  # "went back down into the cellar", "went off together into the laundry", "go all five into"
    if j < len(c.t) and c.t[j].lower() in _ENTERING:
        c.i = j
    k = c.i  # "in, into the den", "off, into the workshop", "back, into the pantry": the place is after the comma
    while k < len(c.t) and (c.t[k].lower() in _PARTICLES | ADVERBS | {"in", "back", ","}):
        k += 1
    if k > c.i and "," in c.t[c.i : k] and k < len(c.t) and c.t[k].lower() in ("into", "to", "inside"):
        c.i = k
    if c.peek() in ("in", "inside") and all(t.lower() in ADVERBS or t == "," for t in c.t[c.i + 1 :]):  # "went in"
        if c.context.scripted:  # "they file in" in a script: into the scene's room
            c.i = len(c.t)
            return _into_scene(c, agents)
        return ([f"{_join(agents)} entered the {c.context.room}."], tuple(agents)) if c.context.room else None
    if c.done() and verb in _ARRIVING:  # "Ann came back.": to the room she left, if she is in none
        one = agents[0] if len(agents) == 1 else None
        back = "back" in (w.lower() for w in c.t) or verb == "return"
        if not back or one is None or one in c.context.rooms or one not in c.context.left:
            return None  # back where? (refused, not guessed)
        if c.context.scripted and c.context.scene != c.context.left[one]:
            return None  # back to the room she left, or into the scene a heading named?
        return [f"{one} entered the {c.context.left[one]}."], (one,)
    if c.done() or c.accept("out of", "out from", "outside of", "out", "outside", "away from", "away", "off", "from"):
        if len(agents) == 1 and agents[0] not in c.context.rooms and c.done():
            return [], tuple(agents)  # "leaves the room and goes (off) for a walk": already out, no event
        return _leave(c, agents[0]) if len(agents) == 1 else _leave_together(c, agents)
    if c.peek() == "to" and _infinitive_with_object(c.peek(1), c.peek(2)):
        c.i += 2
        return _gone_to_do(c, agents)
    if c.peek() == "to" and c.peek(1) in ("a", "an"):  # "heads off to a meeting": no room of the story
        c.i += 1
        return _gone_to_do(c, agents)
    entering = ("to inside", "up in", "on to", "on into", "through into", "through to", "inside of", "in to")
    if c.accept(*entering, *_ENTERING) is None:
        return None
    room = _place(c, room=True)
    c.accept("from")  # "came through into the pantry from the hall"
    if c.peek() and not c.done():
        _place(c)
    return ([f"{_join(agents)} entered the {room}."], tuple(agents)) if _a_room(room, c.context) and c.done() else None


def _into_scene(c: Clause, agents: list[str]) -> Reading | None:
    """A script's bare "X and Y enter." / "they file in": into the room the scene heading names, if it
    names one and the story's events agree (no one since in another room, none of them in it already)."""
    room = c.context.scene
    if room is None or not _a_room(room, c.context) or any(c.context.rooms.get(a) == room for a in agents):
        return None
    return [f"{_join(agents)} entered the {room}."], tuple(agents)


_ENTERING = ("onto", "into", "inside", "in", "to", "towards", "toward", "through")
_OBJECT_STARTS = frozenset("the a an her his their some my our its".split())


def _infinitive_with_object(word: str, after: str) -> bool:
    """Whether "to WORD AFTER" is a verb and its object ("went to water the garden", "to have her bath"),
    not a place ("went to the den", "to waiting room")."""
    return after in _OBJECT_STARTS and word not in _OBJECT_STARTS and _base_verb(word)


def _gone_to_do(c: Clause, agents: list[str]) -> Reading | None:
    """ "went to water the garden", "goes to have her bath", "heads to a meeting": off, so out of the room
    they were in — or into the room the errand names, if the story has it ("to water the garden" with a
    garden). An errand about the story's own things or people ("went to get the pear") may happen in the
    room: refused, not guessed. ``c`` stands after the errand's verb, or after the "to" of "to a meeting"."""
    c.accept(*_OBJECT_STARTS)
    errand = [w for w in c.t[c.i :] if w != ","]
    if {w.lower() for w in errand} & {o.lower() for o in c.context.objects | c.context.containers} or any(
        is_name(w, c.context.agents) for w in errand
    ):
        return None
    named = _one_name([w.lower() for w in errand])
    if named in c.context.places - c.context.containers:
        return [f"{_join(agents)} entered the {named}."], tuple(agents)
    rooms = [c.context.rooms.get(a) for a in agents]
    if not all(rooms):
        return ([], tuple(agents)) if not any(rooms) else None  # already out: no event
    return [f"{a} exited the {room}." for a, room in zip(agents, rooms, strict=True)], tuple(agents)


def _companions(c: Clause) -> list[str]:
    """The names after "(together) with" in a clause of going ("comes in with Sam", "went to the den
    with Ava and Ben"), taken out of the clause."""
    low = [t.lower() for t in c.t]
    if "with" not in low[c.i :]:
        return []
    start = low.index("with", c.i)
    j, names = start + 1, []
    while j < len(c.t) and is_name(c.t[j], c.context.agents):
        names.append(c.t[j])
        j += 1
        joiner = next((k for k in (2, 1) if low[j : j + k] in ([",", "and"], [","], ["and"])), 0)
        if joiner and j + joiner < len(c.t) and is_name(c.t[j + joiner], c.context.agents):
            j += joiner
    if names:
        start -= start > c.i and low[start - 1] == "together"
        c.t = c.t[:start] + c.t[j:]
    return names


#: Claim verbs that are public by themselves ("announced", "claimed"); "said" / "told" need a listener
#: or a word saying who heard it.
_PUBLIC_VERBS = tuple("claim announce declare proclaim shout yell broadcast exclaim insist assert".split())


def _claim(c: Clause, speaker: str, verb: str) -> Reading | None:
    """A public claim (to everyone present) or a private tell (to one listener): the words between
    the verb and "that" (or the location clause) say who heard it; anything else there is an aside
    ("whispers to Olivia, so nobody else hears, that ...")."""
    low = [w.lower() for w in c.t]
    end = None
    for j in range(c.i, len(low)):  # where what was said starts: "(that) the O is in the C" to the end
        if low[j] in ADVERBS:
            continue  # "states publicly that ...": the adverb says who heard it
        probe = Clause(c.t, c.context)
        probe.i = j
        if _location_clause(probe) and probe.done():
            end = j
            break
    if end is None:
        return None
    heard = {w for w in low[c.i : end]} | {verb}
    listeners = [
        t.removesuffix("'s") for t in c.t[c.i : end] if is_name(t, c.context.agents) and t.removesuffix("'s") != speaker
    ]  # "whispers in Owen's ear"
    if not listeners and (heard & {"him", "her"} or heard & PRIVATE) and len(c.context.mentioned) == 1:
        listeners = list(c.context.mentioned)  # "turned to Owen and whispered that ..."
    c.i = end
    placed = _location_clause(c)
    if placed is None or not c.done() or len(set(listeners)) > 1:
        return None
    obj, container = placed
    c.context.obj = obj
    loud = verb in _PUBLIC_VERBS and not heard & PRIVATE  # "shouted / announced to Sally": all present hear it
    if listeners and not loud and (not heard & PUBLIC or heard & PRIVATE):
        return [f"{speaker} privately told {listeners[0]} that the {obj} is in the {container}."], (speaker,)
    if loud:
        return [f"{speaker} publicly claimed that {obj} is in the {container}."], (speaker,)
    if not listeners and (heard & PUBLIC or verb in _PUBLIC_VERBS) and not heard & PRIVATE:
        return [f"{speaker} publicly claimed that {obj} is in the {container}."], (speaker,)
    return None  # "Ann said that ...": heard by whom is not said


_SUBORDINATE = ("as soon as", "after", "once", "when", "before", "while", "as", "having")
_SUBORDINATE_STARTS = frozenset(s.split()[0] for s in _SUBORDINATE) - {"as", "after", "before"}


def _clauses(tokens: list[str]) -> list[list[str]] | None:
    """A sentence's clauses in the order their events happen: "After A, B" and "B after A" are
    [A, B]; "Before A, B" and "B before A" are [B, A]; "A and (then) B", "A; B", "A, then B",
    "A, after which B", "A, who B" split where the second part starts with a verb, or a subject and
    a verb."""
    low = [t.lower() for t in tokens]
    for sub in _SUBORDINATE:
        n = len(sub.split())
        if low[:n] == sub.split() and "," not in low:  # "Whilst he's gone Ann moves it": the name after a verb
            name = next((k for k in range(n + 1, len(tokens)) if tokens[k][:1].isupper() and _has_verb(low[n:k])), 0)
            if name:
                tokens, low = [*tokens[:name], ",", *tokens[name:]], [*low[:name], ",", *low[name:]]
        if low[:n] == sub.split() and "," in low:
            comma = low.index(",")
            first, main = tokens[n:comma], tokens[comma + 1 :]
            if sub == "having":
                first = ["__subject__", *first]
            if sub != "before":
                first = [_BACKGROUND, *first]
            if not _has_verb([t.lower() for t in first]):
                return _clauses(main)  # "After that, ...", "Once again, ...": a time phrase
            rest = _clauses(main)
            if rest is None:
                return None
            return rest + [first] if sub == "before" else [first, *rest]
    for i, word in enumerate(low):
        if (
            word in ("after", "before")
            and i > 0
            and low[i + 1 : i + 2] not in (["which"], [","])  # "after, she leaves": afterwards
            and _starts_clause(tokens[i + 1 :])
            and _has_verb(low[:i])
        ):
            if word == "after" and low[i - 1] in ("and", "then"):  # "..., and after she leaves": afterwards
                left, right = _clauses(tokens[: i - 1]), _clauses(tokens[i + 1 :])
                return None if left is None or right is None else left + right
            if word == "after" and low[i - 1] in (",", ";") and "had" not in low[i + 1 : i + 5]:
                return None  # ", after she leaves": afterwards (as second-language writers say) or before? not guessed
            left, right = _clauses(tokens[:i]), _clauses(tokens[i + 1 :])
            if left is None or right is None:
                return None
            if word == "after":  # what came first may be told already ("Bob left. Ann moved it after Bob left.")
                gerund = low[i + 1].endswith("ing")  # "Ann left after moving it": Ann moved it
                right[0] = [_BACKGROUND, *["__subject__"][: int(gerund)], *right[0]]
                return right + left
            return left + right
    for i, word in enumerate(low):
        # "(moved it to the box,) then the bag again, then the crate": gapped objects one after another
        gaps = _gapped(low[:i]) and len(low[:i]) <= 5 and (_gapped(low[i + 1 :]) or _destination_first(low[i + 1 :]))
        if word in _SEPARATORS and i > 0 and (_complete(low[:i]) or gaps or _subject_and_verb(low[i + 1 :])):
            j = i + 1
            while j < len(low) and (
                low[j] in _JOINERS or low[j] == "but" and word in (",", ";") and _has_verb(low[j:])
            ):
                j += 1  # "...; but Ava told ...": not "everyone left, but Ben" (all but Ben)
            if "but" in low[i : j + 1] and not _has_verb(low[j:]):
                return None  # "Everyone left the hall (,) but Ben": all but him, or he too? (he too was read)
            if word == "," and low[j : j + 2] == ["followed", "by"]:  # "Mila left the den, followed by Emma"
                return _followed_by(tokens[:i], tokens[j + 2 :])
            k = j
            while k < len(low) and low[k] in ADVERBS:
                k += 1
            into = [  # a destination named before ("go in, all together, into the den" names one)
                n
                for n, w in enumerate(low[:i])
                if w in _DIRECTIONS[:3] + ("in", "inside") and n + 1 < i and low[n + 1] not in ADVERBS | {","}
            ]
            onward = _destination_first(low[j:]) and bool(into) and into[-1] < i - 1  # a destination before
            stop = low.index(";", k) if ";" in low[k:] else len(low)  # the clause's own words ("...; whereupon ...")
            onward |= k < len(low) and low[k] in ("the", "a", "an") and not _has_verb(low[k:stop])  # ", then the den"
            subordinate = low[j] in _SUBORDINATE_STARTS and _has_verb(low[j + 1 :]) if j < len(low) else False
            onward |= word in (",", ";", "and") and _subject_gap(tokens[j:]) is not None  # ", and Abigail the sunroom"
            if j < len(low) and low[j] != "that" and (_starts_clause(tokens[j:]) or onward or subordinate):
                right = _clauses(tokens[j:])
                if right is None:
                    return None
                if "who" in low[i:j]:  # "..., Charlotte, who then left": the relative clause is about the name before
                    right[0] = [tokens[i - 1], *right[0]]
                return [tokens[:i], *right]
    return [tokens]


#: Verbs of going that a clause of names and a room may leave out ("..., and Abigail the sunroom").
_GAP_VERBS = _GOING | frozenset("go walk head repair step run come return proceed wander".split())


def _subject_gap(tokens: list[str]) -> int | None:
    """Where the place starts in a clause of names and a place without a verb ("Abigail the sunroom",
    "and Ben and Cy the den"): the verb of the clause before is understood (:func:`_read_clauses`)."""
    low = [t.lower() for t in tokens]
    k = 0
    while k < len(tokens) and (tokens[k][:1].isupper() and low[k] not in FUNCTION_WORDS or low[k] in ("and", ",")):
        k += 1
    named = [t for t in tokens[:k] if t[:1].isupper()]
    if not named or low[k : k + 1] != ["the"] or _has_verb(low[k:]) or any(w in (",", ";", ":") for w in low[k:]):
        return None
    return k


def _container_named(tokens: list[str], context: Context) -> bool:
    """Whether a gapped clause ("then the blue bag") names a container the story has, and nothing else."""
    c = Clause([t for t in tokens if t != ","], context)
    place = _place(c)
    if place is None or not c.done() or place in context.objects:
        return False  # "then the plum": another thing, not where it went
    return place in context.containers or place.split("_")[0] in _COLOURS and len(place.split("_")) > 1


def _gapped(tokens: list[str]) -> bool:
    """Whether a clause is its verb's objects alone: "(then) the dining room", "the cherry to the box"."""
    low = [t.lower() for t in tokens if t.lower() not in ADVERBS and t != ","]
    return bool(low) and low[0] in ("the", "a", "an") and not _has_verb(low)


def _subject_end(tokens: list[str], context: Context) -> int:
    """Where a clause's subject (names, or a thing) ends: the rest is what it says of them."""
    c = Clause(tokens, context)
    if c.names() is None:
        c.i = 0
        c.thing()
    return c.i


def _ellipsis(tokens: list[str]) -> list[str] | None:
    """The subject of "Mila does too / the same", "Mila did", "Mila is too" or "so does Mila / so is
    the onion": the clause says again what the one before said, of another; None for any other
    clause ("Ann was still there" is not one: a "be" needs "too" or "so")."""
    low = [t.lower() for t in tokens if t != ","]
    words = [t for t in tokens if t != ","]
    if len(low) >= 3 and low[0] == "so" and low[1] in _DO + _BE:  # "so does Mila", "so is the onion"
        return words[2:]
    named = [w for w in words if w.lower() not in ADVERBS and w.lower() != "and"]
    if named and all(w[:1].isupper() and _forms().get(w.lower()) not in _GOING for w in named):  # "..., and then Mila"
        return named
    for k, word in enumerate(low):
        rest = [w for w in low[k + 1 :] if w not in ("then", "now", "just")]
        marked = rest in (["too"], ["also"], ["the", "same"], ["the", "same", "thing"], ["likewise"])
        if k > 0 and (word in _DO and (marked or not rest) or word in _BE and marked and rest[0] != "the"):
            return [w for w in words[:k] if w.lower() not in ADVERBS]
    return None


_DO = ("do", "does", "did")
_BE = ("is", "are", "was", "were")
_BACKGROUND = "__background__"
#: Lower-case words a clause's subject may start with.
_SUBJECT_STARTS = frozenset("he she they there the it a an all both everyone everybody each".split())
_JOINERS = frozenset(
    "and then , after which afterwards who thereafter subsequently finally whereupon where wherein".split()
)
#: A clause that starts here goes on with the move before: "moved it to the box and then to the bag".
_DIRECTIONS = ("to", "into", "onto", "back")


def _destination_first(words: list[str]) -> bool:
    """Whether lower-case words start with a destination: "(then) (back) to / into ...", "back in ..."
    (a bare "in ..." is a place or a manner: "in secret")."""
    content = [w for w in words if w not in ADVERBS and w != ","]
    return bool(content) and (content[0] in _DIRECTIONS or content[0] in ("in", "inside") and "back" in words)


def _followed_by(first: list[str], names: list[str]) -> list[list[str]] | None:
    """ "A left the den, followed by B (and C)": B does what A did, after A."""
    c = Clause(first, Context())
    if c.names() is None or not names:
        return None
    return [first, [*names, *first[c.i :]]]


_SEPARATORS = frozenset("; : and then , but so who which whereupon where wherein".split())


def _complete(words: list[str]) -> bool:
    """Whether words can be a clause before a separator: a verb that is not an auxiliary waiting for
    its participle ("The corn was | then moved ..."), or the move's destination ("back to the box")."""
    if _destination_first(words):
        return True
    content = [w for w in words if w not in ADVERBS and w != ","]
    if _gapped(words) and set(content) & {"to", "into", "onto"}:
        return True  # "(moved the pear to the box and) the plum to the bag; ..."
    return (
        _has_verb(words)
        and bool(content)
        and content[-1] not in ("is", "are", "was", "were", "been", "had", "has", "have")
    )


def _relative_first(tokens: list[str]) -> list[str]:
    """ "Abigail, who disliked the potato, stayed a minute": the relative clause as a clause of its
    own before the main one ("Abigail disliked the potato; Abigail stayed a minute")."""
    low = [t.lower() for t in tokens]
    for i in range(len(low) - 3):
        if low[i + 1 : i + 3] == [",", "who"] and tokens[i][:1].isupper() and "," in low[i + 3 :]:
            k = low.index(",", i + 3)
            if _starts_clause(tokens[k + 1 :]) or _has_verb(low[k + 1 :]):
                return [*tokens[: i + 1], *tokens[i + 3 : k], ";", tokens[i], *tokens[k + 1 :]]
    return _participle_first(tokens)


#: Words before a clause's subject: "...; and Noah, having ..., left".
_CLAUSE_OPENERS = frozenset("; , and then but so".split())


def _participle_first(tokens: list[str]) -> list[str]:
    """ "Noah, having stayed a minute, left" as "Having stayed a minute, Noah left" (what the subject had
    done comes first: :func:`_clauses`); "Sophia, being of a restless turn, moved it" without its
    "being ..." (how she was, no event; one that tells an event is kept, and refused)."""
    low = [t.lower() for t in tokens]
    for i in range(len(low) - 3):
        if (
            low[i + 1 : i + 3] in ([",", "having"], [",", "being"])
            and tokens[i][:1].isupper()
            and low[i] not in FUNCTION_WORDS
            and (i == 0 or low[i - 1] in _CLAUSE_OPENERS)
            and "," in low[i + 3 :]
        ):
            k = low.index(",", i + 3)
            verb = low[k + 1] if k + 1 < len(low) else ""
            if not (_starts_clause(tokens[k + 1 :]) and _forms().get(verb)):
                continue  # the subject's own verb must follow: "Noah, having left, Ann ..." is not read so
            if low[i + 2] == "being":
                if _tells_event(tokens[i + 3 : k]):
                    continue
                return [*tokens[: i + 1], *tokens[k + 1 :]]
            return [*tokens[:i], "having", *tokens[i + 3 : k], ",", tokens[i], *tokens[k + 1 :]]
    return tokens


def _subject_and_verb(words: list[str]) -> bool:
    """Whether words plainly start a clause of their own: "(then) he / she / they leaves ..."."""
    rest = [w for w in words if w not in ADVERBS and w not in ("and", ",")]
    return len(rest) >= 2 and rest[0] in ("he", "she", "they") and (bool(_forms().get(rest[1])) or _liking_at(rest, 1))


def _has_verb(words: list[str]) -> bool:
    """A verb we know, one we do not in a motion frame ("climbs (back) out"), or "has a / the ..."
    (possession: "Sally has a basket and Anne has a box" is two clauses)."""
    owning = any(w in _OWNING and words[k + 1 : k + 2] in (["a"], ["an"], ["the"]) for k, w in enumerate(words))
    if owning or any(_forms().get(w) or w in _LYING for w in words):  # "the pear lies in ...": a verb
        return True
    if any(_unknown_verb_at(words, j) for j in range(len(words))):
        return True
    return any(_liking_at(words, k) for k in range(len(words)))  # "could not abide", "cherished no affection for"


@cache
def _liking_phrases() -> dict[str, tuple[tuple[str, ...], ...]]:
    """The phrases of :data:`_LIKING` as words, by their first word."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in _LIKING:
        words = tuple(phrase.split())
        out.setdefault(words[0], []).append(words)
    return {first: tuple(phrases) for first, phrases in out.items()}


def _liking_at(words: list[str], k: int) -> bool:
    """Whether lower-case words have a phrase of liking or disliking at ``k`` ("could not abide"): a
    verb as :func:`_has_verb` counts them, though no word of it is one of :data:`VERBS`."""
    return any(tuple(words[k : k + len(p)]) == p for p in _liking_phrases().get(words[k], ()))


_OWNING = frozenset("has have had owns own owned".split())


def _starts_clause(tokens: list[str]) -> bool:
    """Whether tokens start a clause: a verb, or a subject (names, pronoun, "the O", "there") and a verb."""
    low = [t.lower() for t in tokens]
    i = 0
    while i < len(low) and (low[i] in ADVERBS and low[i] not in _SUBJECT_STARTS or low[i] == ","):
        i += 1
    if i < len(low) and _forms().get(low[i]) and _forms()[low[i]] != "be":
        return True
    if low[i : i + 1] and low[i] in ("has", "have", "had") and i + 1 < len(low) and _forms().get(low[i + 1]):
        return True  # "... and has left the hall"
    if i < len(low) and _unknown_verb_at(low, i):
        return True  # "climbs out": a verb we do not know, in a motion frame
    if (
        low[i : i + 1] == ["so"]
        and low[i + 1 : i + 2]
        and low[i + 1] in ("does", "did", "do", "is", "was", "are", "were")
    ):
        return True  # "and so does Mila"
    if low[i : i + 1] == ["only"]:  # "so only Mara and Ines remain", not "tells Ella, and only Ella, that ..."
        k = i + 1
        while k < len(low) and (tokens[k][:1].isupper() or low[k] == "and"):
            k += 1
        return k < len(low) and bool(_forms().get(low[k]))
    subject = low[i : i + 1] and (low[i] in _SUBJECT_STARTS or low[i] in _NUMBERS or tokens[i][:1].isupper())
    for j in range(i + 1, min(i + 7, len(low))):
        if _forms().get(low[j]) or low[j] in ("does", "did", "had", "has") or _unknown_verb_at(low, j):
            return bool(subject)
        if _liking_at(low, j):  # "..., she could not abide the plum"
            return bool(subject)
    rest = tokens[i:]
    return (
        bool(subject)
        and any(t[:1].isupper() for t in rest)
        and all(t[:1].isupper() or t.lower() in ("and", ",") or t.lower() in ADVERBS for t in rest)
    )  # "..., and then Mila"


def _unknown_verb_at(low: list[str], j: int) -> bool:
    """Whether a word we do not know stands in a frame only going has: "climbed (up / back) out / into"."""
    k = j + 1
    while k < len(low) and low[k] in ("up", "down", "back", "over"):
        k += 1
    after_article = j > 0 and low[j - 1] in _DETERMINERS  # "the ball into the basket": a thing
    return (
        low[j].isalpha()
        and low[j] not in FUNCTION_WORDS
        and not after_article
        and k < len(low)
        and low[k] in ("out", "into")
    )


#: Verbs that make events: an aside in brackets with one of them is not skipped but refused.
_EVENT_VERBS = frozenset(VERBS["motion"] + VERBS["enter"] + VERBS["leave"] + VERBS["place"] + VERBS["take"])


def _no_event(clause: list[str], context: Context) -> bool:
    """Whether a clause the reader cannot read is a thought, feeling or liking that moves nothing: a
    word of thinking, feeling, seeing or liking, and no verb of going, placing, taking or telling and
    no word of direction ("fond of the red box" moves nothing; "drawn to the red box" may). Anything
    else unread is refused."""
    low = [t.lower() for t in clause]
    lemmas = {_forms().get(w) for w in low}
    face = re.search(r"\b(?:make|makes|made|making) (?:a )?(?:face|faces|grimace)\b|\b(?:do|does|did) a double take\b",
                     " ".join(low))  # fmt: skip
    if face:  # "makes a face (at the thought of melon)": no making, no taking
        lemmas = (lemmas - {"make", "take", "do"}) | {"grimace"}
    if re.search(r"\b(?:checks?|checked|checking|search(?:es|ed|ing)?|rummag\w+|feels?|felt) (?:through |in )?"
                 r"(?:his|her|their) (?:pockets?|purse|coat|jacket)\b", " ".join(low)):  # fmt: skip
        lemmas |= {"pat"}  # "checks her pockets": a look at what one carries
    infinitive = {k for k, w in enumerate(low[:-1]) if w == "to" and _base_verb(low[k + 1])}  # "wants to play"
    directions = {w for k, w in enumerate(low) if w in _MOVING_WORDS and k not in infinitive}
    moving = lemmas & _EVENT_VERBS | lemmas & set(VERBS["claim"]) or directions
    feeling = lemmas & set(
        VERBS["muse"] + VERBS["notice"] + VERBS["like"] + VERBS["love"] + VERBS["dislike"] + VERBS["hate"]
    )
    return bool(feeling or set(low) & _FEELING_WORDS) and not moving


#: Words of direction: a clause with one may move someone, so it is never read as no event.
_MOVING_WORDS = frozenset(
    "into onto to out off away inside in back towards toward from under behind beneath below above beside "
    "across along through over".split()
)
#: Nouns and adjectives of liking and feeling ("a liking for", "fond of", "caught sight of").
_FEELING_WORDS = frozenset(
    "liking fancy fond love fan sight eye thought glad happy sad bored tired cold warm obsessed keen crazy mad".split()
)


def _where_already(clause: list[str], context: Context) -> bool:
    """Whether a clause is no more than where its subject (its own, else the one before) already is:
    "(a minute) in the front yard", or a verb we do not know there ("Jack chills in the front yard"):
    no event."""
    c = Clause(clause, context)
    subject = c.names() or list(context.subject)
    low = [t.lower() for t in clause[c.i :] if t.lower() not in ADVERBS and t != ","]
    if low[:1] and low[0] not in ("in", "at") and not _forms().get(low[0]) and low[0].isalpha():
        low = low[1:]  # the verb we do not know
    room = context.rooms.get(subject[0]) if len(subject) == 1 else None
    return bool(room) and low[:2] in (["in", "the"], ["at", "the"]) and "_".join(low[2:]).lower() == room.lower()


def _says_nothing(tokens: list[str], context: Context) -> bool:
    """Whether a sentence names no one and nothing of the story and no way of going: an exclamation
    or a sound ("Squeak, squeak!", "Plop!"). A known person, a pronoun or group word, a place, an
    object, a capitalised word after the first, a verb of going or placing or a word of direction
    each make it something to read."""
    low = [t.lower() for t in tokens if t not in (",", ";", ":", "(", ")")]
    named = {w.lower() for p in context.places | context.objects for w in p.split("_")}
    if any(t in context.agents or (k > 0 and t[:1].isupper()) for k, t in enumerate(tokens)):
        return False
    lemmas = {_forms().get(w) for w in low}
    if (
        set(low) & _AUDIENCE
        and len(low) <= 10
        and not set(low) & named
        and not lemmas & (_EVENT_VERBS | set(VERBS["claim"]))
    ):
        return True  # "Back to you in the studio.", "Can you believe it?": to the audience, of nothing in the story
    if len(set(low)) == 1 and len(tokens) < 6 and not lemmas & _GOING:
        return True  # "Plop!", "Skip, skip, skip!": one word, said again, names no one and nowhere ("Exits." does)
    people = {"he", "she", "they", "him", "her", "them", "everyone", "everybody", "all", "both", "it"}
    return len(low) <= 6 and not (
        set(low) & (people | _MOVING_WORDS | named) or lemmas & (_EVENT_VERBS | set(VERBS["claim"]))
    )


#: Words for the teller and the audience: never a person of the story.
_AUDIENCE = frozenset("you we us i me folks".split())


def _tells_event(aside: list[str]) -> bool:
    """Whether an aside in brackets tells an event (a finite verb of going, leaving, placing or
    taking) rather than restating a state: "(leaving the hallway)", "(having left the hall)", "(only
    Jack is left)", "(Noah remains)" restate; "(who then moved the pear to the box)" tells."""
    low = [t.lower() for t in aside]
    return any(
        _forms().get(w) in _EVENT_VERBS and not w.endswith("ing") and (k == 0 or low[k - 1] not in _STATE_AUX)
        for k, w in enumerate(low)
    )


_STATE_AUX = frozenset("having is was are were been be".split())


def _group_word(clause: list[str]) -> bool:
    """Whether a clause starts with a word for several people ("all", "both", "everyone", "3")."""
    first = clause[0].lower() if clause else ""
    return first in ("all", "both", "each", "everyone", "everybody") or first in _NUMBERS


def _without_reason(tokens: list[str]) -> list[str] | None:
    """The sentence without its reason ("..., because she was bored", "Because it was late, ..."),
    which tells no event; None when the reason tells one ("because Ben had moved it": read as what?)."""
    low = [t.lower() for t in tokens]
    if "because" not in low:
        return tokens
    i = low.index("because")
    end = low.index(",", i) if i == 0 and "," in low else len(tokens)
    if _tells_event(tokens[i + 1 : end]):
        return None
    return tokens[:i] + tokens[end + 1 :]


#: "The corn's in the drawer to start with": where it is as the story starts is where it is then
#: (a question's "at first" asks the past: see questions.py, which keeps it).
_AT_FIRST = re.compile(
    r",?\s*\b(?:to start with|to begin with|at first|initially|at the start)\b(?=\s*[,.!;]|\s*$)", re.I
)


#: A commentator's move: "Nathan answers back — tomato to the red drawer!", "And Ella again: corn into the box!".
_CALLED_MOVE = re.compile(
    r"^(?:(?i:and|now|then|oh|so),?\s+)*(?P<who>[A-Z][a-z]+)(?P<mid>[^—–:]*?)\s*(?:[—–:]|\s-)\s*(?:the )?"
    r"(?P<obj>[a-z][a-z ]*?) (?:(?:goes|drops|lands|disappears) )?(?P<to>in to|into|to|onto) the (?P<c>[a-z][a-z ]*?)"
    r"\s*[!.]*$"
)
#: The thing going into a container after a dash: "Nathan wastes no time — the peach goes into the green basket!"
_GOES_INTO = re.compile(
    r"^(?:the )?[a-z]+(?: [a-z]+)? (?:goes|drops|lands|disappears) (?:into|in to|onto) the [a-z ]+[!.]*$"
)


def _called_move(sentence: str, context: Context) -> str:
    """ "<name> <how> — <object> into / to the <container>!" as "<name> moves the <object> into the
    <container>.", where the name is the story's, the object one of its objects (or "it") and the words
    between say no going, no place and no one else ("answers back", "steps up", "again", "moves it
    right away"); the sentence as it is otherwise."""
    m = _CALLED_MOVE.match(sentence.replace("’", "'"))
    if m is None or m["who"] not in context.agents:
        return sentence
    obj = "_".join(m["obj"].split())
    mid = re.findall(r"[A-Za-z']+", re.sub(r"\b(?:right|straight) away\b", "", m["mid"]))
    named = {w.lower() for p in context.places for w in p.split("_")}
    if (obj not in context.objects and obj != "it") or any(
        w[:1].isupper() or w.lower() in (_MOVING_WORDS - {"up", "back"}) | named for w in mid
    ):
        return sentence
    return f"{m['who']} moves the {m['obj'] if obj != 'it' else 'it'} {m['to']} the {m['c']}."


#: An exclamation of lower-case words that tells nothing: "What a move!", "Such a finish!", "How exciting!",
#: "Sensational stuff!", or a commentator's hand-back ("Back to you in the studio!").
_EXCLAMATION = re.compile(
    r"^\s*(?:(?:oh|and|wow|well|now)[,!]?\s+)*(?:(?:what an?|such an?|how)\s+[a-z-]+(?:\s+[a-z-]+){0,3}|[a-z-]+ stuff"
    r"(?:,? (?:this|that|here))?|(?:back|over) to (?:you|the studio)(?: in the studio)?)\s*[!.?]*\s*$",
    re.I,
)


#: A thing of someone's gone missing: "Her watch is gone.", "Abigail's watch has gone missing, apparently.", after a
#: colon too ("She glances at her wrist: her watch is gone.").
_LOST = re.compile(
    r"(?:^|(?<=:\s))(?P<owner>[A-Z][a-z]+'s|[Hh]is|[Hh]er|[Tt]heir) "
    r"(?P<thing>[a-z]+(?: (?!(?:is|was|are|were|has|have|had)\b)[a-z]+)?) (?:is|was|are|were|has|have|had)?\s*"
    r"(?:gone |went )?(?:lost|gone|missing)(?:,? apparently)?(?=\s*[.!]*\s*$)"
)


#: A picture book's word said again before a name or what made a sound: "Busy, busy Abigail!", "Tap, tap, tap go their
#: feet!" (no event: the word is no verb of the reader's and the rest no thing or place of the story); "The end!".
_SAID_AGAIN = re.compile(
    r"^\s*(?:(?:and|oh),?\s+)?(?P<word>[A-Za-z]+)(?:,?\s+(?P=word)\b)+,?\s+(?:(?P<who>(?:little |dear )?[A-Z][a-z]+)|"
    r"(?:go|goes|went) (?:their|his|her|its|the) (?P<thing>[a-z]+))\s*[!.]*\s*$",
    re.I,
)
_THE_END = re.compile(r"^\s*(?:and\s+)?the end\s*[!.]*\s*$", re.I)


def _said_again(sentence: str, context: Context) -> bool:
    """Whether a sentence is :data:`_SAID_AGAIN`'s exclamation, telling no event."""
    m = _SAID_AGAIN.match(sentence)
    if m is None or m["word"].lower() in _forms() or m["word"].lower() in _MOVING_WORDS | _PARTICLES:
        return False  # "Go, go, Abigail!", "In, in, in goes ...": words of going are read (or refused)
    if m["who"] is not None:
        return m["who"].split()[-1] in context.agents
    named = {w.lower() for p in context.places | context.objects for w in p.split("_")}
    return m["thing"] not in named


#: A chat's "yeets it into the box": tosses it (read before spelling is mended: "yeets" is no typo of "yells").
_YEET = re.compile(r"\byeet(s|ed|ing)?\b", re.I)

#: "X does the same: <what she did>" (the words after the colon say it).
_SAME_COLON = re.compile(r"^(?P<who>[A-Z][a-z]+) (?:does|did) (?:the same(?: thing)?|likewise):\s*(?P<rest>.+)$")


def _lost(m: re.Match, context: Context) -> str:
    """ "her watch is gone" as "Abigail loses her watch" (her: the one person the sentence before was
    about); kept as written when whose it is is unclear."""
    owner = m["owner"].removesuffix("'s")
    if m["thing"].replace(" ", "_") in context.places | context.objects:
        return m[0]  # "Ann's red box is gone": the story's own box (refused)
    if owner.lower() in ("his", "her", "their"):
        before = m.string[: m.start()]  # "Ines pats her pockets: her phone is gone": Ines's
        named = {w for w in re.findall(r"\b[A-Z][a-z]+\b", before) if w in context.agents}
        pronoun = re.match(r"\s*(?:(?:then|and|now)\s+)*(?:he|she)\b", before, re.I)
        subject = tuple(named) if named or before and not pronoun else context.subject
        if len(subject) != 1:
            return m[0]
        owner = subject[0]
    return f"{owner} loses the {m['thing']}"


#: A sentence that tells what happened before the sentence before it ("Before that, ...", "Earlier,
#: ...", "... had earlier moved ..."): the DEL engine reads events in the order told, so it is refused.
_BACKWARD = re.compile(
    r"^\W*(?:before (?:that|this|then|doing so)|earlier(?: on)?|prior to (?:that|this))\b"
    r"|\bhad (?:earlier|previously|already|before) \w+",
    re.I,
)


def read_sentence(sentence: str, context: Context) -> list[str] | None:
    """The template sentences a sentence in a user's words means (several for joined clauses, none
    for "took the O out" before the move, or for a thought: "It looked better there, she
    thought."), or None when any part of it cannot be read. ``context`` is updated with the agents
    and object the sentence was about."""
    if _THREAD_TALK.match(sentence) or _EXCLAMATION.match(sentence) or _THE_END.match(sentence):
        return []  # "end of thread", "What a move!": no event
    if _said_again(sentence, context):
        return []  # "Busy, busy Abigail!": no event
    if _SPEECH_NOT_READ.match(sentence):
        return None  # a script's speech heard by whom, or saying what? (script_dialogue)
    if _BACKWARD.search(sentence):
        return None  # "Before that, Anne had moved the marble to the drawer.": read in text order, it came last
    sentence = _called_move(sentence, context)
    sentence = _LOST.sub(lambda m: _lost(m, context), sentence)
    sentence = _without_aside(sentence, context)
    if (same := _SAME_COLON.match(sentence)) and not any(w.lower() in _forms() for w in re.findall(r"[A-Za-z']+",
                                                                                                   same["rest"])):
        sentence = f"{same['who']}: {same['rest']}"  # "Ella does the same: a still minute." (what she did, no verb)
    sentence = _YEET.sub(lambda m: "toss" + ("es" if m[1] == "s" else m[1] or ""), sentence)  # before respelling
    tokens = tokenize(_AT_FIRST.sub("", respell(sentence, context)))
    read = _read_clauses(tokens, context)
    if read is None:
        if _no_event(tokens, context):  # no clause read alone, but the whole moves nothing
            c = Clause(tokens, context)
            c.skip_adverbs()
            context.subject = tuple(c.names() or context.subject)
            return []
    return read


#: An aside between commas after who acts: "Ann, for reasons of her own, moved ...", "Ben, as was his habit, left".
_SUBJECT_ASIDE = re.compile(
    r"^(?P<who>(?:(?:And|Then|So|Now|But),?\s+)?(?:(?:Miss|Mr\.?|Mrs\.?|Master|Young|Little)\s+)?(?P<name>[A-Z][a-z]+)),"
    r"\s+(?P<aside>[^,;:()—–]{3,60}?),\s+(?P<rest>[a-z].*)$"
)


#: The first words of an aside that tells how or why, not what: "for reasons of her own", "as was his habit".
_ASIDE_STARTS = frozenset("for as to of with in on by at despite true naturally predictably characteristically it "
                          "alas sadly happily luckily strangely oddly curiously frankly indeed surely".split())
#: Words that make an aside tell what someone did: "in perfect stillness" (a minute's stay), "to the box".
_ASIDE_EVENTS = frozenset("minute minutes moment still stillness motion motionless movement movements moving move "
                          "stirring wait waiting who which whom".split())


def _without_aside(sentence: str, context: Context) -> str:
    """The sentence without an aside after its subject that names nothing of the story and tells no
    event ("Ann, for reasons of her own, moved the pear ..."); the sentence as it is otherwise."""
    m = _SUBJECT_ASIDE.match(sentence)
    if m is None or m["name"] not in context.agents:
        return sentence
    words = re.findall(r"[A-Za-z]+", m["aside"])  # "Theo's" names Theo
    story_words = {w for name in context.places | context.objects | context.agents for w in name.lower().split("_")}
    if words[0].lower() not in _ASIDE_STARTS or any(w.lower() in story_words | _ASIDE_EVENTS for w in words):
        return sentence  # "Noah, a minute of stillness, ...", "Abigail, who dislikes potatoes, ...": they tell
    if _tells_event(words):
        return sentence
    return f"{m['who']} {m['rest']}"


def _read_clauses(tokens: list[str], context: Context) -> list[str] | None:
    """:func:`read_sentence`, clause by clause."""
    while "(" in tokens:  # an aside in brackets: skipped unless it tells of an event
        i = tokens.index("(")
        j = tokens.index(")", i) if ")" in tokens[i:] else len(tokens)
        if _tells_event(tokens[i + 1 : j]):
            return None
        tokens = tokens[:i] + tokens[j + 1 :]
    tokens = [t for t in tokens if t != ")"]
    tokens = _without_reason(tokens)
    if tokens is None:
        return None
    if not [t for t in tokens if t not in (",", ";", ":")]:
        return []  # "Oh no!": nothing but an interjection
    low = [t.lower() for t in tokens]
    subject = context.subject
    if ":" in low and any(_forms().get(w) in VERBS["claim"] for w in low[: low.index(":")]):
        # "Ann whispers to Bob: the pear is in the box" is what she says ("..., she says, ..." again), not a fact
        k = low.index(":")
        said = [t.lower() for t in tokens[k + 1 :]]
        for j in range(len(said) - 3):
            if said[j] == "," and said[j + 1] in ("he", "she", "they") and said[j + 3] == ",":
                if _forms().get(said[j + 2]) in VERBS["claim"]:
                    tokens = [*tokens[: k + 1 + j], *tokens[k + 1 + j + 4 :]]
                    break
        tokens = [*tokens[:k], "that", *tokens[k + 1 :]]
        low = [t.lower() for t in tokens]
    elif ":" in low and not any(_forms().get(w) in _EVENT_VERBS for w in low[: low.index(":")]):
        # "Hannah did the same: she ...", "Then it's Mila's turn: she ...": the words after say it, about her
        named = [t.removesuffix("'s") for t in tokens[: low.index(":")] if is_name(t, context.agents)]
        probe = Clause(tokens[low.index(":") + 1 :], context)
        if named and _location_clause(probe) and probe.done():
            return None  # "And Ava, a word to Ben: the pear is in the box": said to him, not a fact (refused)
        before, after = low[: low.index(":")], low[low.index(":") + 1 :]
        again = [w for w in before if w not in ("and", "then", "so", ",")][:1]  # "(So) is the onion: it's ..."
        if again and again[0] in _DO + _BE and {"it", "it's"} & set(after):
            return None  # "So is the onion: it's in the pantry too": "it" was the thing named before the onion
        subject = tuple(named[:1]) or subject
        tokens = tokens[low.index(":") + 1 :]
        low = [t.lower() for t in tokens]
    where = None
    if len(low) > 3 and low[0] in ("in", "at", "inside") and "," in low[:6]:  # "In the hallway, Ella moved ..."
        c = Clause(tokens[1 : low.index(",")], context)
        where = _place(c)
        if where not in context.places or not c.done():
            return None
        tokens = tokens[low.index(",") + 1 :]
    if not tokens:
        return None
    gone_on = context.moved and _gapped(tokens) and [t.lower() for t in tokens] != ["the", "end"]  # "Then the bag."
    if _says_nothing(tokens, context) and not gone_on:
        # "Tick, tock.", "Oh no!", "The end!": about no one and nothing of the story; but after "X did the
        # same:" the words say what X did ("Ella does the same: a still minute." was read as nothing, and
        # "She exits" after it as the one before her leaving)
        return None if subject != context.subject else []
    clauses = _clauses(_relative_first(tokens))
    if clauses is None:
        return None
    mentioned = frozenset(t for t in tokens if is_name(t, context.agents) and t in context.agents)
    out: list[str] = []
    obj, holding, room, moved = context.obj, context.holding, context.room, context.moved
    predicate = list(context.predicate)
    rooms, left = dict(context.rooms), dict(context.left)  # as the sentence's clauses move people
    for index, clause in enumerate(clauses):
        background = bool(clause) and clause[0] == _BACKGROUND
        clause = clause[background:]
        if clause and clause[0] == "__subject__":  # "Having moved it, Ann left": the next clause's subject
            main = Clause(clauses[index + 1], context).names() if index + 1 < len(clauses) else None
            who = main or subject
            clause = [*who[:1], *clause[1:]] if len(who) == 1 else clause[1:]
        if moved and _gapped(clause) and _container_named(clause, context):  # "(Ann moved it.) Then the box."
            clause = [*(w for w in clause if w != "," and w.lower() in ADVERBS), "to", *(w for w in clause if w != ","
                      and w.lower() not in ADVERBS)]  # fmt: skip
        if moved and _destination_first([w.lower() for w in clause]):  # "... and then (back) to the bag (by Bob)"
            mover = [clause[k + 1] for k in range(len(clause) - 1) if clause[k].lower() == "by"]
            clause = [w for w in clause if w not in mover and w.lower() != "by"]
            clause = [mover[0] if mover else moved[0], "moved", "the", moved[1], *clause]
        leaving = [w.lower() for w in clause[:2]]
        if out and " entered the " in out[-1] and (leaving[:1] == ["leaving"] or leaving == ["having", "left"]):
            continue  # "enters the den, leaving the hall": entering one room is leaving the other
        if (
            out
            and leaving[:1] == ["leaving"]
            and leaving[1:] not in (["for"], ["to"])
            and not _leaves_room(clause, context)
        ):
            continue  # "leaves, leaving the pear in the box / Ann behind": where they were, no event
        onward = (
            _destination_first([w.lower() for w in clause]) and not moved
        )  # "goes into the den, then into the hall"
        if predicate and (_gapped(clause) or onward):  # "enters the den, then the hall": the verb before, again
            entering = predicate[1:2] and predicate[1].lower() in _ENTERING and not onward
            verb = predicate[:2] if entering else predicate[:1]
            clause = [*subject[:1], *verb, *clause] if len(subject) == 1 else ["they", *verb, *clause]
        if index > 0 and len(clause) > 2 and clause[0].lower() == "there" and is_name(clause[1], context.agents):
            clause = clause[1:]  # "(went into the den,) and there Ben declared ...": in the room just named
        gap = _subject_gap(clause) if index > 0 and predicate else None
        if gap is not None and _forms().get(predicate[0].lower()) in _GAP_VERBS:
            # "Ava entered the den, and Abigail the sunroom": the verb before, of the people named (a place only)
            place = _place(Clause(clause[gap:], context), room=True)
            if place is None or not (place in context.places or set(place.split("_")) <= ROOM_WORDS):
                return None
            entering = predicate[1:2] and predicate[1].lower() in _ENTERING
            clause = [*clause[:gap], *predicate[: 1 + bool(entering)], *clause[gap:]]
        if predicate and (doer := _ellipsis(clause)):  # "..., and then Mila does too", "and so is the onion"
            if {"same", "likewise"} & {w.lower() for w in clause} and len(clauses) > 1 and index != 1:
                return None  # "Ella does the same (...) and exits": the same as which of the clauses before?
                # (second in its sentence, it is the first clause's: "Ben left the hall; Ann did likewise")
            if clause == doer and (index == 0 or len(clauses) == 1):
                return None  # "Owen!", "Satisfied at last, she ...": a word alone says again only after a clause
            clause = [*doer, *predicate]
        here = replace(context, subject=subject, obj=obj, mentioned=mentioned - set(subject), holding=holding,
                       room=room, background=background, rooms=rooms, left=left)  # fmt: skip
        c = Clause(clause, replace(here))
        read = _read_clause(c) if clause else None
        verb_first = index == 0 and clause[:1] != [] and clause[0][:1].isupper() and clause[0].lower() in _forms()
        if read is None and subject and not _group_word(clause) and not (verb_first and len(subject) != 1):
            # no subject of its own: the one before ("... and put it in the box"; a script's "Exits." after
            # one person's line, not after several); not after "all" / "both" / "all 3", which name others
            c = Clause([*subject[:1], *clause] if len(subject) == 1 else ["they", *clause], replace(here))
            read = _read_clause(c)
        if read is None and (_no_event(clause, here) or _where_already(clause, here)):
            c = Clause(clause, replace(here))  # "It looked better there, she thought.": no event
            read = [], tuple(c.names() or ())
        if read is None:
            return None
        out += read[0]
        subject, obj, holding = read[1] or subject, c.context.obj or obj, c.context.holding
        predicate = c.t[_subject_end(c.t, here) :]
        pronoun = next((w.lower() for w in clause if w != ","), "") in ("he", "she", "they")
        for event in map(parse_line, read[0]):
            moved = (event.agent, event.obj) if isinstance(event, Move) else None  # "then to the C" goes on with it
            if hasattr(event, "room"):  # entering, leaving, staying: the room named last
                if pronoun and isinstance(event, Enter) and all(rooms.get(a) == event.room for a in event.agents):
                    return None  # "Sally left. Anne ... Then she returned to the bedroom.": she is Sally?
                room = event.room
                move_people(rooms, event)
                if isinstance(event, Exit):
                    left[event.agent] = event.room
    if where is not None and any(context.rooms.get(a) != where for a in subject):
        return None  # "In the hallway, Ella ...": Ella was not in the hallway
    context.subject, context.obj, context.room, context.predicate = subject, obj, room, tuple(predicate)
    context.holding = holding  # a thing taken and not put: the next sentence must put it (read_story)
    return out


def story_names(text: str) -> list[str]:
    """The people a story in own words names, in order of first mention: capitalised words that are
    no function word and either no English word ("Anne"), or capitalised away from a sentence's start
    too ("Now Sally comes back": "Sally", not "Now"), or starting two sentences or more without being
    an adverb ("Sally ... Sally ...")."""
    inside: dict[str, bool] = {}  # name -> seen away from a sentence's start
    starts: dict[str, int] = {}
    for line in text.splitlines():
        for sentence in sentences(line):
            words = re.findall(r"[^\W\d_][\w-]*", sentence)
            for k, word in enumerate(words):
                if (
                    word[:1].isupper()
                    and word.lower() not in FUNCTION_WORDS | ADVERBS
                    and word not in NOT_NAMES.split()
                ):
                    inside[word] = inside.get(word, False) or k > 0
                    starts[word] = starts.get(word, 0) + (k == 0)

    def named(word: str) -> bool:
        lemmas = _lemmas(word.lower())
        return inside[word] or not lemmas or starts[word] >= 2 and not set(lemmas) <= {"ADV", "ADJ"}

    return [w for w in inside if named(w)]


def sentences(line: str) -> list[str]:
    """A line's sentences: a user may write a whole story on one line, and in a chat start a
    sentence in lower case ("Theo leaves. all go in")."""
    pieces = re.split(
        r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Za-z0-9\-*•(\"'“‘])|(?<=[.!?][)\"”’'])\s+(?=[A-Z])", line.strip()
    )
    pieces = [part for piece in pieces for part in _dashed(piece)]
    out: list[str] = []
    for piece in pieces:
        if out and _open_quote(out[-1]):
            out[-1] += " " + piece  # 'whispers in Ella's ear, "Psst! The pear is in the box."': one speech
            continue
        named = _NAME_ALONE.match(out[-1]) if out else None
        again = named and re.match(rf"(?:(?:and|now|then|oh),?\s+)*{named[1]}\b(?!')", piece, re.I)
        if again and out[-1].endswith("!"):
            out[-1] = piece  # "And Mia! Mia moves the pear ...": the name introduced says nothing more
        elif out and piece[:1].islower() and out[-1].split()[-1].lower() in _ABBREVIATIONS:
            out[-1] += " " + piece  # "e.g. the box" is one sentence
        elif piece:
            out.append(piece)
    return out


#: A name alone, as a commentator introduces who acts next: "Here's Noah", "And Ella again", "Over to Ava".
_NAME_ALONE = re.compile(r"^(?:(?:and|now|then|here's|here is|over to|"
                         r"it's)\s+)*([A-Z][a-z]+)(?:\s+again)?\s*[!.]*$", re.I)


def _open_quote(text: str) -> bool:
    """Whether a piece of a line ends inside a quotation (double quotes: an apostrophe is no quote)."""
    return (text.count('"') % 2 == 1 or text.count("“") > text.count("”")) and len(text) < 400


def _dashed(text: str) -> list[str]:
    """A chat's events between dashes as sentences ("Ann goes in - the pear's in the box - Bob leaves"),
    but a dash before what goes on with the sentence stays in it: a destination or a fragment with no verb
    ("Ella moves the pear — into the red box!", "here they come into the den — Ann, Bob and Cy!")."""
    parts = re.split(r"\s+[-–—]+\s+", text)
    out = parts[:1]
    for part in parts[1:]:
        words = re.findall(r"[A-Za-z']+", part.lower())
        verb = any(w in _forms() or w.endswith("'s") or w in BARE_CONTRACTIONS for w in words)
        named = _NAME_ALONE.match(out[-1])
        heading = not re.search(r"[a-z]", part) or not re.search(r"[a-z]", out[-1])  # "INT. HALL - DAY"
        if words and not verb and not heading or _GOES_INTO.match(part) and re.match(r"[A-Z][a-z]+\b", out[-1]):
            out[-1] += " — " + part  # (the second read as the name's move, or not at all: _called_move)
        elif named and re.match(rf"(?:(?:and|now|then|oh),?\s+)*{named[1]}\b", part, re.I):
            out[-1] = part  # "Here's Noah — Noah moves the pear ...": the name introduced says nothing more
        else:
            out.append(part)
    return out


_ABBREVIATIONS = frozenset("mr. mrs. ms. dr. st. vs. etc. e.g. i.e. approx. no.".split())
