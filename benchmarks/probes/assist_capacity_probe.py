"""How close can a scratch model of a given size get to exact goal inference with full information?

A label-using diagnostic, never a product path: the scratch Llama of ``train ssrl --model scratch``
(its tokenizer built on the task's prompts) is trained by cross-entropy on goal pairs *drawn from
the exact posterior* (forward KL to it, one letter-form particle ``C G``, object order at random),
64 prompts per step. Every ``--every`` steps it reads the model's posterior exactly as ``gridworld
assist --answer-mode score`` does (the probability of naming each pair, both orders) on the
decisions of 30 held-out episodes and prints KL(exact ‖ model), p(true goal) and how often the most
likely goal is right — overall, before the first pick and while the human carries an object.

What GRPO reaches on the same model and prompt is bounded by this curve at equal samples, so it
separates a reward that teaches too little from a model or prompt that cannot hold the posterior.
``--model DIR --steps 0`` reads out any letter-form model the same way (a GRPO checkpoint).
``--save DIR`` keeps the final model as an ordinary HF folder for ``gridworld assist --model DIR
--n-particles 1 --answer-mode score``.

    OMP_NUM_THREADS=1 python benchmarks/probes/assist_capacity_probe.py --style relative --steps 1500
    python benchmarks/probes/assist_capacity_probe.py --hidden 256 --layers 4 --heads 8 --save runs/distilled
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from scipy.special import logsumexp, softmax

from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.domains.base import TrainData
from mindzero.domains.gridworld.hypotheses import OBJECT_LETTERS, format_letter_particles
from mindzero.domains.gridworld.ssrl import assist_rows, goal_logliks
from mindzero.envs.gridworld.world import goal_pairs
from mindzero.llm.models import load_language_model
from mindzero.llm.transformers_backend import encode_prompt
from mindzero.tasks.curves import assist_decisions
from mindzero.train.base import CHAT_ROLES, ScratchSpec, build_scratch, load_tokenizer

GOALS = goal_pairs(8)
LETTERS = OBJECT_LETTERS[:8]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--style", default="relative", help="prompt style (letter form: relative or anchored)")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--number-features", type=int, default=0)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--every", type=int, default=250, help="steps between held-out read-outs")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--train-episodes", type=int, default=1000)
    parser.add_argument("--save", type=Path, help="write the final model and tokenizer here")
    parser.add_argument(
        "--model", type=Path, help="start from this model folder (e.g. a GRPO checkpoint; --steps 0 reads it out)"
    )
    args = parser.parse_args()
    torch.manual_seed(0)
    rng, started, human = np.random.default_rng(0), time.perf_counter(), HumanParams()
    rows = assist_rows(TrainData(episodes=args.train_episodes, seed=0, every=2, n_particles=1, prompt_style=args.style))
    posteriors = [softmax(goal_logliks(r["layout"], r["actions"], human)) for r in rows]
    domain = get_domain("gridworld")
    decisions = assist_decisions(domain, domain.heldout_episodes(30, 7), human, 7)
    held_out = [domain.assist_prompt(d.episode, d.observations, 1, args.style) for d in decisions]
    phases = np.array([p.split("|")[0].strip() for p in held_out])

    with tempfile.TemporaryDirectory() as folder:
        path = args.model
        if path is None:
            answers = [format_letter_particles([(i, j)], [1.0]) for i in range(8) for j in range(8) if i != j]
            spec = ScratchSpec(args.hidden, args.layers, args.heads, number_features=args.number_features)
            path = build_scratch(folder, [*(r["prompt"] for r in rows[:3000]), *answers, *CHAT_ROLES], spec, 0)
        tokenizer, model = load_tokenizer(path), load_language_model(path)
        if args.save:
            shutil.copytree(path, args.save, dirs_exist_ok=True)
    first = [_single_token(tokenizer, x) for x in LETTERS]  # a letter starting the answer
    second = [_single_token(tokenizer, f" {x}") for x in LETTERS]  # a letter after a space
    params = sum(p.numel() for p in model.parameters())

    def last_logits(sequences: list[list[int]]) -> torch.Tensor:
        """Next-token logits after each sequence (right-padded batch)."""
        width = max(map(len, sequences))
        ids = torch.zeros((len(sequences), width), dtype=torch.long)
        mask = torch.zeros_like(ids)
        for k, s in enumerate(sequences):
            ids[k, : len(s)], mask[k, : len(s)] = torch.tensor(s), 1
        logits = model(input_ids=ids, attention_mask=mask).logits
        return logits[torch.arange(len(sequences)), mask.sum(1) - 1]

    def encode(prompt: str) -> list[int]:
        return encode_prompt(tokenizer, [{"role": "user", "content": prompt}], str(path))

    train_ids, held_ids = [encode(r["prompt"]) for r in rows], [encode(p) for p in held_out]
    exact = np.array([[d.exact.prob(g) for g in GOALS] for d in decisions])
    truth = np.array([GOALS.index(tuple(d.goal)) for d in decisions])
    exact_right = exact.argmax(1) == truth
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    print(f"{params / 1e6:.2f} M parameters, {len(rows)} training prompts, {len(decisions)} held-out decisions")
    print("step  KL(exact||model)  p(true)  MAP right: all / before the pick / carrying  (exact)  seconds")
    for step in range(args.steps + 1):
        if step % args.every == 0 or step == args.steps:
            with torch.no_grad():
                model.eval()
                read = np.concatenate(
                    [
                        _pair_posteriors(last_logits, held_ids[k : k + 32], first, second)
                        for k in range(0, len(held_ids), 32)
                    ]
                )
                model.train()
            kl = np.sum(exact * (np.log(np.maximum(exact, 1e-300)) - np.log(read)), axis=1).mean()
            right = read.argmax(1) == truth
            cells = "  ".join(
                f"{right[phases == ph].mean():.2f} ({exact_right[phases == ph].mean():.2f})"
                for ph in ("h0 p0", "h1 p1")
            )
            p_true = read[np.arange(len(truth)), truth].mean()
            print(
                f"{step:5d}  {kl:.2f}  {p_true:.3f}  {right.mean():.2f} ({exact_right.mean():.2f})  {cells}  "
                f"{time.perf_counter() - started:.0f}",
                flush=True,
            )
        if step == args.steps:
            break
        batch, targets = [], []
        for k in rng.choice(len(rows), size=64, replace=False):
            a, b = GOALS[rng.choice(len(GOALS), p=posteriors[k])]
            a, b = (a, b) if rng.random() < 0.5 else (b, a)
            batch.append(train_ids[k] + [first[a]])
            targets.append((first[a], second[b]))
        target = torch.tensor(targets)
        logits_first = last_logits([s[:-1] for s in batch])
        logits_second = last_logits(batch)
        loss = torch.nn.functional.cross_entropy(logits_first, target[:, 0]) + torch.nn.functional.cross_entropy(
            logits_second, target[:, 1]
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if args.save:
        model.save_pretrained(args.save)
        print(f"saved to {args.save}")


def _single_token(tokenizer, text: str) -> int:
    ids = tokenizer(text, add_special_tokens=False).input_ids
    if len(ids) != 1:
        raise SystemExit(f"{text!r} is {len(ids)} tokens in this tokenizer; the probe reads one-token letters")
    return ids[0]


def _pair_posteriors(last_logits, sequences: list[list[int]], first: list[int], second: list[int]) -> np.ndarray:
    """The model's probability of naming each goal pair (either order), renormalised over the pairs
    as ``scored_posterior`` does: (len, 28)."""
    first_lp = torch.log_softmax(last_logits(sequences), -1)[:, first]
    extended = [s + [first[a]] for s in sequences for a in range(8)]
    second_lp = torch.log_softmax(last_logits(extended), -1)[:, second].view(len(sequences), 8, 8)
    joint = (first_lp[:, :, None] + second_lp).numpy()
    scores = np.array([[logsumexp([j[a, b], j[b, a]]) for a, b in GOALS] for j in joint])
    return softmax(scores, axis=1)


if __name__ == "__main__":
    main()
