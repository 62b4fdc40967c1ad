"""The household reader on e-mail threads pasted whole: headers, separators and attributions of
Outlook, Gmail, Apple Mail, Thunderbird and mailing lists, quotes nested as "> >" or ">>",
top-posted, bottom-posted and inline replies, greetings, signatures, footers and chatter. Every
thread here was written for these tests; each is read as the same story told in plain prose."""

from __future__ import annotations

import textwrap

import pytest

from mindzero.core.errors import UserError
from mindzero.domains.household.mmtom.email_thread import unwrap_thread
from mindzero.domains.household.mmtom.reader import read_question

LAYOUT = (
    "The flat has a kitchen and a living room. The kitchen has a fridge, a microwave and two cabinets. "
    "Inside the fridge there is a salmon, and the microwave holds a cupcake. The first cabinet is empty; "
    "the second cabinet has a plate in it. In the living room there is a sofa with a book on it."
)
START = "Ravi is in the living room. He walks to the kitchen, goes to the fridge, opens it and closes it."
THEN = "Then he walks towards the second cabinet."
ASK = "Which one is more likely?"
OPTIONS = "(a) Ravi has been trying to get a salmon.\n(b) Ravi has been trying to get a plate."
PLAIN = f"{LAYOUT}\n{START} {THEN}\n{ASK}\n{OPTIONS}"
FOOTER = (
    "This e-mail and any attachments are confidential and intended solely for the addressee. If you have "
    "received it in error, please notify the sender and delete it. Oakfield Housing Ltd, registered in England."
)


def state(text: str) -> dict:
    return read_question(text).to_json()


def same_story(thread: str, plain: str = PLAIN) -> dict:
    """The thread's reading, asserted equal to the plain story's (places, start, visits, person, query)."""
    got, want = state(thread), state(plain)
    assert got["scene"]["places"] == want["scene"]["places"]
    assert got["story"] == want["story"]
    assert got["query"] == want["query"]
    return got


def note(thread: str) -> str:
    """The one note a thread's reading has: how it was read and what was left out."""
    (said,) = unwrap_thread(thread)[1]
    return said["why"]


def quoted(text: str, marks: str = "> ") -> str:
    return "\n".join((marks + line).rstrip() for line in text.split("\n"))


def test_an_outlook_chain_reads_oldest_message_first_and_leaves_headers_signatures_and_footer_out() -> None:
    thread = f"""From: Kim Park <kim.park@oakfield.example>
Sent: Tuesday, September 3, 2024 10:05 AM
To: Leo Brandt <leo.brandt@oakfield.example>
Subject: RE: Ravi - Tuesday visit

Hi Leo,

Thanks for pulling this together. {ASK}

{OPTIONS}

Kind regards,
Kim Park
Senior Analyst | Oakfield Housing
T: 0161 496 0000

-----Original Message-----
From: Leo Brandt <leo.brandt@oakfield.example>
Sent: Tuesday, September 3, 2024 9:15 AM
To: Kim Park <kim.park@oakfield.example>
Subject: FW: Ravi - Tuesday visit

Kim,

Here is what I saw. {START}
{THEN}

Leo
--
Leo Brandt
Field Officer

________________________________
From: Ada Moss <ada.moss@oakfield.example>
Sent: Monday, September 2, 2024 5:02 PM
To: Leo Brandt <leo.brandt@oakfield.example>;
    Kim Park <kim.park@oakfield.example>
Subject: Ravi - Tuesday visit

Dear Leo,

{LAYOUT}

Best wishes,
Ada

{FOOTER}"""
    got = same_story(thread)
    assert got["story"]["person"] == "Ravi"
    why = note(thread)
    assert why.startswith("read as an e-mail thread of 3 message(s), oldest first (the deepest quote first)")
    assert "mail headers (13, line 1)" in why and "separators (2, line 18)" in why
    assert "sign-offs and signatures (10, line 13)" in why and "footers (1, line 48)" in why


def test_a_gmail_reply_to_a_reply_reads_the_deepest_quote_first_and_an_outline_inside_it() -> None:
    outline = "Kitchen:\n- fridge: a salmon\n- microwave: a cupcake\n- 2 cabinets:\n  - #1: empty\n  - #2: a plate\n"
    outline += "Living room:\n- sofa: a book"
    leo = f"Hi Kim,\n\n{START} {THEN}\n\nLeo\n\nOn Mon, 2 Sep 2024 at 17:02, Ada Moss <ada@gmail.example> wrote:"
    thread = f"""From: Kim Park <kim.park@gmail.example>
Date: Tue, 3 Sep 2024 at 10:05
Subject: Re: Ravi
To: Leo Brandt <leo@gmail.example>

{ASK}
{OPTIONS}

k

On Tue, 3 Sep 2024 at 09:15, Leo Brandt <
leo@gmail.example> wrote:
{quoted(leo)}
{quoted(outline, "> > ")}
>
> Sent from my iPhone"""
    same_story(thread)
    assert unwrap_thread(thread)[0].startswith("Kitchen:\n- fridge: a salmon")


@pytest.mark.parametrize("marks", ["> > ", ">> ", ">>"])
def test_nested_quote_marks_of_any_spacing_are_one_depth_each(marks: str) -> None:
    thread = f"""{ASK}
{OPTIONS}

On Tue, 3 Sep 2024, Leo Brandt wrote:
> {START} {THEN}
>
> On Mon, 2 Sep 2024, Ada Moss wrote:
{quoted(LAYOUT, marks)}"""
    same_story(thread)


def test_an_apple_mail_forward_with_quoted_headers() -> None:
    thread = f"""Can you tell which one he was after?

{OPTIONS}

Sent from my iPhone

Begin forwarded message:

> From: Ada Moss <ada.moss@icloud.example>
> Subject: Ravi this morning
> Date: 2 September 2024 at 17:02:11 BST
> To: Leo Brandt <leo@icloud.example>
>
> Leo - here's the flat and what Ravi did.
>
{quoted(LAYOUT)}
>
{quoted(START + " " + THEN)}
>
> Love,
> Ada x"""
    got = same_story(thread, f"{LAYOUT}\n{START} {THEN}\nCan you tell which one he was after?\n{OPTIONS}")
    assert got["story"]["person"] == "Ravi"


def test_a_thunderbird_forward_with_unquoted_headers_and_body() -> None:
    thread = f"""{ASK}
{OPTIONS}

-------- Forwarded Message --------
Subject: 	Ravi
Date: 	Mon, 2 Sep 2024 17:02:11 +0100
From: 	Ada Moss <ada@tb.example>
To: 	Leo Brandt <leo@tb.example>

{LAYOUT}
{START} {THEN}

--
Ada Moss, Housing Officer
"""
    same_story(thread)


def test_a_bottom_posted_mailing_list_reply_keeps_its_order_and_drops_the_list_footer() -> None:
    thread = f"""Ada Moss <ada@lists.example.org> writes:
{quoted(LAYOUT)}
{quoted(START)}
{quoted(THEN)}

{ASK}
{OPTIONS}

--
Leo
_______________________________________________
homestudy mailing list
homestudy@lists.example.org
https://lists.example.org/listinfo/homestudy"""
    same_story(thread)
    why = note(thread)
    assert why.startswith("read as an e-mail thread of 2 message(s), in the order written, the question last")
    assert "sign-offs and signatures (2, line 10), footers (4, line 12)" in why


def test_inline_replies_between_quoted_lines_come_after_what_they_quote() -> None:
    thread = f"""On Mon, 2 Sep 2024 17:02, Ada Moss <ada@example.org> wrote:
> {LAYOUT}
Got it, thanks.
> {START}
And after that?
> {THEN}

{ASK}
{OPTIONS}"""
    same_story(thread)
    assert "And after that?" not in unwrap_thread(thread)[0]


def test_a_message_quoted_again_in_a_later_one_is_read_once() -> None:
    thread = f"""From: Kim Park <kim@example.org>
To: Leo Brandt <leo@example.org>
Subject: RE: Ravi

{ASK}
{OPTIONS}

-----Original Message-----
From: Leo Brandt <leo@example.org>
Sent: 3 September 2024 09:15
Subject: RE: Ravi

> {START}
{THEN}

-----Original Message-----
From: Ada Moss <ada@example.org>
Sent: 2 September 2024 17:02
Subject: Ravi

{LAYOUT}
{START}"""
    got = same_story(thread)
    assert got["story"]["visits"] == ["kitchen/fridge (opened)", "kitchen/kitchencabinet/2"]
    assert "lines quoted again (1, line 14)" in note(thread)


def test_a_question_in_the_older_message_goes_last_and_the_newer_fact_before_it() -> None:
    thread = f"""From: Leo Brandt <leo@example.org>
To: Kim Park <kim@example.org>
Subject: FW: Ravi

Can you take a look at this one?

One more thing: there is also a remote control on the sofa.

Leo

---------- Forwarded message ---------
From: Ada Moss <ada@example.org>
Date: Mon, 2 Sep 2024 at 17:02
Subject: Ravi
To: Leo Brandt <leo@example.org>

{LAYOUT}
{START} {THEN}
{ASK}
{OPTIONS}"""
    plain = f"{LAYOUT}\nThere is also a remote control on the sofa.\n{START} {THEN}\n{ASK}\n{OPTIONS}"
    got = same_story(thread, plain)
    assert got["scene"]["places"]["livingroom/sofa"] == {"book": 1, "remotecontrol": 1}


def test_chatter_after_the_options_and_correspondents_named_in_passing_are_left_out() -> None:
    thread = f"""From: Kim Park <kim@example.org>
To: Leo Brandt <leo@example.org>, Ada Moss <ada@example.org>
Subject: Re: Ravi

Quick one. Going by Ada's notes and Leo's below: if Ravi has been trying to get a salmon or a plate, {ASK.lower()}
{OPTIONS}

Just a or b is fine. Thoughts welcome.

On Mon, 2 Sep 2024 at 17:02, Ada Moss <ada@example.org> wrote:
> Leo - forwarding Ada's layout of the flat.
> {LAYOUT}
> {START} {THEN}"""
    got = same_story(thread)
    assert got["story"]["person"] == "Ravi"
    story = unwrap_thread(thread)[0]
    assert "Just a or b" not in story and "Ada" not in story and "Leo" not in story


def test_a_company_in_a_signature_is_no_furniture() -> None:
    thread = f"""From: Leo Brandt <leo@sofaworld.example>
To: Kim Park <kim@example.org>
Subject: Ravi

{LAYOUT}
{START} {THEN}
{ASK}
{OPTIONS}

Best,
Leo Brandt
Sofa World Ltd"""
    same_story(thread)


def test_text_that_is_no_thread_passes_untouched() -> None:
    for text in (
        PLAIN,
        f"To: Care manager\nFrom: Night staff\nSubject: Ravi\n\n{PLAIN}",  # a memo, no addresses
        f"Date: 2 September\nSubject: Ravi\n\n{PLAIN}",  # a report's fields
        f"{LAYOUT}\n{START} {THEN}\n> Question: {ASK}\n> {OPTIONS.splitlines()[0]}\n> {OPTIONS.splitlines()[1]}",
    ):
        assert unwrap_thread(text) == (text, [])


def test_a_thread_without_a_question_or_a_story_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="no question"):
        read_question(f"From: Ada <ada@example.org>\nTo: Leo <leo@example.org>\nSubject: Ravi\n\n{LAYOUT}\n{START}")
    with pytest.raises(UserError, match="no message text"):
        read_question("From: Ada <ada@example.org>\nTo: Leo <leo@example.org>\nSubject: Ravi\n\nThanks,\nAda")
    with pytest.raises(UserError):
        read_question(f"From: Ada <ada@example.org>\nSent: today\n\n{ASK}\n{OPTIONS}\n\nOn Mon, Leo wrote:\n>\n>")


@pytest.mark.parametrize(
    "over",
    [
        "-----Original Message-----\nFrom: Ada Moss [mailto:ada@example.org]\nSent: Monday, 2 September 2024 17:02\n"
        "To: Leo Brandt\nCc:\nSubject: Ravi",
        "________________________________\nFrom: Ada Moss <ada@example.org>\nSent: 02 September 2024 17:02\n"
        "To: Leo Brandt <leo@example.org>\nSubject: Ravi",
        "*From:* Ada Moss <ada@example.org>\n*Sent:* Monday, September 2, 2024 5:02 PM\n"
        "*To:* Leo Brandt <leo@example.org>\n*Subject:* Ravi",
        "From: Ada Moss <ada@example.org>\nDate: Mon, 2 Sep 2024 17:02:11 +0100\nSubject: Ravi",
        "-------- Original Message --------\nSubject: Ravi\nDate: Mon, 2 Sep 2024 17:02\n"
        "From: Ada Moss <ada@example.org>",
        "---------- Forwarded message ---------\nFrom: Ada Moss <ada@example.org>\nDate: Mon, 2 Sep 2024 at 17:02\n"
        "Subject: Ravi\nTo: <leo@example.org>",
        "Begin forwarded message:\n\nFrom: Ada Moss <ada@example.org>\nSubject: Ravi\n"
        "Date: 2 September 2024 at 17:02:11 BST",
    ],
)
def test_a_message_under_any_client_s_headers_is_older_than_the_reply_above(over: str) -> None:
    thread = f"""Morning Kim,

{START} {THEN}

{ASK}
{OPTIONS}

Get Outlook for iOS<https://aka.ms/o0ukef>

{over}

CAUTION: This email originated from outside of the organization. Do not click links or open attachments
unless you recognize the sender.

Hi Leo,

{LAYOUT}

Regards,
Ada Moss
Mob: 07700 900123"""
    same_story(thread)


@pytest.mark.parametrize(
    "said",
    [
        "On Mon, Sep 2, 2024 at 5:02 PM Ada Moss <ada@example.org> wrote:",
        "On 2 Sep 2024, at 17:02, Ada Moss <ada@example.org> wrote:",
        "On 02/09/2024 17:02, Ada Moss wrote:",
        "Ada Moss <ada@example.org> wrote:",
        "Quoting Ada Moss <ada@example.org>:",
        "* Ada Moss <ada@example.org> [2024-09-02 17:02]:",
    ],
)
def test_any_client_s_attribution_line_over_a_quote(said: str) -> None:
    thread = f"{ASK}\n{OPTIONS}\n\nLeo\n\n{said}\n{quoted(LAYOUT)}\n>\n{quoted(START + ' ' + THEN)}\n>\n> Ada"
    same_story(thread)
    assert "attributions ('... wrote:') (1, line 7)" in note(thread)


def test_a_walk_written_as_from_and_to_fields_is_no_mail_header() -> None:
    text = f"{LAYOUT}\nsteps:\n  - from: living room\n    to: kitchen\n{ASK}\n{OPTIONS}"
    assert unwrap_thread(text) == (text, [])


def test_a_short_last_line_that_tells_an_action_is_no_signature() -> None:
    thread = f"""From: Ada Moss <ada@example.org>
Subject: Ravi

{LAYOUT}
{START}
then he walked towards the second cabinet

On Mon, 2 Sep 2024, Kim Park wrote:
> Can you send me the layout and what he did?

{ASK}
{OPTIONS}"""
    lines = unwrap_thread(thread)[0].split("\n")
    assert "then he walked towards the second cabinet" in lines
    assert "> Can you send me the layout and what he did?" not in lines


@pytest.mark.parametrize("width", [60, 72, 78])
def test_a_hard_wrapped_plain_text_quote_reads_as_its_sentences(width: int) -> None:
    wrapped = textwrap.fill(LAYOUT, width) + "\n\n" + textwrap.fill(f"{START} {THEN}", width)
    thread = f"{ASK}\n{OPTIONS}\n\nOn Mon, 2 Sep 2024 at 17:02, Ada Moss <ada@example.org> wrote:\n{quoted(wrapped)}"
    same_story(thread)
    assert "the second cabinet has a plate in it." in unwrap_thread(thread)[0]
    listed = "Kitchen:\nfridge: a salmon\nmicrowave: a cupcake\n" + "\n".join(["x" * 70] * 2)
    assert (
        "fridge: a salmon\nmicrowave: a cupcake"
        in unwrap_thread(f"{ASK}\n{OPTIONS}\n\nAda wrote:\n{quoted(listed)}")[0]
    )


def test_a_question_asked_after_its_options_stays_with_them() -> None:
    thread = f"""{OPTIONS}
Which is it, do you reckon?

Just a or b is fine.

Cheers,
Kim

On Mon, 2 Sep 2024 at 17:02, Ada Moss <ada@example.org> wrote:
{quoted(LAYOUT)}
{quoted(START + " " + THEN)}"""
    same_story(thread)
    assert unwrap_thread(thread)[0].endswith(f"{OPTIONS}\nWhich is it, do you reckon?")


def test_chatter_after_the_options_on_their_own_line_is_left_out() -> None:
    asked = "Is Ravi trying to get (a) a salmon or (b) a plate? Just a or b is fine, no rush."
    thread = f"""Went through Ada's layout (below). {asked}

On Mon, 2 Sep 2024 at 17:02, Ada Moss <ada@example.org> wrote:
{quoted(LAYOUT)}
{quoted(START + " " + THEN)}"""
    same_story(thread, f"{LAYOUT}\n{START} {THEN}\nIs Ravi trying to get (a) a salmon or (b) a plate?")
    assert unwrap_thread(thread)[0].endswith("\n\nIs Ravi trying to get (a) a salmon or (b) a plate?")


# --- HTML-to-text artefacts and digests ------------------------------------------------------


def test_converted_bullet_glyphs_and_link_targets_of_an_html_mail_are_read_as_an_outline() -> None:
    thread = (
        "From: Lena Ortiz <lena@example.net>\n"
        "Sent: Monday, 6 May 2024 09:12\n"
        "To: Sam Reyes <sam@example.net<mailto:sam@example.net>>\n"
        "Subject: FW: flat\n\n"
        "Sam,\n\n"
        "Ravi is in the living room. He walks to the kitchen, goes to the fridge, opens it and closes it. "
        "Then he walks towards the second cabinet.\n"
        "Which one is more likely?\n"
        f"{OPTIONS}\n\n"
        "Thanks,\nLena\n"
        "[cid:image001.png@01DA0000.11111111]\n\n"
        "-----Original Message-----\n"
        "From: Sam Reyes <sam@example.net<mailto:sam@example.net>>\n"
        "Sent: Friday, 3 May 2024 16:40\n"
        "To: Lena Ortiz <lena@example.net>\n"
        "Subject: flat\n\n"
        "The flat has a kitchen and a living room.\n\n"
        "*Kitchen*\n"
        "·         fridge, inside: a salmon\n"
        "·         microwave, inside: a cupcake\n"
        "·         two cabinets (numbered from left to right):\n"
        "o   1st: empty\n"
        "o   2nd: a plate\n\n"
        "*Living room*\n"
        "·         sofa, on it: a book\n\n"
        "Sam\n"
    )
    same_story(thread)


def test_a_mailing_list_digest_keeps_the_message_about_the_apartment_and_folded_subjects() -> None:
    message = quoted(f"{LAYOUT}\n{START}\n{THEN}")
    digest = (
        "Send flat-notes mailing list submissions to\n\tflat-notes@lists.example.net\n\n"
        "Today's Topics:\n\n   1. Re: Ravi and the second cabinet (Ana Ruiz)\n   2. Printer jam (Office)\n\n"
        f"{'-' * 70}\n\n"
        "Message: 1\nDate: Tue, 7 May 2024 08:00:00 +0100\nFrom: Ana Ruiz <ana@example.net>\n"
        "To: flat-notes@lists.example.net\nSubject: Re: [flat-notes] Ravi and the second cabinet, or the\n"
        "\tfridge?\nMessage-ID: <1a2b@example.net>\nContent-Type: text/plain; charset=\"us-ascii\"\n\n"
        f"{ASK}\n (a) Ravi has been trying to get a salmon, which he thinks is in the\n     fridge.\n"
        " (b) Ravi has been trying to get a plate.\n\nAna\n\n"
        "On 06/05/2024 17:00, Ben Cole wrote:\n"
        f"{message}\n\n{'-' * 30}\n\n"
        "Message: 2\nDate: Tue, 7 May 2024 09:00:00 +0100\nFrom: Office <office@example.net>\n"
        "To: flat-notes@lists.example.net\nSubject: [flat-notes] Printer jam\n\n"
        "The printer on floor two is jammed again. Please use the one by the stairs.\n\n"
        f"{'-' * 30}\n\n{'_' * 47}\nflat-notes mailing list\nflat-notes@lists.example.net\n\n"
        "End of flat-notes Digest, Vol 3, Issue 9\n" + "*" * 40 + "\n"
    )
    plain = f"{LAYOUT}\n{START} {THEN}\n{ASK}\n(a) Ravi has been trying to get a salmon, which he thinks is in the " \
        "fridge.\n(b) Ravi has been trying to get a plate."
    got = same_story(digest, plain)
    assert got["story"]["person"] == "Ravi"
    why = " ".join(n["why"] for n in unwrap_thread(digest)[1])
    assert "digest: message(s) 1 of 2 kept" in why
