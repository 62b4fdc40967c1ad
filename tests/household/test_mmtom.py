"""MMToM-QA reader and model-based answerer on hand-written questions in the benchmark's style
(written for these tests; none is copied from the test set)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.domains import get_domain
from mindzero.domains.household.mmtom.generate import TYPES, generate
from mindzero.domains.household.mmtom.model import MMToMModel, answer, option_scores
from mindzero.domains.household.mmtom.reader import read_question
from mindzero.domains.household.qa import RULED_OUT, question_scores
from mindzero.inference.llm import LLMQAAnswerer, LLMSettings
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter
from mindzero.tasks.mmtom import MMToMTotals, mmtom_llm_samples, mmtom_rows, mmtom_samples

DESCRIPTION = (
    "What's inside the apartment: The apartment consists of a kitchen, a bedroom, a living room, and a bathroom. \n"
    "The kitchen is equipped with a fridge, three cabinets, a microwave, and a kitchen table. The second cabinet "
    "from the left holds two plates, while the first and third cabinets are empty. Inside the fridge, there is an "
    "apple and a salmon, and the microwave contains a cupcake. A dish bowl rests on the kitchen table. \n"
    "In the bedroom, there is a desk and a coffee table, with a book placed on the desk. \n"
    "The living room features a sofa and a cabinet, which contains a remote control and a bottle of wine. \n"
    "The bathroom is furnished with a bathroom cabinet, which is currently empty. \n"
)
ACTIONS = (
    "Actions taken by Olivia: Olivia is situated in the bedroom. She walks to the kitchen, heads towards the "
    "fridge, opens it, and then closes it. She then opens and closes the first kitchen cabinet, and is about to "
    "open the third kitchen cabinet. \n"
)
RESPOND = " Please respond with either a or b."


def belief_q(goal: str, place: str, inside_first: bool = True) -> str:
    inside = f"Olivia thinks that the {goal} is inside the {place}."
    outside = f"Olivia thinks that the {goal} is not inside the {place}."
    a, b = (inside, outside) if inside_first else (outside, inside)
    return (
        f"Question: If Olivia has been trying to get a {goal}, which one of the following statements is more "
        f"likely to be true? (a) {a} (b) {b}{RESPOND}"
    )


def goal_q(a: str, b: str, premise: str = "") -> str:
    """A goal question; ``premise`` (type 2.1) is "If Olivia think there isn't a G inside the C"."""
    lead = f"{premise}, which" if premise else "Which"
    return (
        f"Question: {lead} one of the following statements is more likely to be true? "
        f"(a) Olivia has been trying to get {a}. (b) Olivia has been trying to get {b}.{RESPOND}"
    )


def text(question: str, actions: str = ACTIONS) -> str:
    return DESCRIPTION + actions + question


def test_reader_builds_the_scene() -> None:
    r = read_question(text(belief_q("plate", "3rd kitchen cabinet")))
    places = r.scene.to_json()["places"]
    assert places["kitchen/kitchencabinet/2"] == {"plate": 2}
    assert places["kitchen/kitchencabinet/1"] == {} and places["kitchen/kitchencabinet/3"] == {}
    assert places["kitchen/fridge"] == {"apple": 1, "salmon": 1}
    assert places["kitchen/microwave"] == {"cupcake": 1}
    assert places["kitchen/kitchentable"] == {"dishbowl": 1}
    assert places["bedroom/desk"] == {"book": 1} and places["bedroom/coffeetable"] == {}
    assert places["livingroom/cabinet"] == {"remotecontrol": 1, "wine": 1}
    assert places["bathroom/bathroomcabinet"] == {}
    assert r.scene.places["kitchen/fridge"].container and not r.scene.places["bedroom/desk"].container
    assert r.unread == [] and r.sentences == 11


def test_reader_builds_the_story_and_query() -> None:
    r = read_question(text(belief_q("plate", "3rd kitchen cabinet", inside_first=False)))
    assert r.story.start == "bedroom"
    assert [(v.place, v.opened) for v in r.story.visits] == [
        ("kitchen/fridge", True),
        ("kitchen/kitchencabinet/1", True),
        ("kitchen/kitchencabinet/3", False),
    ]
    q = r.query
    assert (q.kind, q.goal, q.place, q.inside) == ("belief", "plate", "kitchen/kitchencabinet/3", 1)
    premise = "If Olivia think there isn't a salmon inside the fridge"
    g = read_question(text(goal_q("a salmon", "a bottle of wine", premise)))
    assert g.query.options == ("salmon", "wine") and g.query.given == ("salmon", "kitchen/fridge")


def test_reader_reads_repeats_lists_and_room_visits() -> None:
    actions = (
        "Actions taken by Olivia: Olivia is initially in the bathroom. She proceeds to the kitchen and "
        "sequentially approaches the third and first kitchen cabinets, opening and closing each one in turn. "
        "She repeats this action with the microwave. Afterward, she walks towards the bedroom, returns to the "
        "kitchen, and heads towards the fridge. \n"
    )
    r = read_question(text(belief_q("salmon", "fridge"), actions))
    assert r.story.start == "bathroom" and r.unread == []
    assert [(v.room, v.place, v.opened) for v in r.story.visits] == [
        ("kitchen", "kitchen/kitchencabinet/3", True),
        ("kitchen", "kitchen/kitchencabinet/1", True),
        ("kitchen", "kitchen/microwave", True),
        ("bedroom", None, False),
        ("kitchen", "kitchen/fridge", False),
    ]


def test_unread_sentences_are_counted_not_dropped() -> None:
    odd = DESCRIPTION + "A gecko purrs on the bookshelf. A plate and a book are on the sofa and the desk. \n"
    r = read_question(odd + ACTIONS + belief_q("plate", "fridge"))
    assert [u["text"] for u in r.unread] == [
        "A gecko purrs on the bookshelf.",
        "A plate and a book are on the sofa and the desk.",
    ]
    assert [u["line"] for u in r.unread] == [6, 6] and r.unread[0]["unknown"] == ["gecko", "purrs"]
    assert r.unread[1]["why"] == "objects not given one place"
    assert r.sentences == 13
    # the plate's places are unknown, so a question about the plate depends on the unread sentence
    assert [u["text"] for u in r.blockers()] == ["A plate and a book are on the sofa and the desk."]
    places = r.scene.to_json()["places"]
    assert places["bedroom/desk"] == {"book": 1} and "bathroom/bookshelf" not in places  # unread adds nothing


def test_reader_errors_are_one_line() -> None:
    with pytest.raises(UserError, match="no sentence says what the person does"):
        read_question(DESCRIPTION + "Question: Is the plate in the fridge?")
    with pytest.raises(UserError, match="unknown form"):
        read_question(text("Question: Where is Olivia? Please respond with either a or b."))
    with pytest.raises(UserError, match="does not know.*giraffe"):
        read_question(text(belief_q("giraffe", "fridge")))


def test_reading_and_answers_are_deterministic() -> None:
    t = text(goal_q("a salmon", "a book"))
    assert read_question(t).to_json() == read_question(t).to_json()
    assert answer(read_question(t), MMToMModel()) == answer(read_question(t), MMToMModel())


def p_inside(question: str, actions: str = ACTIONS) -> float:
    return answer(read_question(text(question, actions)), MMToMModel(samples=2048))["p_inside"]


def test_belief_about_to_open_means_thinks_inside_even_if_false() -> None:
    # the plate is in the 2nd cabinet, not the 3rd: a false belief, read from the approach
    assert p_inside(belief_q("plate", "3rd kitchen cabinet")) > 0.8


def test_belief_of_an_opened_container_is_what_was_seen() -> None:
    out = answer(read_question(text(belief_q("plate", "fridge"))), MMToMModel())
    assert out["basis"] == "seen" and out["p_inside"] == 0.0 and out["option_probs"] == [0.0, 1.0]


def test_belief_passed_over_container_means_thinks_not_inside() -> None:
    # the microwave is in the same kitchen and never approached: had she believed, she could have gone there
    assert p_inside(belief_q("plate", "microwave")) < 0.5


def test_goal_left_behind_is_unlikely() -> None:
    # the salmon was in the fridge she opened and closed without taking it
    probs = answer(read_question(text(goal_q("a salmon", "a plate"))), MMToMModel())["option_probs"]
    assert probs[1] > 0.9


def test_goal_visible_but_ignored_is_unlikely() -> None:
    # the dish bowl lies on the kitchen table in plain sight, yet she searches containers; a seen
    # place counts as one more place she thinks holds it (no more), so the evidence is moderate
    probs = answer(read_question(text(goal_q("a dish bowl", "a remote control"))), MMToMModel())["option_probs"]
    assert 0.6 < probs[1] < 0.9


def test_goal_given_belief_premise() -> None:
    q = goal_q("a plate", "a remote control", "If Olivia think there isn't a plate inside the 3rd kitchen cabinet")
    assert answer(read_question(text(q)), MMToMModel())["option_probs"][1] > 0.8
    free = answer(read_question(text(goal_q("a plate", "a remote control"))), MMToMModel())["option_probs"]
    assert free[1] < 0.8  # without the premise a plate is as good an explanation


def rows() -> list[dict]:
    return [
        {"question": text(belief_q("plate", "3rd kitchen cabinet")), "answer": "a", "question_type": 1.2},
        {"question": text(goal_q("a salmon", "a plate")), "answer": "b", "question_type": 2.3},
        {"question": DESCRIPTION + "Question: none", "answer": "a", "question_type": 2.3},
    ]


def test_task_counts_accuracy_coverage_and_unreadable() -> None:
    totals = MMToMTotals()
    samples = list(mmtom_samples(mmtom_rows(rows()), "model", MMToMModel(), totals, np.random.default_rng(0)))
    assert [s["correct"] for s in samples[:2]] == [True, True]
    assert samples[2]["reader_error"] and samples[2]["prediction"] == "unreadable" and samples[2]["state"] is None
    m = totals.metrics()
    assert m["accuracy_question_type_1.2"] == 1.0 and m["questions_unreadable"] == 1
    assert m["coverage"] == pytest.approx(2 / 3) and m["accuracy"] == pytest.approx(2 / 3)
    assert m["accuracy_answered"] == 1.0
    assert m["reader_coverage"] == 1.0 and m["sentences"] == 2 * 11
    assert samples[0]["state"]["query"]["place"] == "kitchen/kitchencabinet/3"
    coin = list(mmtom_samples(mmtom_rows(rows()), "random", MMToMModel(), MMToMTotals(), np.random.default_rng(0)))
    assert {s["prediction"] for s in coin} <= {"a", "b"}


def test_ties_are_reported_as_ties_with_half_credit() -> None:
    # nothing she did tells an apple (fridge) from a cupcake (microwave): she only stands in the bedroom
    still = "Actions taken by Olivia: Olivia is situated in the bedroom. \n"
    row = {"question": text(goal_q("an apple", "a cupcake"), still), "answer": "a", "question_type": 2.2}
    totals = MMToMTotals()
    [sample] = mmtom_samples(mmtom_rows([row]), "model", MMToMModel(), totals, np.random.default_rng(0))
    assert sample["prediction"] == "tie" and not sample["correct"] and sample["credit"] == 0.5
    assert totals.metrics()["accuracy"] == 0.5 and totals.metrics()["ties"] == 1


def test_strict_turns_an_unread_sentence_into_a_one_line_error() -> None:
    odd = DESCRIPTION + "A gecko purrs on the bookshelf. \n" + ACTIONS + belief_q("plate", "fridge")
    expected = r"line 6: cannot read 'A gecko purrs on the bookshelf\.' \(unknown words: gecko, purrs"
    with pytest.raises(UserError, match=expected):
        read_question(odd, strict=True)
    assert read_question(odd).unread


def test_rows_reject_a_bad_answer() -> None:
    with pytest.raises(UserError, match="answer must be 'a' or 'b'"):
        mmtom_rows([{"question": "", "answer": "c", "question_type": 1.1}])


def test_cli_mmtom_eval_writes_results(tmp_path) -> None:
    data = tmp_path / "q.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows()[:2]))
    out = tmp_path / "out"
    assert main(["household", "mmtom-eval", "--data", str(data), "--out", str(out)]) == 0
    metrics = json.loads((out / "results.json").read_text())["metrics"]
    assert metrics["accuracy"] == 1.0 and metrics["reader_coverage"] == 1.0 and metrics["ties"] == 0
    first = json.loads((out / "samples.jsonl").read_text().splitlines()[0])
    assert first["posterior"]["basis"] == "inferred" and first["state"]["story"]["start"] == "bedroom"


def test_generated_questions_read_back_and_match_their_labels() -> None:
    model = MMToMModel(samples=256)
    made = list(generate(("apt5",), 2, 3, model))
    assert sorted(Counter(r["question_type"] for r in made).items()) == [(float(t), 2) for t in TYPES]
    assert made == list(generate(("apt5",), 2, 3, model))  # deterministic
    for row in made:
        reading = read_question(row["question"])
        assert reading.unread == []
        probs = answer(reading, model)["option_probs"]
        assert probs == row["label_posterior"]["option_probs"]
        assert ("a" if probs[0] > probs[1] else "b") == row["answer"]


class ScriptedBackend(Backend):
    """Always writes the same completion (a stand-in model: no weights, exact costs)."""

    def __init__(self, text: str) -> None:
        self.name, self.text, self.usage, self.prompts = "scripted", text, UsageMeter(1000), []

    def sample(self, prompts: Sequence[Prompt], n=1, temperature=1.0, max_new_tokens=256, seed=None):
        self.prompts += prompts
        return [[Generation(self.text, 10, len(self.text.split()))] * n for _ in prompts]

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        return [0.0] * len(continuations)


def test_llm_answers_from_the_question_text_with_costs() -> None:
    backend = ScriptedBackend("(b)")
    answerer = LLMQAAnswerer(get_domain("household"), backend)
    totals = MMToMTotals()
    samples = [s for unit in mmtom_llm_samples(mmtom_rows(rows()[:2]), answerer, totals) for s in unit]
    assert backend.prompts[0][0]["content"] == rows()[0]["question"]
    assert [s["prediction"] for s in samples] == ["b", "b"] and [s["correct"] for s in samples] == [False, True]
    assert samples[0]["state"]["story"]["start"] == "bedroom"
    metrics = totals.metrics() | answerer.stats.metrics()
    assert metrics["accuracy"] == 0.5 and metrics["tokens_per_decision"] > 0 and metrics["reader_coverage"] == 1.0


def test_walk_into_a_room_the_reader_missed_keeps_finite_posteriors() -> None:
    bedroom = "In the bedroom, there is a desk and a coffee table, with a book placed on the desk. \n"
    odd = DESCRIPTION.replace(bedroom, "In the bedroom, a hamster naps on the desk. \n")
    actions = ACTIONS.replace("Olivia is situated in the bedroom.", "Olivia is situated in the bathroom.")
    actions = actions.replace("She walks to the kitchen,", "She walks towards the bedroom, returns to the kitchen,")
    r = read_question(odd + actions + goal_q("a salmon", "a plate"))
    assert len(r.unread) == 1 and not any(p.startswith("bedroom/") for p in r.scene.places)
    assert r.story.visits[0].place is None and r.story.visits[0].room == "bedroom"
    probs = answer(r, MMToMModel())["option_probs"]
    assert all(np.isfinite(probs)) and probs[1] > 0.9


def test_a_ruled_out_option_scores_finite_and_last() -> None:
    """Olivia opened the fridge, so she knows the plate is not there: "inside" has likelihood 0,
    which the QA task's reward floors to RULED_OUT below the other option."""
    question = text(belief_q("plate", "fridge"))
    logliks, logpriors, basis = option_scores(read_question(question), MMToMModel(samples=64))
    assert basis == "seen" and logliks[0] == -np.inf and np.isfinite(logliks[1])
    scores, _ = question_scores(question)
    assert np.isfinite(scores).all() and scores[0] - scores[1] == pytest.approx(RULED_OUT)


def test_facts_prompts_answer_readable_questions_and_mark_the_rest_unreadable() -> None:
    """Under the ``facts`` style a question the reader cannot take is answered "unreadable" (wrong, and
    out of the coverage, with the reason), never sent to the model and never an exception; the others
    are asked."""
    backend = ScriptedBackend("(a)")
    settings = LLMSettings(prompt_style="facts", max_new_tokens=4)
    answerer = LLMQAAnswerer(get_domain("household"), backend, settings=settings)
    unreadable = {**rows()[0], "question": "What's inside the apartment: nothing. Question: who? (a) x (b) y"}
    records = [r for batch, _ in answerer.answers([rows()[0], unreadable, rows()[1]], batch=3) for r in batch]
    assert [r["prediction"] for r in records] == ["a", "unreadable", "a"]
    assert "cannot read question" in records[1]["unreadable"]
    assert len(backend.prompts) == 2 and all(p[0]["content"].split()[0] in ("belief", "goal") for p in backend.prompts)
    assert answerer.stats.metrics()["parse_failure_rate"] == 0  # the model answered both questions it was asked
    totals = MMToMTotals()
    unit = next(mmtom_llm_samples(mmtom_rows([rows()[0], unreadable]), answerer, totals, batch=2))
    assert [s["prediction"] for s in unit] == ["a", "unreadable"] and totals.metrics()["coverage"] == 0.5


def test_facts_prompts_refuse_a_story_with_an_unread_action() -> None:
    """A sentence of what the person did that the reader cannot read may change the answer: the facts
    prompt is refused, as the model reasoner refuses to answer, rather than built from the rest."""
    from mindzero.domains.household.qa import facts_prompt

    question = text(goal_q("a salmon", "a plate"))
    assert facts_prompt(question).startswith("goal")
    odd = question.replace("She walks to the kitchen,", "She zorbles the kitchen and she walks to the kitchen,")
    assert read_question(odd).blockers()
    with pytest.raises(UserError, match="unread sentence may change the answer"):
        facts_prompt(odd)
