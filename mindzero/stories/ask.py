"""Answer questions about any story a user writes, with the engine's trace of who saw which line.

The front door to the engine (``mindzero stories ask``): the trace says, per line, which agents
observed it (the agents in its room, or a claim's hearers and believers), where everyone is
afterwards, and each question's answer after that line (the per-step labels).
"""

from __future__ import annotations

from collections.abc import Sequence

from mindzero.stories.events import Question
from mindzero.stories.semantics import StorySimulator, story_agents
from mindzero.stories.templates import Event, PrivateTell, PublicClaim


def ask(
    events: Sequence[Event], questions: Sequence[Question], semantics: str = "hitom", numbers: Sequence[int] = ()
) -> dict:
    """``{"semantics", "lines": [...], "answers": [...]}`` for a story and its questions.

    ``lines[i]``: the line's number and text, ``seen_by`` (who observed it; for a claim, who heard
    it), ``believed_by`` (claims only), ``room`` (where it happens), ``rooms`` (room -> agents in
    it after the line).
    ``answers[q]``: the question, its answer and ``labels`` (its answer after every line).
    """
    sim = StorySimulator(story_agents(events), semantics, events)
    numbers = list(numbers) or list(range(1, len(events) + 1))
    lines, labels = [], [[] for _ in questions]
    for number, event in zip(numbers, events):
        world = sim.world
        talk = isinstance(event, (PublicClaim, PrivateTell))
        line = {
            "line": number,
            "text": event.render(),
            "seen_by": world.hearers(event) if talk else world.witnesses(event),
            "believed_by": world.believers(event) if talk else None,
            "room": None if talk else world.event_room(event),
        }
        sim.step(event)
        rooms: dict[str, list[str]] = {}
        for agent, room in world.room_of.items():
            rooms.setdefault(room, []).append(agent)
        lines.append({**line, "rooms": rooms})
        for q, row in zip(questions, labels):
            row.append(sim.answer(q))
    answers = [
        {"question": q.render(), "chain": list(q.chain), "object": q.obj, "answer": row[-1], "labels": row}
        for q, row in zip(questions, labels)
    ]
    return {"semantics": semantics, "lines": lines, "answers": answers}


def format_trace(result: dict, show_labels: bool = False) -> str:
    """The ask result as text: each answer, then one trace line per story line."""
    out = [f"{a['question']} -> {a['answer'] or 'unknown'}" for a in result["answers"]]
    out.append(f"\nDEL trace ({result['semantics']} semantics): who saw each line")
    for i, line in enumerate(result["lines"]):
        seen = ", ".join(line["seen_by"]) or "nobody (no belief changes)"
        text = f"{line['line']:>3} {line['text']:<60} seen by: {seen}"
        if line["room"] is not None:
            text += f"; then in the {line['room']}: {', '.join(line['rooms'].get(line['room'], [])) or 'nobody'}"
        if line["believed_by"] is not None:
            text += f"; believed by: {', '.join(line['believed_by']) or 'nobody'}"
        if show_labels:
            text += "".join(f"\n      [{a['labels'][i] or 'Null'}] {a['question']}" for a in result["answers"])
        out.append(text)
    return "\n".join(out)
