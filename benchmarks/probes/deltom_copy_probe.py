"""Does a trace policy read the story? Teacher-forced next-token check at every bracketed belief.

For the gold traces of generated stories (seed 0, one chapter: the ``scale-eval --data generated``
stories, never trained on), feed prompt + gold trace and look at the policy's most likely token after
each ``is in [``: how often it is the gold value, and how often it is one of the question's own
containers (a model that ignores the story picks from all containers it has seen). Then the
teacher-forced next-token accuracy over every trace token, by the line of its step block it sits in:
the step header, the story line the step repeats (pure copying), the effect line (template + names)
and the belief sentence up to its bracket (the question's chain, copied from the question).

    OMP_NUM_THREADS=1 python benchmarks/probes/deltom_copy_probe.py runs/policy-tiny/final [--stories 8]
"""

from __future__ import annotations

import argparse

import torch

from mindzero.llm.models import load_language_model
from mindzero.pbm.data import questions_from_stories
from mindzero.stories.generator import generate_stories
from mindzero.train.base import load_tokenizer
from mindzero.train.trace_policy import policy_rows, tokenized

#: The lines of a gold step block, in order (the block's 4th line holds the bracketed belief).
LINE_KINDS = ("step header", "story line", "effect", "belief sentence")


def token_line_kinds(trace: str, tokenizer) -> list[str | None]:
    """For each token of ``trace`` (tokenized as the policy's completion is): which line of its step
    block it starts in, or None (the final answer, blank lines)."""
    kinds: list[str | None] = []
    for begin, _ in tokenizer(trace, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]:
        block_start = trace.rfind("\n\n", 0, begin + 1)
        line = trace[block_start + 2 if block_start >= 0 else 0 : begin + 1].count("\n")
        in_steps = (
            trace.rfind("## Step", 0, begin + 1) >= 0 and "Final Answer" not in trace[max(block_start, 0) : begin + 1]
        )
        kinds.append(LINE_KINDS[line] if in_steps and line < len(LINE_KINDS) else None)
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", help="a train trace-policy folder (OUT/final)")
    parser.add_argument("--stories", type=int, default=8, help="generated stories, 5 questions each")
    args = parser.parse_args()
    questions = list(questions_from_stories(generate_stories(args.stories, 0, (1,))))
    tokenizer = load_tokenizer(args.policy)
    model = load_language_model(args.policy).eval()
    opening = tokenizer.convert_tokens_to_ids("ĠisĠinĠ[")
    hits = own = repeats = gold_repeats = total = 0
    by_line: dict[str, list[int]] = {kind: [] for kind in LINE_KINDS}
    for q, row in zip(questions, policy_rows(questions)):
        item = tokenized(row, tokenizer)
        with torch.inference_mode():
            logits = model(torch.tensor([item["input_ids"]])).logits[0]
        guesses = logits.argmax(-1).tolist()
        start = item["completion_mask"].index(1)
        for k, kind in enumerate(token_line_kinds(row["completion"], tokenizer)):
            if kind is not None:
                by_line[kind].append(guesses[start + k - 1] == item["input_ids"][start + k])
        containers = {tokenizer.convert_tokens_to_ids(tokenizer.tokenize(c)[0]) for c in q.containers}
        previous = None  # the value in the trace's previous brackets: right at most lines
        for k, token in enumerate(item["input_ids"][:-1]):
            if token == opening and item["completion_mask"][k]:
                guess, gold = int(logits[k].argmax()), item["input_ids"][k + 1]
                total += 1
                hits += guess == gold
                own += guess in containers
                repeats += guess == previous
                gold_repeats += gold == previous
                previous = gold
    share = (
        f"argmax = gold {hits / total:.3f}, one of the question's containers {own / total:.3f}, "
        f"the previous bracket's value {repeats / total:.3f} (gold is that value {gold_repeats / total:.3f})"
    )
    print(f"{total} bracketed values: {share}")
    print("teacher-forced token accuracy by line of the step block:")
    for kind, hit in by_line.items():
        print(f"  {kind:<16} {sum(hit) / max(len(hit), 1):.3f}  ({len(hit)} tokens)")


if __name__ == "__main__":
    main()
