"""Household's SSRL QA task (MMToM-style questions): label-free rows, a reward whose best option
is the labelling model's answer, and the curve's held-out set (ruled-out options: test_mmtom.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindzero.core.errors import UserError
from mindzero.domains import get_domain
from mindzero.domains.base import TrainData
from mindzero.domains.household.qa import generated_questions, question_scores
from mindzero.domains.reward import SSRLReward
from mindzero.envs.household.apartment import TRAIN_APARTMENTS
from mindzero.envs.household.human import HOUSEHOLD_HUMAN


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    return generated_questions(TRAIN_APARTMENTS, 14, 3)


def test_rows_carry_no_label_and_ignore_answers(questions, tmp_path) -> None:
    task = get_domain("household").tasks["qa"]
    assert {q["answer"] for q in questions} == {"a", "b"}
    flipped = [{**q, "answer": "ab"[q["answer"] == "a"], "label_posterior": None} for q in questions]
    paths = [tmp_path / "rows.jsonl", tmp_path / "flipped.jsonl"]
    for path, rows in zip(paths, (questions, flipped)):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rows, rows_flipped = (task.rows(TrainData(path=str(p))) for p in paths)
    assert rows == rows_flipped
    assert set(rows[0]) == {"prompt", "question", "id"}
    assert len(task.rows(TrainData(episodes=7, seed=3))) == 7


def test_reward_prefers_the_models_answer(questions) -> None:
    """The labels come from the same model on the symbolic state, so the reward (read from the
    text) must rank the labelled option first on every generated question."""
    domain = get_domain("household")
    reward = SSRLReward(domain.tasks["qa"], HOUSEHOLD_HUMAN)
    for q in questions:
        scores = reward(prompts=[q["question"]] * 3, completions=["a", "(b)", "no idea"], question=[q["question"]] * 3)
        best = "ab"[int(scores[1] > scores[0])]
        assert best == q["answer"], q["question_type"]
        assert scores[2] < min(scores[:2])  # a parse failure scores below every valid answer


def test_unreadable_question_is_a_user_error() -> None:
    with pytest.raises(UserError, match="cannot read question"):
        question_scores("What's inside the apartment: nothing. Question: who? (a) x (b) y")


def test_heldout_questions_are_labelled_test_apartment_questions() -> None:
    domain = get_domain("household")
    rows = domain.heldout_questions(7, 0)
    assert rows == domain.heldout_questions(7, 0)
    assert [r["question_type"] for r in rows] == ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4"]
    assert all(r["answer"] in "ab" and domain.qa_prompt(r, "compact") == r["question"] for r in rows)
    train = {q["question"] for q in generated_questions(TRAIN_APARTMENTS, 7, 0)}
    assert not train & {r["question"] for r in rows}


def test_facts_prompts_keep_what_the_answer_depends_on() -> None:
    """The ``facts`` encoding is a function of what the labelling model reads: no two generated
    questions share an encoding but differ in their answer, and the encoding is short."""
    from mindzero.domains.household.qa import facts_prompt

    seen: dict[str, str] = {}
    for q in generated_questions(TRAIN_APARTMENTS, 140, 5):
        facts = facts_prompt(q["question"])
        assert facts.split()[0] == ("belief" if q["question_type"] < 2 else "goal")
        assert len(facts.split()) <= 60
        assert seen.setdefault(facts, q["answer"]) == q["answer"], facts


ROOT = Path(__file__).resolve().parents[2]
MMTOM = ROOT.parent / "shared/data/mmtom_qa/questions.jsonl"


@pytest.mark.skipif(not MMTOM.exists(), reason="the shared MMToM-QA questions are not here")
def test_facts_prompts_do_not_depend_on_wording() -> None:
    """The same question in other words (the robustness set's rewordings) gets the same encoding."""
    from mindzero.domains.household.qa import facts_prompt

    sources = MMTOM.read_text().splitlines()
    reworded = [json.loads(line) for line in (ROOT / "benchmarks/data/mmtom_robust/reworded.jsonl").open()][:60:3]
    for row in reworded:
        assert facts_prompt(row["question"]) == facts_prompt(json.loads(sources[row["source"]])["question"]), row["id"]


def test_facts_style_rows_and_its_errors(questions) -> None:
    domain = get_domain("household")
    rows = domain.tasks["qa"].rows(TrainData(episodes=7, seed=3, prompt_style="facts"))
    assert all(r["prompt"].split()[0] in ("belief", "goal") and r["question"] != r["prompt"] for r in rows)
    with pytest.raises(UserError, match="facts cannot read question"):
        domain.qa_prompt({"question": "What's inside the apartment: nothing. Question: who? (a) x (b) y"}, "facts")
    with pytest.raises(UserError, match="unknown prompt style 'anchored'"):
        domain.assist_prompt(None, [], 1, "anchored")
