"""Stepwise PBM data: gold traces are all-correct, every corruption is caught at the right step,
steps are cut where the checker cuts, the official subset and the OOD stories are labelled by the engine."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindzero.pbm.data import (
    CORRUPTIONS,
    corrupt_labels,
    corrupt_trace,
    gold_and_corrupted_rows,
    pbm_problem,
    policy_batches,
    policy_messages,
    questions_from_hitom,
    questions_from_stories,
    split_steps,
    stepwise_row,
)
from mindzero.stories.generator import generate_stories
from mindzero.stories.hitom import load_hitom
from mindzero.stories.traces import check_trace, render_gold_trace
from mindzero.tasks.stories_ood import load_ood_questions

HITOM = "../shared/data/hitom/Hi-ToM_data.json"


def test_gold_rows_are_all_correct_and_corruptions_fail_from_their_first_wrong_step(questions) -> None:
    questions = questions[:40]
    rows = gold_and_corrupted_rows(questions, per_question=3, seed=1)
    gold = [r for r in rows if r["source"] == "gold"]
    bad = [r for r in rows if r["source"] != "gold"]
    assert len(gold) == len(questions) and all(all(r["labels"]) and r["final_correct"] for r in gold)
    assert len(bad) >= 2 * len(questions)
    harmless = 0
    for r in bad:
        labels = r["labels"]
        assert len(labels) == len(r["completions"])
        if all(labels):  # a misquoted line that leaves every belief as it was is no error to the checker
            assert r["source"] == "corrupt:misquoted_line"
            harmless += 1
            continue
        k = labels.index(False)
        assert all(labels[:k]) and not any(labels[k:])  # the DEL-ToM prefix rule
    kinds = {r["source"] for r in bad}
    assert kinds == {f"corrupt:{k}" for k in CORRUPTIONS}
    misquoted = [r for r in bad if r["source"] == "corrupt:misquoted_line"]
    assert 0 < harmless < len(misquoted)  # some misquotes change a belief, some do not
    for r in misquoted:  # one step quotes another line of its story; every other step is the gold one
        steps = next(g for g in gold if g["id"] == r["id"])["completions"]
        differing = [i for i, (a, b) in enumerate(zip(r["completions"], steps)) if a.split("\n")[1] != b.split("\n")[1]]
        quoted = r["completions"][differing[0]].split("\n")[1]
        assert len(differing) == 1 and quoted in {step.split("\n")[1] for step in steps}


def test_corruptions_make_the_named_mistake(questions) -> None:
    rng = random.Random(0)
    q = next(q for q in questions if q.order == 1 and corrupt_labels(q, "missed_exit", random.Random(0)))
    wrong = corrupt_labels(q, "missed_exit", rng)
    first = next(i for i, (a, b) in enumerate(zip(wrong, q.labels)) if a != b)
    assert type(q.events[first]).__name__ in ("Move", "ObjectAt")  # an event the agent could not see
    real = [x for x in questions if x.story_id == q.story_id and x.order == 0][0].labels
    biased = corrupt_labels(q, "reality_bias", random.Random(3))
    if biased is not None:
        k = next(i for i, (a, b) in enumerate(zip(biased, q.labels)) if a != b)
        assert biased[k:] == list(real[k:])
    skipped = corrupt_trace(q, "skipped_step", random.Random(1))
    assert len(split_steps(skipped)) == len(q.labels) - 1
    assert check_trace(skipped, q.labels).first_error is not None


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("## Step1234 \n[]abcFinal Answer:")), max_size=300))
def test_steps_are_cut_where_the_checker_cuts(text: str) -> None:
    assert len(split_steps(text)) == len(check_trace(text, ["a", "b", "c"]).steps)


def test_stepwise_row_never_raises_on_bad_traces(questions) -> None:
    q = questions[0]
    for trace in (
        "",
        "Final Answer: [",
        "no steps at all",
        "## Step 1 ##",
        None,
        "## Step 99 ## [x]\nFinal Answer: [x]",
    ):
        row = stepwise_row(q, trace if trace is not None else "", "policy:test")
        assert len(row["labels"]) == len(row["completions"]) and not any(row["labels"])


def test_policy_rows_label_sampled_traces(questions) -> None:
    from mindzero.llm.base import Generation, UsageMeter

    class Echo:
        """Returns the gold trace for even prompts and garbage for odd ones."""

        name = "echo"
        usage = UsageMeter(None)

        def generate(self, prompts, n, temperature, max_new_tokens, seed):
            out = []
            for p in prompts:
                q = next(
                    q for q in questions if q.story_text() in p[0]["content"] and q.question_text in p[0]["content"]
                )
                gold = render_gold_trace(q.events, q.question, q.labels)
                out.append([Generation(gold if j % 2 == 0 else "???", 1, 1) for j in range(n)])
            return out

    batches = list(policy_batches(Echo(), questions[:6], n=2, batch=4))
    assert [end for end, _ in batches] == [4, 6]
    rows = [row for _, batch in batches for row in batch]
    assert len(rows) == 12
    assert [all(r["labels"]) and r["final_correct"] for r in rows] == [True, False] * 6


def test_prompt_has_the_paper_instructions_and_a_checked_example(questions) -> None:
    text = policy_messages(questions[4])[0]["content"]
    assert "Use [Null] if someone does not yet have knowledge" in text
    assert "Final Answer:" in text and questions[4].story_text() in text
    assert questions[4].question_text in pbm_problem(questions[4])


@pytest.mark.skipif(not __import__("pathlib").Path(HITOM).is_file(), reason="official Hi-ToM data not present")
def test_official_one_chapter_cot_subset() -> None:
    qs = questions_from_hitom(load_hitom(HITOM))
    assert len(qs) == 200 and {q.order for q in qs} == {0, 1, 2, 3, 4}
    assert all(q.labels[-1] == q.answer and len(q.lines) == len(q.events) for q in qs)
    assert all(q.answer in q.containers for q in qs)


def test_del_semantics_labels_gold_and_corrupted_rows() -> None:
    questions = list(questions_from_stories(generate_stories(20, seed=0, lengths=(1,), semantics="del"), "del"))
    assert {q.semantics for q in questions} == {"del"}
    rows = gold_and_corrupted_rows(questions, per_question=3, seed=0)
    assert all(all(r["labels"]) and r["final_correct"] for r in rows if r["source"] == "gold")
    assert all(not all(r["labels"]) for r in rows if r["source"] not in ("gold", "corrupt:misquoted_line"))


@pytest.mark.skipif(not __import__("pathlib").Path(HITOM).is_file(), reason="official Hi-ToM data not present")
def test_official_subset_under_del_takes_the_engine_answer() -> None:
    qs = questions_from_hitom(load_hitom(HITOM), "del")
    assert all(q.labels[-1] == q.answer for q in qs)
    changed = [q for q in qs if q.answer != q.meta["released_answer"]]
    assert len(changed) == 15 and all(q.order >= 1 for q in changed)


def test_ood_stories_have_controls_and_engine_answers() -> None:
    qs = load_ood_questions()
    stories = {q.story_id for q in qs}
    assert len(stories) >= 40
    variants = {q.meta["variant"] for q in qs}
    assert variants == {"false_belief", "present_protagonist", "no_transfer", "informed_protagonist"}
    for q in qs:
        assert q.answer in q.containers
        if q.order == 1:
            real = next(x for x in qs if x.story_id == q.story_id and x.order == 0).answer
            assert (q.answer != real) == (q.meta["variant"] == "false_belief"), q.id
    prose_is_template = sum(line == e.render() for q in qs for line, e in zip(q.lines, q.events))
    assert prose_is_template == 0
