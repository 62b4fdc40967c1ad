"""Gold traces pass the checker; mutations are caught at the first wrong step; it never raises."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindzero.stories.generator import generate_stories
from mindzero.stories.traces import check_trace, render_gold_trace

STORIES = list(generate_stories(120, seed=21))
CASES = [(s, q, row, ans) for s in STORIES for q, row, ans in zip(s.questions, s.labels, s.answers)]


def _steps(trace: str) -> list[str]:
    return re.split(r"(?=## Step \d+ ##)", trace.split("Final Answer:")[0])[1:]


def test_gold_traces_pass_the_checker() -> None:
    for story, q, row, answer in CASES:
        check = check_trace(render_gold_trace(story.events, q, row), row, answer)
        assert check.first_error is None, (story.story_id, q)
        assert len(check.steps) == len(story.events) and all(check.step_labels)
        assert check.final_correct and check.final_answer == answer
    assert len(CASES) == 600


def test_trace_format_matches_the_paper() -> None:
    story, q, row, _ = next(c for c in CASES if c[1].order == 3)
    trace = render_gold_trace(story.events, q, row)
    assert trace.startswith("## Step 1 ##\n" + story.events[0].render())
    assert f"{' thinks '.join(q.chain)} thinks the {q.obj} is in [Null]" in _steps(trace)[0]
    assert trace.rstrip().endswith(f"Final Answer: [{row[-1]}]")


def _wrong_value(story, expected: str | None, rng: random.Random) -> str:
    return rng.choice([c for c in story.containers if c != expected])


def test_wrong_value_is_caught_at_that_step() -> None:
    rng = random.Random(0)
    for story, q, row, answer in CASES[::7]:
        k = rng.randrange(len(row))
        steps = _steps(render_gold_trace(story.events, q, row))
        bad = _wrong_value(story, row[k], rng)
        steps[k] = re.sub(r"\[[^\]]*\]\s*$", f"[{bad}]\n\n", steps[k])
        check = check_trace("".join(steps) + f"Final Answer: [{answer}]", row, answer)
        assert check.first_error == k
        assert all(s.correct for s in check.steps[:k]) and not any(s.correct for s in check.steps[k:])
        assert "label is" in check.steps[k].reason and check.final_correct


def test_missing_repeated_and_misnumbered_steps_are_caught() -> None:
    story, q, row, answer = CASES[3]
    steps = _steps(render_gold_trace(story.events, q, row))
    k = 4
    missing = check_trace("".join(steps[:k] + steps[k + 1 :]), row, answer)
    assert missing.first_error == k and "skipped" in missing.steps[k].reason
    repeated = check_trace("".join(steps[: k + 1] + [steps[k]] + steps[k + 1 :]), row, answer)
    assert repeated.first_error == k + 1 and "repeated" in repeated.steps[k + 1].reason
    renumbered = steps[:]
    renumbered[k] = renumbered[k].replace(f"## Step {k + 1} ##", "## Step 99 ##")
    mis = check_trace("".join(renumbered), row, answer)
    assert mis.first_error == k and "beyond" in mis.steps[k].reason
    no_value = steps[:]
    no_value[k] = re.sub(r"\[[^\]]*\]", "somewhere", no_value[k])
    assert check_trace("".join(no_value), row, answer).first_error == k
    assert not missing.final_correct  # no Final Answer line at all


def test_loose_value_matching_and_inline_steps() -> None:
    labels = [None, "red_box", "red_box"]
    trace = (
        "## Step 1 ## nobody knows [null] ## Step 2 ## seen [Red Box]\nStep 3\n... [the red_box]\nFinal Answer: red_box"
    )
    check = check_trace(trace, labels)
    assert check.first_error is None and check.final_correct and len(check.steps) == 3


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_checker_never_raises_on_random_text(text: str) -> None:
    check = check_trace(text, [None, "a", "b"], "b")
    assert check.first_error is None or not check.steps[check.first_error].correct


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.integers(0, len(CASES) - 1),
    edits=st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.integers(0, 40),
            st.text(alphabet="#[]Step 0123456789\nFinal Answer:x_", max_size=20),
        ),
        max_size=6,
    ),
)
def test_checker_never_raises_on_mutated_traces(case: int, edits: list[tuple[int, int, str]]) -> None:
    story, q, row, answer = CASES[case]
    trace = render_gold_trace(story.events, q, row)
    for pos, cut, insert in edits:
        pos %= len(trace) + 1
        trace = trace[:pos] + insert + trace[pos + cut :]
    check = check_trace(trace, row, answer)
    labels = check.step_labels
    if check.first_error is None:
        assert all(labels)
    else:  # DEL-ToM rule: a correct prefix, then nothing correct
        assert all(labels[: check.first_error]) and not any(labels[check.first_error :])


def test_non_string_input_does_not_raise() -> None:
    assert check_trace(None, ["a"]).steps == ()
    assert check_trace(b"## Step 1 ## [a]", ["a"]).final_answer is None
