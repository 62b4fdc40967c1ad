"""``mindzero stories ask``: answers with the DEL trace, JSON, stdin, and one-line input errors."""

from __future__ import annotations

import io
import json

import pytest

from mindzero.cli import main

STORY = """1 Isabella entered the den.
2 Olivia entered the den.
3 The broccoli is in the blue_pantry.
4 Isabella exited the den.
5 Olivia moved the broccoli to the red_drawer.
"""


def run(tmp_path, capsys, story: str, *flags: str) -> tuple[int, str, str]:
    path = tmp_path / "story.txt"
    path.write_text(story)
    code = main(["stories", "ask", "--story", str(path), *flags])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ask_answers_with_the_trace(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, STORY, "--question", "Where does Isabella think the broccoli is?", "--labels")
    assert code == 0
    assert "Where does Isabella really think the broccoli is? -> blue_pantry" in out
    assert "Olivia moved the broccoli to the red_drawer." in out and "seen by: Olivia;" in out
    assert "seen by: Isabella, Olivia" in out  # line 3
    assert out.count("[blue_pantry]") == 3 and out.count("[Null]") == 2  # labels after lines 1-5


def test_ask_json_with_questions_in_the_file(tmp_path, capsys) -> None:
    story = STORY + "Where does Olivia think that Isabella searches for the broccoli?\n"
    code, out, _ = run(tmp_path, capsys, story, "--json", "--semantics", "del")
    result = json.loads(out)
    assert code == 0 and result["semantics"] == "del"
    (answer,) = result["answers"]
    assert answer["answer"] == "blue_pantry" and answer["chain"] == ["Olivia", "Isabella"]
    assert answer["labels"] == [None, None, "blue_pantry", "blue_pantry", "blue_pantry"]
    assert [line["seen_by"] for line in result["lines"]][2:] == [["Isabella", "Olivia"], [], ["Olivia"]]
    assert result["lines"][3]["rooms"] == {"den": ["Olivia"]}


def test_ask_reads_stdin_and_reports_ignored_lines(monkeypatch, capsys) -> None:
    story = (
        "Ann entered the hall.\nAnn juggled the pear into the air.\nThe pear is in the red_box.\n"
        "Where will Ann look for the pear?"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(story))
    assert main(["stories", "ask", "--story", "-", "--ignore-unknown"]) == 0
    out = capsys.readouterr().out
    assert "Where will Ann look for the pear? -> red_box" in out and "ignored 1 line(s)" in out and "[2]" in out


@pytest.mark.parametrize(
    "story,question,message",
    [
        (
            STORY + "6 Isabella exited the den.\n",
            None,
            "line 6 ('Isabella exited the den.'): Isabella is not in the den",
        ),
        (
            STORY + "6 Isabella entered the hall.\n7 Isabella moved the broccoli to the green_box.\n",
            None,
            "line 7 ('Isabella moved the broccoli to the green_box.'): the broccoli is in the den, Isabella is in",
        ),
        (STORY + "6 Where did Olivia go?\n", None, "line 6: unparseable question"),
        (STORY, "Who moved the broccoli?", "--question: unparseable question"),
        (STORY + "6 Olivia ate the broccoli.\n", None, "story line 6: unparseable sentence"),
    ],
)
def test_bad_input_is_one_line_naming_it(tmp_path, capsys, story, question, message) -> None:
    flags = ["--question", question] if question else ["--question", "Where is the broccoli really?"]
    code, _, err = run(tmp_path, capsys, story, *flags)
    assert code == 2 and message in err and err.count("\n") == 1


def test_a_story_in_own_words_says_how_each_sentence_was_read(tmp_path, capsys) -> None:
    story = "Isabella and Olivia are in the den. The broccoli is in the blue pantry. Isabella leaves the den.\n"
    story += "Olivia puts the broccoli into the red drawer. Where does Isabella believe the broccoli is?\n"
    code, out, _ = run(tmp_path, capsys, story)
    assert code == 0 and "-> blue_pantry" in out
    assert "line 1: read 'Isabella leaves the den.' as 'Isabella exited the den.'" in out
    code, out, _ = run(tmp_path, capsys, story, "--json")
    reworded = json.loads(out)["reworded"]
    assert len(reworded) == 5 and reworded[0] == {
        "line": 1, "written": "Isabella and Olivia are in the den.", "read": "Isabella and Olivia entered the den."
    }  # fmt: skip


def test_a_question_flag_in_own_words_refers_to_the_story(tmp_path, capsys) -> None:
    """ "--question 'So where will Bob go looking for it?'": "it" is the story's object, Bob its person."""
    story = "Ann and Bob are in the den. The pear is in the box. Bob leaves. Ann pops it into the red bag."
    code, out, _ = run(tmp_path, capsys, story, "--question", "So where will Bob go looking for it?")
    assert code == 0 and "Where does Bob really think the pear is? -> box" in out


def test_by_default_a_story_in_own_words_is_read_blind_and_hitoms_sentences_as_hitom(tmp_path, capsys) -> None:
    # the classic Sally-Anne story in anyone's words: Sally, back, looks in her basket (not the box she
    # would see under Hi-ToM's rule); a story in Hi-ToM's own sentences keeps Hi-ToM's rule
    sally = (
        "Sally puts her marble in her basket and goes out for a walk.\nAnne takes the marble out of the basket and "
        "puts it in her box.\nSally comes back.\nWhere will Sally look for her marble?\n"
    )
    code, out, _ = run(tmp_path, capsys, sally, "--json")
    result = json.loads(out)
    assert code == 0 and result["entering"] == "blind" and result["answers"][0]["answer"] == "basket"
    _, out, _ = run(tmp_path, capsys, sally, "--json", "--entering", "sees")
    assert json.loads(out)["answers"][0]["answer"] == "box"
    hitom = STORY + "6 Isabella entered the den.\n"
    _, out, _ = run(tmp_path, capsys, hitom, "--json", "--question", "Where does Isabella think the broccoli is?")
    assert json.loads(out)["entering"] == "sees"
