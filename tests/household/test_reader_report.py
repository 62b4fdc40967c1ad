"""The household reader on a formal report: header fields, headings in capitals, sign-offs, "two
(2)" counts, and the person called "the participant". Every report here was written for these
tests."""

from __future__ import annotations

from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.mmtom.report import strip_report_form

REPORT = """NORTHFIELD CARE TRUST
Observation Record

Ref: NCT/22/118
Date: 3 May 2025
Observed by: P. Adeyemi (night staff)
Client: Rosa, Room 4

A. THE FLAT
The flat has two (2) rooms: a kitchen and a bedroom. The kitchen contains three (3) cabinets, a fridge and a
microwave. The first cabinet contains two (2) plates. The fridge contains a salmon. The microwave is empty.
The bedroom contains a desk.

B. OBSERVATIONS
22:10  The resident was in the bedroom.
22:11  The resident went to the kitchen and approached the third cabinet. The cabinet was opened and then closed.
22:12  The resident walked towards the fridge and appeared to be about to open it.

C. ASSESSMENT REQUESTED
Which of these is more likely? (a) Rosa has been trying to get a salmon. (b) Rosa has been trying to get a plate.
Please answer (a) or (b).

Countersigned: M. Okonjo, Duty Manager
Report completed by P. Adeyemi
NCT - Confidential - Client Use Only"""


def test_a_report_is_read_without_its_form_and_its_resident_is_the_person() -> None:
    read = read_question(REPORT).to_json()
    assert read["story"]["person"] == "Rosa"  # not the countersigning "Okonjo" nor the footer's "Client"
    assert read["story"]["start"] == "bedroom"
    assert read["story"]["visits"] == ["kitchen/kitchencabinet/3 (opened)", "kitchen/fridge"]
    assert read["scene"]["places"]["kitchen/kitchencabinet/1"] == {"plate": 2}  # "two (2) plates" is two


def test_prose_with_one_field_like_line_and_counts_with_other_figures_is_left_alone() -> None:
    text = "Date: Monday\nThe kitchen has two (3) apples."  # one field is no form; a figure that disagrees stays
    assert strip_report_form(text) == (text, [])
    said = "Date: Monday\nTime: 14:02\nLocation: the resident walked to the kitchen and opened the fridge."
    kept = strip_report_form(said)[0]
    assert "walked" in kept and "Monday" not in kept  # a field that tells an action is kept, the others not


def test_numbered_paragraphs_and_a_signature_line_are_form() -> None:
    report = REPORT.replace("The bedroom contains a desk.", "A.3  Bedroom. One (1) desk. A book was noted on the desk.")
    report += "\nSignature of observer: ________   Date: ______"
    read = read_question(report).to_json()
    assert read["scene"]["places"]["bedroom/desk"] == {"book": 1}
    assert read["story"]["person"] == "Rosa"


def test_a_forms_paragraph_codes_and_a_subject_without_its_article() -> None:
    started = "22:10  Resident located in the bedroom at commencement of observation."
    report = REPORT.replace("22:10  The resident was in the bedroom.", started)
    report = report.replace("The bedroom contains a desk.", "A1  Bedroom. A desk is present.")
    read = read_question(report).to_json()
    assert read["story"]["start"] == "bedroom"
    assert "bedroom/desk" in read["scene"]["places"]
