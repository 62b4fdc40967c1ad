"""Does a trace policy read the story? Teacher-forced next-token check at every bracketed belief.

For the gold traces of generated stories (seed 0, one chapter: the ``scale-eval --data generated``
stories, never trained on), feed prompt + gold trace and look at the policy's most likely token after
each ``is in [``: how often it is the gold value, and how often it is one of the question's own
containers (a model that ignores the story picks from all containers it has seen).

    OMP_NUM_THREADS=1 python benchmarks/deltom_copy_probe.py runs/policy-tiny/final [--stories 8]
"""

from __future__ import annotations

import argparse

import torch
from transformers import AutoModelForCausalLM

from mindzero.pbm.data import questions_from_stories
from mindzero.stories.generator import generate_stories
from mindzero.train.base import load_tokenizer
from mindzero.train.trace_policy import policy_rows, tokenized


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", help="a train trace-policy folder (OUT/final)")
    parser.add_argument("--stories", type=int, default=8, help="generated stories, 5 questions each")
    args = parser.parse_args()
    questions = list(questions_from_stories(generate_stories(args.stories, 0, (1,))))
    tokenizer = load_tokenizer(args.policy)
    model = AutoModelForCausalLM.from_pretrained(args.policy).eval()
    opening = tokenizer.convert_tokens_to_ids("ĠisĠinĠ[")
    hits = own = repeats = gold_repeats = total = 0
    for q, row in zip(questions, policy_rows(questions)):
        item = tokenized(row, tokenizer)
        with torch.inference_mode():
            logits = model(torch.tensor([item["input_ids"]])).logits[0]
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


if __name__ == "__main__":
    main()
