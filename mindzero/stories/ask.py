"""Answer questions about any story a user writes, with the engine's trace of who saw which line.

The front door to the engine (``mindzero stories ask``): the trace says, per line, which agents
observed it (the agents in its room, or a claim's hearers and believers), where everyone is
afterwards, and each question's answer after that line (the per-step labels).
"""

from __future__ import annotations

from collections.abc import Sequence

from mindzero.core.errors import UserError
from mindzero.stories.events import Question
from mindzero.stories.semantics import StorySimulator, story_agents
from mindzero.stories.templates import Enter, Event, IsIn, PrivateTell, PublicClaim


def ask(
    events: Sequence[Event],
    questions: Sequence[Question],
    semantics: str = "hitom",
    numbers: Sequence[int] = (),
    entering: str = "sees",
) -> dict:
    """``{"semantics", "entering", "lines": [...], "answers": [...], "revealed": [...]}`` for a story
    and its questions (``entering``: what people entering a room see, :data:`ENTERING`).

    ``lines[i]``: the line's number and text, ``seen_by`` (who observed it; for a claim, who heard
    it), ``believed_by`` (claims only), ``room`` (where it happens), ``rooms`` (room -> agents in
    it after the line).
    ``answers[q]``: the question, its answer and ``labels`` (its answer after every line).
    ``revealed``: the entering lines whose entrants saw objects lying in the room (the rule a
    reader of a Sally-Anne story may not expect).
    """
    objects = {e.obj for e in events if hasattr(e, "obj")}
    for q in questions:
        if q.obj not in objects:  # else "unknown", as if the chain had never learnt where it is
            raise UserError(
                f"{q.render()!r}: the {q.obj} is not in the story (it tells of: {', '.join(sorted(objects))})"
            )
    sim = StorySimulator(story_agents(events), semantics, events, entering)
    numbers = list(numbers) or list(range(1, len(events) + 1))
    lines, labels, revealed = [], [[] for _ in questions], []
    for number, event in zip(numbers, events):
        world = sim.world
        talk = isinstance(event, (PublicClaim, PrivateTell))
        seen = world.hearers(event) if talk else world.witnesses(event)
        if isinstance(event, Enter | IsIn) and seen and (objects := world.objects_in(event.room)):
            if entering == "blind":
                seen = []
            else:
                revealed.append({"line": number, "agents": list(event.agents), "objects": objects})
        line = {
            "line": number,
            "text": event.render(),
            "seen_by": seen,
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
    return {"semantics": semantics, "entering": entering, "lines": lines, "answers": answers, "revealed": revealed}


def format_trace(result: dict, show_labels: bool = False) -> str:
    """The ask result as text: each answer, then one trace line per story line."""
    out = [f"{a['question']} -> {a['answer'] or 'unknown'}" for a in result["answers"]]
    for r in result["revealed"]:
        out.append(
            f"note: line {r['line']}: entering, {', '.join(r['agents'])} see(s) where the {', '.join(r['objects'])} "
            "is (Hi-ToM's rule); --entering blind keeps what lies in containers hidden (the classic Sally-Anne reading)"
        )
    rule = "" if result["entering"] == "sees" else ", entering blind"
    out.append(f"\nDEL trace ({result['semantics']} semantics{rule}): who saw each line")
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
