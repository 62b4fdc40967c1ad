"""Out-of-distribution unexpected-transfer stories (Kosinski-style), hand-written, shipped with mindzero.

``mindzero/stories/data/ood_stories.jsonl`` holds 11 scenarios × 4 variants = 44 stories in free
prose unlike the generator's templates: ``false_belief`` (the protagonist leaves, the object is
moved), and the true-belief controls ``present_protagonist`` (the protagonist watches the move),
``no_transfer`` (nothing moves) and ``informed_protagonist`` (the mover privately tells the
protagonist afterwards). Each story lists its prose sentences (what a model reads) and one Hi-ToM
event per sentence (what the DEL engine labels), so gold answers and per-step labels come from the
engine, never from hand-typed answers. Three questions per story: orders 0, 1 and 2.

:func:`load_own_words_questions` reads any stories in a user's own words (``{"id", "text",
"questions"}`` per line, as ``benchmarks/data/story_reworded/`` holds them) through the story reader:
the model is shown the events the reader found, in the templates' words, and the engine labels them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from mindzero.core.errors import UserError, clip
from mindzero.core.results import iter_jsonl
from mindzero.pbm.data import BeliefQuestion
from mindzero.stories.events import parse_question, read_question, read_story, story_context
from mindzero.stories.semantics import engine_labels
from mindzero.stories.templates import Move, ObjectAt, PrivateTell, PublicClaim, parse_line

#: The fields of an OOD story line.
STORY_FIELDS = {
    "id": str,
    "variant": str,
    "object": str,
    "prose": list,
    "events": list,
    "containers": list,
    "questions": list,
}


def default_path() -> Path:
    return Path(str(resources.files("mindzero.stories") / "data" / "ood_stories.jsonl"))


def load_ood_questions(path: str | Path | None = None, semantics: str = "hitom") -> list[BeliefQuestion]:
    """Every question of every OOD story, labelled by the engine (sentence i ↔ event i)."""
    path = Path(path) if path is not None else default_path()
    out = []
    for n, row in iter_jsonl(path, STORY_FIELDS):
        if len(row["prose"]) != len(row["events"]):
            raise UserError(f"{path}:{n}: {len(row['prose'])} prose sentences but {len(row['events'])} events")
        if not all(isinstance(x, str) for x in row["prose"] + row["events"] + row["containers"]):
            raise UserError(f"{path}:{n}: prose, events and containers must be lists of text")
        events = []
        for text in row["events"]:
            event = parse_line(text)
            if event is None:
                raise UserError(f"{path}:{n}: event {clip(text)!r} matches no story template")
            events.append(event)
        for spec in row["questions"]:
            if not isinstance(spec, dict) or not isinstance(spec.get("question"), str):
                raise UserError(f"{path}:{n}: every question must be an object with a 'question' text")
            try:
                question = parse_question(spec["question"])
            except UserError as err:
                raise UserError(f"{path}:{n}: {err}") from None
            labels = engine_labels(events, question, semantics)
            out.append(
                BeliefQuestion(
                    id=f"{row['id']}-{question.order}",
                    story_id=row["id"],
                    order=question.order,
                    lines=tuple(row["prose"]),
                    events=tuple(events),
                    question=question,
                    question_text=spec["question"],
                    containers=tuple(row["containers"]),
                    labels=tuple(labels),
                    answer=labels[-1],
                    meta={"variant": row["variant"], "protagonist_belief": row.get("protagonist_belief")},
                    semantics=semantics,
                )
            )
    return out


#: The fields of a story in own words.
OWN_WORDS_FIELDS = {"id": str, "text": str, "questions": list}


def load_own_words_questions(path: str | Path, semantics: str = "hitom") -> tuple[list[BeliefQuestion], list[str]]:
    """Every question of every story the reader reads whole, labelled by the engine, and the ids of
    the stories it refused (a story with an unread sentence or question is left out, never guessed)."""
    out, refused = [], []
    for n, row in iter_jsonl(path, OWN_WORDS_FIELDS):
        try:
            story = read_story(row["text"])
            context = story_context(story)
            questions = [(text, read_question(text, context=context)) for text in row["questions"]]
        except UserError:
            refused.append(row["id"])
            continue
        events = tuple(story.events)
        containers = tuple(
            dict.fromkeys(e.container for e in events if isinstance(e, ObjectAt | Move | PublicClaim | PrivateTell))
        )
        for k, (text, question) in enumerate(questions):
            try:
                labels = engine_labels(list(events), question, semantics)
            except UserError as err:
                raise UserError(f"{path}:{n}: {err}") from None
            out.append(
                BeliefQuestion(
                    id=f"{row['id']}-q{k}",
                    story_id=row["id"],
                    order=question.order,
                    lines=tuple(e.render() for e in events),
                    events=events,
                    question=question,
                    question_text=text,
                    containers=containers,
                    labels=tuple(labels),
                    answer=labels[-1],
                    meta={"text": row["text"]},
                    semantics=semantics,
                )
            )
    return out, refused
