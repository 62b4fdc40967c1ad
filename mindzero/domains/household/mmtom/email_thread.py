"""An e-mail thread pasted whole (forwarded, replied to, quoted), unwrapped into the story it
tells: :func:`unwrap_thread` puts the message bodies in the order they were written, oldest first,
and the question with its options last, where the reader looks for it.

What it knows of mail clients' habits:

- headers: ``From:`` / ``To:`` / ``Cc:`` / ``Sent:`` / ``Date:`` / ``Subject:`` blocks (Outlook's,
  Gmail's and Thunderbird's forwards, Apple Mail's "Begin forwarded message:", ``*From:*`` in bold,
  a wrapped list of addresses), separators (``-----Original Message-----``, ``---------- Forwarded
  message ---------``, ``-------- Forwarded Message --------``, Outlook's line of underscores) and
  attributions ("On Fri, 19 Jul 2024 at 10:41, Omar <o@x.com> wrote:", wrapped over two lines or
  not, "Omar <o@x.com> writes:", "Quoting Omar:", mutt's "* Omar <o@x.com> [2024-07-19 10:41]:");
- quoting: ``> `` marks, nested as ``> >`` or ``>>``. The deeper a quote, the older its message,
  and a message below another's headers, separator or attribution is older than that one
  (top-posting); a reply under its quote (bottom-posting, mailing lists) or between quoted lines
  (inline replies) comes after what it quotes. A line quoted again in a later message is read once;
- in each message: the greeting ("Hi Priya,", "Omar,", "Dana - forwarding ..."), the sign-off with
  the signature under it ("Cheers,\\nHannah", name, title, company and phone lines, a ``--`` line and
  all below it, a name or initial alone at the end), "Sent from my iPhone", "[snip]", "[image: ...]";
- footers: confidentiality and legal notices, "This email originated from outside ..." banners, a
  mailing list's footer under its line of underscores;
- chatter: what follows the question's options ("Just a or b is fine."), questions to the
  correspondent ("Thoughts?", "Can you have a look?"), and sentences about the correspondents that
  name nothing of the apartment ("Forwarding Jo's layout, plus my notes.", "Going by Sam's notes
  below: if ..."), so that no correspondent is taken for the person.

All of it is said in notes (one for the thread, one per kind of line left out, naming the first);
what is left is read as prose, and outlines and tables inside a quote are read by :mod:`.formats`
once the quote marks are gone. A text with no header block, separator or attribution is no thread
and passes untouched: a few substring tests decide, so that a story pays next to nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mindzero.core.errors import UserError
from mindzero.domains.household.mmtom.lexicon import household_words, text_note

#: Substrings one of which every thread has (lower case): the cheap test before any parsing.
CLUES = ("from:", "from*:", "sent:", "wrote:", "writes:", "original message", "forwarded", "quoting", "]:")
HEADER_NAMES = (
    r"from|to|cc|bcc|sent|date|subject|reply-to|importance|priority|attachments?|organi[sz]ation|"
    r"message-id|in-reply-to|references|sender|x-[\w-]+|content-[\w-]+|mime-version"
)
#: A header line ("From: Dana <d@x.org>", "*Sent:* Wednesday, ...", "**Subject:** RE: ...").
HEADER = re.compile(
    rf"^\s*[*_]{{0,2}}(?P<name>{HEADER_NAMES})[*_]{{0,2}}\s*:[*_]{{0,2}}(?:\s+(?P<value>.*?))?\s*$", re.I
)
#: A line over a forwarded or replied-to message.
SEPARATOR = re.compile(
    r"^\s*(?:-{2,}\s*[^-\n]{0,40}?\b(?:original|forwarded|reply)\s+message\b[^-\n]{0,40}-*"
    r"|-{2,}\s*forwarded by\b.*|begin forwarded message\s*:?|forwarded message\s*:|_{8,}|-{2,}\s*original\s*-{2,})\s*$",
    re.I,
)
#: "On Fri, 19 Jul 2024 at 10:41, Omar Siddiqui <o@x.com> wrote:", "Omar <o@x.com> writes:",
#: "Quoting Omar:", mutt's "* Omar <o@x.com> [2024-07-19 10:41]:".
ATTRIBUTION = re.compile(
    r"^\s*(?:on\b.{0,240}\b(?:wrote|writes|said)|.{1,160}?\b(?:wrote|writes))\s*:\s*$"
    r"|^\s*quoting\b.{1,160}:\s*$|^\s*\*\s.{1,120}\[\d{2,4}-\d{2}-\d{2,4}[^\]]*\]\s*:\s*$",
    re.I,
)
#: The first line of a wrapped attribution ("On Fri, 19 Jul 2024 at 10:41, Omar Siddiqui <").
ATTRIBUTION_START = re.compile(r"^\s*on\s+(?:mon|tue|wed|thu|fri|sat|sun|\d|[a-z]+ \d)", re.I)
#: An attribution's date and verb, around the name: "On Mon, 2 Sep 2024 at 17:02, " ... " wrote:".
WHEN_WROTE = re.compile(r"^\s*on\b.*?\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?,?|\b(?:wrote|writes|said)\s*:\s*$", re.I)
QUOTE = re.compile(r"^(?P<marks>(?:[ \t]*>)+)[ \t]?")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: "Sent from my iPhone", "Get Outlook for iOS", "Sent via BlackBerry", "Sent from Mail for Windows".
MOBILE = re.compile(
    r"^\s*(?:sent (?:from|via|with|using) (?:my )?\w.{0,40}|get outlook for \w+)\s*(?:<[^>]*>)?\s*$", re.I
)
#: Words of a confidentiality or legal notice, a warning banner or a mailing list's footer.
FOOTER = re.compile(
    r"\b(?:confidential\w*|privileged|intended (?:solely |only )?for|intended recipient|received (?:this|it) in error"
    r"|notify the sender|disclaimer|registered (?:in|office)|company (?:no|number)|originated from outside"
    r"|do not click|unsubscribe|mailing list|listinfo|consider the environment|scanned for viruses|liability)\b",
    re.I,
)
#: A sign-off ("Cheers,", "Thanks!", "Best,", "Love,", "BW"): a message's last words before a name.
SIGN_OFF = re.compile(
    r"^\s*(?:cheers|thanks|thank you|thx|ta|many thanks|best|best wishes|bw|regards|kind regards|warm regards"
    r"|best regards|love|lots of love|all the best|take care|sincerely|yours(?: sincerely| truly)?|talk soon"
    r"|speak soon|xx+)\b[^\n]{0,20}$",
    re.I,
)
#: A greeting line ("Hi Sam,", "Dear all,", "Morning team!", "Hello,").
GREETING = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear|morning|afternoon|evening|hiya|good (?:morning|afternoon|evening))\b[^.!?\n]{0,30}"
    r"|all|team|folks|everyone)\s*[,!:]?\s*$",
    re.I,
)
#: A correspondent addressed before the first sentence: "Dana - forwarding ...", "Hi Omar, here's ...".
ADDRESSED = re.compile(r"^\s*(?:(?:hi|hey|hello|dear)\s+)?(?P<name>[A-Z][\w'-]*)\s*[-–—:,]\s+(?=\S)")
#: An option label that starts a line: "(a) ...", "b) ...", "A. ...", "- (b) ...".
OPTION_LINE = re.compile(r"^\s*(?:[-*•]\s*)?\(?[a-eA-E](?:\)|[.:])\s+\S")
#: An option's label anywhere in a line: "(b) ...", "or b) ...".
OPTION_LABEL = re.compile(r"(?:^|\s)\(?[a-eA-E]\)\s")
#: Lines that say nothing: "[snip]", "<snip>", "...", "[image: logo.png]", "<image001.png>".
SNIP = re.compile(
    r"^\s*(?:[\[<(]\s*(?:snip\w*|\.\.\.|…|image\b[^\]>]*|cid:[^\]>]*|attachment\b[^\]>]*)\s*[\]>)]|\.{3}|…"
    r"|<image\d*\.\w+>)\s*$",
    re.I,
)
#: Contact details in a signature: a phone number, an address, a web site, "T:" / "M:" fields.
CONTACT = re.compile(r"\+?\d[\d ()-]{6,}\d|@|www\.|https?://|\b(?:tel|mob|mobile|phone|fax|t|m|e|w)\s*[:.]", re.I)
#: A walk, an opening or a closing: a sentence that says what someone did.
ACTS = re.compile(
    r"\b(?:walk\w*|went|goes|gone|head(?:s|ed)|mov(?:e|es|ed)|open\w*|clos\w*|shut\w*|start\w*|enter\w*)\b", re.I
)
#: A question's premise: "Suppose he wants a plate.", "If Ravi has been trying to get ...".
PREMISE = re.compile(r"^\s*(?:if|suppose|assume|assuming|given|say|imagine)\b", re.I)
PRONOUN = re.compile(r"\b(?:he|she|they|him|her|them)\b", re.I)
#: A company's name in a signature ("Kitchen Solutions Ltd").
COMPANY = re.compile(r"\b(?:ltd|limited|inc|llc|llp|plc|gmbh|co\.|corp\.?|group)\b", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+")
#: A link's target pasted after its text by an HTML-to-text conversion: "o@x.org<mailto:o@x.org>",
#: "the plan<https://x.org/p>", "[mailto:o@x.org]".
LINK_ARTEFACT = re.compile(r"<(?:mailto:|https?://)[^<>\s]*>|\[mailto:[^\]\s]*\]", re.I)
#: A bullet glyph that Word's or Outlook's HTML-to-text conversion leaves ("·         desk", "o   1st: empty",
#: "§  plate"): the glyph says the level ("·" / "•" first, "o" second, "§" / "▪" third).
GLYPH = re.compile(r"^(?P<indent>[ \t]*)(?P<glyph>[·•\uf0b7o◦\uf0a7§▪])(?:[ \t\u00a0]{2,}|\t)(?=\S)")
LEVEL = {"·": 0, "•": 0, "\uf0b7": 0, "o": 1, "◦": 1, "\uf0a7": 2, "§": 2, "▪": 2}


@dataclass
class _Line:
    number: int  # 1-based, in the text as written
    depth: int  # quote marks before it
    text: str  # without them (what is left of it to read)
    written: str  # without them, as written
    age: tuple[int, int] = (0, 0)  # (messages started above it at its depth or less, depth): larger is older
    kind: str = "body"  # body; or header, separator, attribution, or why it was left out
    asides: int = 0  # sentences of it left out as chatter
    message: int = -1  # which message of the thread it is in, counted as written


def unwrap_thread(text: str) -> tuple[str, list[dict]]:
    """(the thread's story, oldest message first and the question last; a note for the thread and
    for each kind of line left out), or the text as it is when it is no e-mail thread."""
    low = text.lower()
    if not any(clue in low for clue in CLUES):
        return text, []
    text, digest = _digest(text.replace("\r\n", "\n")) if "digest" in low or "today's topics" in low else (text, None)
    lines = _parse(text)
    if not any(line.kind in ("separator", "attribution") for line in lines) and not _mail_headers(lines):
        return text, []  # a memo's "From: night staff / Subject: Mark" is no e-mail
    names = _correspondents(lines)
    _age(lines)
    messages = _messages(lines)
    for message in messages:
        _trim(message, names)
        _rejoin(message)
    ordered = sorted(messages, key=lambda m: m[0].age, reverse=True)  # stable: as written within one age
    _read_once(ordered)
    body = [line if line and line.text.strip() else None for message in ordered for line in [*message, None]]
    body = _question_last(_asides([line for line in body if line is None or line.kind == "body"], names))
    story = re.sub(r"\n{3,}", "\n\n", "\n".join("" if line is None else line.text for line in body).strip("\n"))
    if not story.strip():
        raise UserError("the e-mail thread has no message text (only headers, signatures and footers)")
    reordered = [m[0].number for m in messages] != [m[0].number for m in ordered]
    return story, _notes(lines, len(messages), reordered) + ([digest] if digest else [])


#: A digest's message heading ("Message: 2"), and what ends a message: a line of dashes, underscores
#: or stars, "End of obs Digest, Vol 12, Issue 4".
DIGEST_MESSAGE = re.compile(r"^\s*Message:\s*\d+\s*$", re.I)
DIGEST_END = re.compile(r"^\s*(?:-{10,}|_{10,}|\*{10,}|=\s*){1}\s*$|^\s*End of .{1,120}\bDigest\b", re.I)


def _digest(text: str) -> tuple[str, dict | None]:
    """A mailing list's digest (Mailman's, Google Groups', LISTSERV's): its preamble, "Today's Topics",
    footer and the messages that name nothing of the apartment blanked out (line numbers kept)."""
    lines = text.split("\n")
    starts = [k for k, line in enumerate(lines) if DIGEST_MESSAGE.match(line)]
    if not starts:
        return text, None
    home, bodies = household_words(), []
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        cut = next((k for k in range(start + 1, end) if DIGEST_END.match(lines[k])), end)
        said = " ".join(x for x in lines[start + 1 : cut] if not HEADER.match(x) and not x[:1].isspace() or
                        not HEADER.match(x) and x.strip() and not x.startswith("\t"))  # fmt: skip
        bodies.append((start, cut, len(home.findall(said))))
    kept = [b for b in bodies if b[2] >= 2] or bodies
    keep = {k for start, cut, _ in kept for k in range(start + 1, cut)}
    out = [line if k in keep else "" for k, line in enumerate(lines)]
    shown = ", ".join(str(starts.index(b[0]) + 1) for b in kept)
    why = f"read as a mailing-list digest: message(s) {shown} of {len(starts)} kept (the others name nothing of "
    why += "the apartment); its preamble, topics and footer left out"
    return "\n".join(out), text_note(starts[0] + 1, "format", lines[starts[0]].strip(), why)


def _parse(text: str) -> list[_Line]:
    """The lines with their quote depth, and which are headers, separators, attributions and list footers."""
    lines = []
    for number, raw in enumerate(text.split("\n"), start=1):
        m = QUOTE.match(raw)
        said = raw[m.end() :] if m else raw
        lines.append(_Line(number, m["marks"].count(">") if m else 0, _unconverted(said), said))
    home = household_words()
    for k, line in enumerate(lines):
        if SEPARATOR.match(line.text):
            line.kind = "separator"
        elif ATTRIBUTION.match(line.text) and not home.search(line.text):
            line.kind = "attribution"
            before = lines[k - 1] if k else None
            if before and before.depth == line.depth and ATTRIBUTION_START.match(before.text):
                before.kind = "attribution"  # Gmail wraps a long one: "On ..., Omar <" / "o@x.com> wrote:"
    k = 0
    while k < len(lines):  # header blocks: two header lines or more with a From or Sent, or any just after a separator
        j = k
        while (
            j < len(lines)
            and lines[j].depth == lines[k].depth
            and lines[j].kind == "body"
            and (HEADER.match(lines[j].text) or (j > k and (_continued(lines[j].text) or _folded(lines, j))))
        ):
            j += 1
        heads = [h for h in map(HEADER.match, (line.text for line in lines[k:j])) if h]
        fields = {h["name"].lower() for h in heads}
        mail = fields & {"sent", "subject", "date"} or any(EMAIL.search(line.text) for line in lines[k:j])
        above = next((line for line in reversed(lines[:k]) if line.text.strip()), None)
        # "from: bedroom / to: kitchen" (a walk in YAML) is no mail
        walk = any(h["name"].lower() in ("from", "to") and home.search(h[0]) and "@" not in h[0] for h in heads)
        forwarded = j > k and above is not None and above.kind == "separator"
        if not walk and ((fields & {"from", "sent"} and mail and len(fields) >= 2) or forwarded):
            for line in lines[k:j]:
                line.kind = "header"
        k = max(j, k + 1)
    for k, line in enumerate(lines):  # a mailing list's footer: underscores over lines that are not headers
        if line.kind == "separator" and line.text.strip().startswith("_"):
            under = [x for x in lines[k + 1 :] if x.depth == line.depth]
            rest = under[: next((i for i, x in enumerate(under) if not x.text.strip() or x.kind != "body"), len(under))]
            if rest and not any(home.search(x.text) for x in rest):
                for x in [line, *rest]:
                    x.kind = "footer"
    return lines


def _unconverted(text: str) -> str:
    """A line without what HTML-to-text conversion added: link targets, and bullet glyphs as "- " indented by level."""
    text = LINK_ARTEFACT.sub("", text) if "<" in text or "[" in text else text
    m = GLYPH.match(text)
    if m and (m["glyph"] != "o" or text[m.end() - 1] in " \t\u00a0"):
        return f"{m['indent']}{'  ' * LEVEL[m['glyph']]}- {text[m.end():]}"
    return text


def _continued(text: str) -> bool:
    """A header's wrapped value: addresses ("  Omar <o@x.com>; Field Team <f@x.com>")."""
    return bool(EMAIL.search(text)) and not household_words().search(text) and len(text.split()) <= 8


def _folded(lines: list[_Line], j: int) -> bool:
    """A header's value folded onto the next line, indented ("Subject: Re: where does Jess expect the" /
    "\twine?"), under the header it goes on."""
    text = lines[j].text
    return text[:1] in (" ", "\t") and bool(text.strip()) and len(text.split()) <= 12 and bool(
        HEADER.match(lines[j - 1].text)) and not _folded(lines, j - 1) if j > 0 else False  # fmt: skip


def _mail_headers(lines: list[_Line]) -> bool:
    """Whether the header blocks are an e-mail's: an address in them, Outlook's "Sent:", or two blocks."""
    heads = [m for line in lines if line.kind == "header" and (m := HEADER.match(line.text))]
    blocks = sum(line.kind == "header" and (k == 0 or lines[k - 1].kind != "header") for k, line in enumerate(lines))
    return any(EMAIL.search(h[0]) or h["name"].lower() == "sent" for h in heads) or blocks >= 2


def _correspondents(lines: list[_Line]) -> set[str]:
    """The names the headers and attributions give (lower case): who writes to whom."""
    names: set[str] = set()
    for line in lines:
        if line.kind == "header":
            m = HEADER.match(line.text)
            if not m or m["name"].lower() not in ("from", "to", "cc", "sender"):
                continue
            said = m["value"] or ""
        elif line.kind == "attribution":
            said = WHEN_WROTE.sub("", line.text)
        else:
            continue
        said = EMAIL.sub(" ", re.sub(r"\[mailto:[^\]]*\]", " ", said))
        names |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]+", said) if w[0].isupper()}
    return names - {"on", "at", "wrote", "writes", "quoting", "mon", "tue", "wed", "thu", "fri", "sat", "sun"}


def _age(lines: list[_Line]) -> None:
    """Each body line's age: the messages that start above it (a header block, separator or
    attribution) at its quote depth or less, then its depth. A quote is older than the reply around
    it; a message below another's headers is older than that one."""
    starts: list[int] = []
    before = "body"
    for line in lines:
        if line.kind not in ("body", "footer"):
            if before not in ("header", "separator") or line.kind == "attribution":  # a separator over headers: one
                starts.append(line.depth)
        elif line.text.strip():
            line.age = (sum(d <= line.depth for d in starts), line.depth)
        if line.text.strip():
            before = line.kind


def _messages(lines: list[_Line]) -> list[list[_Line]]:
    """The thread's messages: runs of body lines of one age (a blank line goes with the run above)."""
    messages: list[list[_Line]] = []
    for line in lines:
        if line.kind != "body":
            messages.append([])
        elif not line.text.strip():
            if messages:
                messages[-1].append(line)
        elif not messages or not _filled(messages[-1]) or _filled(messages[-1])[0].age != line.age:
            messages.append([line])
        else:
            messages[-1].append(line)
    messages = [message for message in messages if _filled(message)]
    for k, message in enumerate(messages):
        while not message[0].text.strip():
            message.pop(0)
        for line in message:
            line.message = k
    return messages


def _filled(message: list[_Line]) -> list[_Line]:
    return [line for line in message if line.kind == "body" and line.text.strip()]


def _trim(message: list[_Line], names: set[str]) -> None:
    """A message's mobile lines, signature, footers, greeting and sign-off marked left out."""
    for k, line in enumerate(message):
        if line.kind != "body":
            continue
        if MOBILE.match(line.text) or SNIP.match(line.text):
            line.kind = "chatter"
        elif re.match(r"^--\s?$", line.text):  # the signature delimiter: all below it
            for rest in message[k:]:
                rest.kind = "signature" if rest.kind == "body" else rest.kind
    paragraph: list[_Line] = []
    for line in [*message, None]:
        if line is None or not line.text.strip():
            said = " ".join(x.text for x in paragraph)
            if len(FOOTER.findall(said)) >= 2 and not any(_option(x.text) for x in paragraph):
                for x in paragraph:
                    x.kind = "footer"
            paragraph = []
        elif line.kind == "body":
            paragraph.append(line)
    filled = _filled(message)
    if not filled:
        return
    first, home = filled[0], household_words()
    alone = re.fullmatch(r"\s*[A-Z][\w'-]*(?: [A-Z][\w'-]*)?\s*[,!]\s*", first.text)  # "Omar,", "Aunt Ruth,"
    if (GREETING.match(first.text) or alone) and not home.search(first.text):
        first.kind = "greeting"
    elif (m := ADDRESSED.match(first.text)) and m["name"].lower() in names:
        first.text = first.text[m.end() :][:1].upper() + first.text[m.end() :][1:]
        first.asides += 1
    _sign_off(_filled(message), names)


def _sign_off(filled: list[_Line], names: set[str]) -> None:
    """The sign-off and what follows it ("Cheers,\\nHannah\\n\\nHannah Cole\\nBrightNest Homes | 07700
    900318"), else the lines at the end that only a signature holds (a name, an initial, a title)."""
    tail = filled[-8:]
    signed = next((k for k in range(len(tail) - 1, -1, -1) if SIGN_OFF.match(tail[k].text)
                   and not household_words().search(tail[k].text)), None)  # fmt: skip
    if signed is not None and all(_short(x.text) and _not_home(x.text) for x in tail[signed + 1 :]):
        for line in tail[signed:]:
            line.kind = "signature"
        return
    end = len(filled)
    while end > 0 and _signature_like(filled[end - 1].text, names):
        end -= 1
    if 0 < end < len(filled):
        for line in filled[end:]:
            line.kind = "signature"


def _not_home(text: str) -> bool:
    """A line that names nothing of the apartment, or names it in contact details ("Sofa World Ltd | 0161 ...")."""
    return not household_words().search(text) or bool(CONTACT.search(text) or "|" in text or COMPANY.search(text))


def _short(text: str) -> bool:
    """A line a signature may hold under a sign-off: a few words, no question, no option."""
    return len(text.split()) <= 8 and "?" not in text and not _option(text) and not text.rstrip().endswith(":")


def _signature_like(text: str, names: set[str]) -> bool:
    """A line only a signature holds: a name, an initial, a title, a company, a phone number, an
    address; never a room, furniture or object word, a question or an option."""
    words = text.split()
    if not _short(text) or household_words().search(text) or ACTS.search(text) or PRONOUN.search(text):
        return False
    if SIGN_OFF.match(text) or CONTACT.search(text) or "|" in text:
        return True
    if {w.strip(",.!'").lower() for w in words} & names and len(words) <= 4:
        return True
    return len(words) <= 6 and not text.rstrip().endswith((".", "!", ";"))


def _rejoin(message: list[_Line]) -> None:
    """A hard-wrapped message's lines joined again where a sentence runs on ("... the second" /
    "cabinet has a plate in it."): plain-text mail wraps at about 72 characters. Only a long line
    (not ending in ":") before one that starts in lower case is joined; lists and headings stay."""
    filled = _filled(message)
    if not filled or max(len(line.text) for line in filled) > 100:
        return
    for line, after in zip(message, message[1:]):
        hanging = (  # an option's or list item's hanging indent: "(a) ... inside the bathroom" / "     cabinet."
            ITEM_START.match(line.text)
            and _indent(after.text) > _indent(line.text)
            and after.text.lstrip()[:1].islower()
            and not line.text.rstrip().endswith((".", "!", "?", ";"))
        )
        if line.kind == "body" and after.kind == "body" and len(line.text.strip()) >= 45 and (
                after.text[:1].islower() or hanging):  # fmt: skip
            if not line.text.rstrip().endswith(":") and not _option(after.text):
                after.text, after.kind = f"{line.text.rstrip()} {after.text.lstrip()}", "body"
                line.text, line.kind = "", "wrapped"


#: An option or list item's first line: "(a) ...", " - walks to ...", "2. ...".
ITEM_START = re.compile(r"^\s*(?:\(?[a-eA-E]\)|[-*•]|\d{1,2}[.)])\s")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _read_once(ordered: list[list[_Line]]) -> None:
    """A line quoted again in a later message (a reply quoting what the thread holds below) left out."""
    seen: dict[str, int] = {}
    for k, message in enumerate(ordered):
        for line in _filled(message):
            key = " ".join(line.text.split()).lower()
            if len(key) < 25:
                continue
            if seen.setdefault(key, k) != k:
                line.kind = "repeated"


def _asides(body: list[_Line | None], names: set[str]) -> list[_Line | None]:
    """Sentences about the correspondents, not the apartment ("Forwarding Jo's layout of the flat.",
    "Going by Sam's notes below:"): a correspondent named, and no room, furniture or object, nor a
    walk, open or close. Left out, so that no correspondent is taken for the person; a name the
    question asks about is never a correspondent."""
    asked = {w.lower() for line in body if line is not None for piece in SENTENCE_END.split(line.text)
             if _option(line.text) or "?" in piece for w in re.findall(r"\b[A-Z][a-z'-]+", piece)}  # fmt: skip
    names = names - asked
    if not names:
        return body
    for line in body:
        if line is None:
            continue
        pieces = SENTENCE_END.split(line.text)
        gone = [_about(p, names) for p in pieces]
        if any(gone):
            kept = [p[:1].upper() + p[1:] if k == 0 or gone[k - 1] else p for k, p in enumerate(pieces) if not gone[k]]
            line.text, line.asides = " ".join(kept), line.asides + sum(gone)
            line.kind = "body" if kept else "chatter"
    return [line for line in body if line is None or line.kind == "body"]


def _about(piece: str, names: set[str]) -> bool:
    """Whether a sentence is about the correspondents only."""
    named = {re.sub(r"['’]s$", "", w).lower() for w in re.findall(r"\b[A-Z][\w'’-]*", piece)}
    return bool(named & names) and not household_words().search(piece) and "?" not in piece


def _question_last(body: list[_Line | None]) -> list[_Line | None]:
    """The question and its options at the end (``None``: a blank line). What follows the options
    is chatter ("Just a or b is fine.") unless it names something of the apartment (then it goes
    before the question) or asks in the options' message ("Which is it?": it stays after them). A
    question elsewhere ("Thoughts?", "Can you have a look?") is chatter."""
    home = household_words()
    options = [k for k, line in enumerate(body) if line is not None and _option(line.text)]
    asks = [k for k, line in enumerate(body) if line is not None and "?" in line.text and home.search(line.text)]
    if not options and not asks:
        return body
    last = options[-1] if options else asks[-1]
    first = last
    while first > 0 and (body[first - 1] is None or first - 1 in options):
        first -= 1
    first = next(k for k in range(first, last + 1) if body[k] is not None)
    start = first  # back over the stem, in its message: "Which one is more likely?", "Suppose ...", a blank line
    while options and start > 0 and (body[start - 1] is None or _stem(body[start - 1].text)):
        if body[start - 1] is not None and body[start - 1].message != body[first].message:
            break
        start -= 1
    start = next(k for k in range(start, last + 1) if body[k] is not None)
    after, asked = [], []
    for k, line in enumerate(body):
        if line is None or start <= k <= last:
            continue
        if k > last and home.search(line.text):
            after.append(line)  # told after the question: read before it
        elif k > last and "?" in line.text and line.message == body[last].message:
            asked.append(line)  # "(a) ... (b) ... Which is it, do you reckon?": still the question
        elif k > last:
            line.kind = "chatter"
        elif "?" in line.text:  # a question to the correspondent: its sentences that ask
            pieces = SENTENCE_END.split(line.text)
            kept = [p for p in pieces if "?" not in p]
            line.text, line.asides = " ".join(kept), line.asides + len(pieces) - len(kept)
            line.kind = "body" if kept else "chatter"
    pieces = SENTENCE_END.split(body[last].text)  # "(b) ... a cupcake? Just a or b is fine."
    asks = max(k for k, p in enumerate(pieces) if "?" in p or _option(p) or OPTION_LABEL.search(p) or k == 0)
    if any(home.search(p) for p in pieces[asks + 1 :]):
        asks = len(pieces)
    body[last].text, body[last].asides = " ".join(pieces[: asks + 1]), body[last].asides + len(pieces) - asks - 1
    kept = [line for line in body[:start] if line is None or line.kind == "body"]
    return [*kept, *after, None, *body[start : last + 1], *asked]


def _stem(text: str) -> bool:
    """A line of a question's stem: it asks, ends in a colon, supposes, or names nothing of the apartment."""
    return bool("?" in text or text.rstrip().endswith(":") or PREMISE.match(text) or not household_words().search(text))


def _option(text: str) -> bool:
    """Whether a line gives an option: "(a) ...", "b) ...", "- (b) ...", or "(a) ... or (b) ..." in one line."""
    return bool(OPTION_LINE.match(text) or re.search(r"(?:^|\s)\(?a\)\s.*\s\(?b\)\s", text))


def _notes(lines: list[_Line], messages: int, reordered: bool) -> list[dict]:
    """One note for the thread: how it was read, and each kind of line left out with how many and
    the first one's line number."""
    order = "oldest first (the deepest quote first)" if reordered else "in the order written"
    said = {"header": "mail headers", "separator": "separators", "attribution": "attributions ('... wrote:')",
            "greeting": "greetings", "signature": "sign-offs and signatures", "footer": "footers",
            "repeated": "lines quoted again", "chatter": "chatter to the correspondent"}  # fmt: skip
    left = []
    for kind, what in said.items():
        found = [line.number for line in lines if line.kind == kind and line.written.strip()]
        if found:
            left.append(f"{what} ({len(found)}, line {found[0]})")
    asides = [line for line in lines if line.asides and line.kind == "body"]
    if asides:
        left.append(
            f"sentences to or about the correspondents ({sum(x.asides for x in asides)}, line {asides[0].number})"
        )
    why = f"read as an e-mail thread of {messages} message(s), {order}, the question last"
    why += "; left out: " + ", ".join(left) if left else ""
    return [text_note(lines[0].number, "format", lines[0].written.strip()[:80], why)]
