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

``--domain household`` does the same on Household: ``facts`` prompts of the rows of ``train ssrl
--domain household`` (human-alone episodes on the train apartments, every second action), one
word-form particle (``kitchentable plate 2 cutleryfork 1 1.00``) drawn from the exact posterior over
the apartment's goals (uniform prior and the planner likelihood of the SSRL reward,
``HOUSEHOLD_HUMAN``), trained by cross-entropy on its tokens; the read-out is ``household assist
--answer-mode score``'s (``scored_posterior``: the probability of naming each of the apartment's
325-650 goals) on held-out decisions of the test apartments, split before the human's first put
and after it, with the uniform posterior and exact inference as references. Scoring every goal is
the slow part (about 0.25 s a decision on one loaded CPU thread, about 20 decisions an episode):
the command below took 24 minutes on one thread (3.5 min of set-up: 26,007 rows and their exact
posteriors; 2.3 min a read-out of 653 decisions; 0.27 s a step).

    OMP_NUM_THREADS=1 python benchmarks/probes/assist_capacity_probe.py --style relative --steps 1500
    python benchmarks/probes/assist_capacity_probe.py --hidden 256 --layers 4 --heads 8 --save runs/distilled
    OMP_NUM_THREADS=1 python benchmarks/probes/assist_capacity_probe.py --domain household --steps 2000 --every 500
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy.special import logsumexp, softmax

from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.domains.base import TrainData
from mindzero.domains.gridworld.hypotheses import OBJECT_LETTERS, format_letter_particles
from mindzero.domains.gridworld.ssrl import assist_rows, goal_logliks
from mindzero.domains.household.hypotheses import format_household_particles, particle_form
from mindzero.domains.household.ssrl import AssistTask
from mindzero.domains.household.ssrl import goal_logliks as household_logliks
from mindzero.envs.gridworld.world import goal_pairs
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import all_goals
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.envs.household.world import PUTIN, PUTON
from mindzero.inference.llm import scored_posterior
from mindzero.llm.models import load_language_model
from mindzero.llm.transformers_backend import TransformersBackend, encode_prompt
from mindzero.tasks.curves import assist_decisions
from mindzero.train.base import CHAT_ROLES, ScratchSpec, build_scratch, load_tokenizer

GOALS = goal_pairs(8)
LETTERS = OBJECT_LETTERS[:8]
#: Each domain's prompt style unless ``--style`` says otherwise.
STYLES = {"gridworld": "relative", "household": "facts"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", choices=tuple(STYLES), default="gridworld")
    parser.add_argument("--style", help="prompt style (gridworld, letter form: relative or anchored; household: facts)")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--number-features", type=int, default=0)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--every", type=int, default=250, help="steps between held-out read-outs")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--train-episodes", type=int, default=1000)
    parser.add_argument("--heldout-episodes", type=int, default=30, help="held-out episodes read out (seed 7)")
    parser.add_argument("--save", type=Path, help="write the final model and tokenizer here")
    parser.add_argument(
        "--model", type=Path, help="start from this model folder (e.g. a GRPO checkpoint; --steps 0 reads it out)"
    )
    args = parser.parse_args()
    args.style = args.style or STYLES[args.domain]
    torch.manual_seed(0)
    rng, started = np.random.default_rng(0), time.perf_counter()
    probe = (GridWorldProbe if args.domain == "gridworld" else HouseholdProbe)(args)

    with tempfile.TemporaryDirectory() as folder:
        path = args.model
        if path is None:
            spec = ScratchSpec(args.hidden, args.layers, args.heads, number_features=args.number_features)
            path = build_scratch(folder, [*probe.prompts[:3000], *probe.answers(), *CHAT_ROLES], spec, 0)
        tokenizer, model = load_tokenizer(path), load_language_model(path)
        if args.save:
            shutil.copytree(path, args.save, dirs_exist_ok=True)
    probe.attach(model, tokenizer, str(path))
    params = sum(p.numel() for p in model.parameters())
    exact, truth = probe.exact, probe.truth
    exact_right = np.array([e.argmax() == t for e, t in zip(exact, truth)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    print(f"{params / 1e6:.2f} M parameters, {len(probe.prompts)} training prompts, {len(truth)} held-out decisions")
    for line in probe.preamble():
        print(line)
    print(f"step  KL(exact||model)  p(true)  MAP right: all / {' / '.join(probe.phase_names)}  (exact)  seconds")
    for step in range(args.steps + 1):
        if step % args.every == 0 or step == args.steps:
            with torch.no_grad():
                model.eval()
                read = probe.read()
                model.train()
            kl = np.mean([np.sum(e * (_log(e) - _log(r))) for e, r in zip(exact, read)])
            right = np.array([r.argmax() == t for r, t in zip(read, truth)])
            cells = "  ".join(
                f"{right[probe.phases == ph].mean():.2f} ({exact_right[probe.phases == ph].mean():.2f})"
                for ph in probe.phase_keys
            )
            p_true = np.mean([r[t] for r, t in zip(read, truth)])
            print(
                f"{step:5d}  {kl:.2f}  {p_true:.3f}  {right.mean():.2f} ({exact_right.mean():.2f})  {cells}  "
                f"{time.perf_counter() - started:.0f}",
                flush=True,
            )
        if step == args.steps:
            break
        loss = probe.loss(rng)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if args.save:
        model.save_pretrained(args.save)
        print(f"saved to {args.save}")


class Probe:
    """One domain's part of the probe: training prompts with their exact posteriors (``prompts``),
    held-out decisions (their prompts, exact posteriors ``exact`` over the goals in a fixed order
    and the true goal's index ``truth``, and a phase label each, ``phases``, of which the columns
    ``phase_keys`` are printed as ``phase_names``), the cross-entropy of a batch of answers drawn
    from the exact posteriors (:meth:`loss`) and the model's posterior at every held-out decision
    (:meth:`read`)."""

    prompts: list[str]
    held_out: list[str]
    exact: Any
    truth: np.ndarray
    phases: np.ndarray
    phase_keys: tuple[str, ...]
    phase_names: tuple[str, ...]

    def answers(self) -> list[str]:
        """Every answer a training step can write (for the scratch tokenizer)."""
        raise NotImplementedError

    def attach(self, model: Any, tokenizer: Any, path: str) -> None:
        """Tokenize the prompts for this model."""
        self.model, self.tokenizer, self.path = model, tokenizer, path
        self.train_ids, self.held_ids = [self.encode(p) for p in self.prompts], [self.encode(p) for p in self.held_out]

    def encode(self, prompt: str) -> list[int]:
        return encode_prompt(self.tokenizer, [{"role": "user", "content": prompt}], self.path)

    def preamble(self) -> list[str]:
        """Lines printed before the curve's header."""
        return []

    def logits(self, sequences: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        """The model's logits on a right-padded batch, and the padding mask."""
        width = max(map(len, sequences))
        ids = torch.zeros((len(sequences), width), dtype=torch.long)
        mask = torch.zeros_like(ids)
        for k, s in enumerate(sequences):
            ids[k, : len(s)], mask[k, : len(s)] = torch.tensor(s), 1
        return self.model(input_ids=ids, attention_mask=mask).logits, mask

    def last_logits(self, sequences: list[list[int]]) -> torch.Tensor:
        """Next-token logits after each sequence (right-padded batch)."""
        logits, mask = self.logits(sequences)
        return logits[torch.arange(len(sequences)), mask.sum(1) - 1]

    def loss(self, rng: np.random.Generator) -> torch.Tensor:
        raise NotImplementedError

    def read(self) -> Any:
        raise NotImplementedError


class GridWorldProbe(Probe):
    """GridWorld: letter-form pairs ``C G`` (two one-token letters), read out by scoring the 8 first
    letters and the 8 × 8 second ones, both orders of each pair."""

    phase_keys = ("h0 p0", "h1 p1")
    phase_names = ("before the pick", "carrying")

    def __init__(self, args: argparse.Namespace) -> None:
        human = HumanParams()
        self.rows = assist_rows(
            TrainData(episodes=args.train_episodes, seed=0, every=2, n_particles=1, prompt_style=args.style)
        )
        self.prompts = [r["prompt"] for r in self.rows]
        self.posteriors = [softmax(goal_logliks(r["layout"], r["actions"], human)) for r in self.rows]
        domain = get_domain("gridworld")
        decisions = assist_decisions(domain, domain.heldout_episodes(args.heldout_episodes, 7), human, 7)
        self.held_out = [domain.assist_prompt(d.episode, d.observations, 1, args.style) for d in decisions]
        self.phases = np.array([p.split("|")[0].strip() for p in self.held_out])
        self.exact = np.array([[d.exact.prob(g) for g in GOALS] for d in decisions])
        self.truth = np.array([GOALS.index(tuple(d.goal)) for d in decisions])

    def answers(self) -> list[str]:
        return [format_letter_particles([(i, j)], [1.0]) for i in range(8) for j in range(8) if i != j]

    def attach(self, model: Any, tokenizer: Any, path: str) -> None:
        self.first = [_single_token(tokenizer, x) for x in LETTERS]  # a letter starting the answer
        self.second = [_single_token(tokenizer, f" {x}") for x in LETTERS]  # a letter after a space
        super().attach(model, tokenizer, path)

    def loss(self, rng: np.random.Generator) -> torch.Tensor:
        batch, targets = [], []
        for k in rng.choice(len(self.rows), size=64, replace=False):
            a, b = GOALS[rng.choice(len(GOALS), p=self.posteriors[k])]
            a, b = (a, b) if rng.random() < 0.5 else (b, a)
            batch.append(self.train_ids[k] + [self.first[a]])
            targets.append((self.first[a], self.second[b]))
        target = torch.tensor(targets)
        logits_first = self.last_logits([s[:-1] for s in batch])
        logits_second = self.last_logits(batch)
        return torch.nn.functional.cross_entropy(logits_first, target[:, 0]) + torch.nn.functional.cross_entropy(
            logits_second, target[:, 1]
        )

    def read(self) -> np.ndarray:
        ids = self.held_ids
        return np.concatenate(
            [
                _pair_posteriors(self.last_logits, ids[k : k + 32], self.first, self.second)
                for k in range(0, len(ids), 32)
            ]
        )


class HouseholdProbe(Probe):
    """Household: one word-form particle per answer (several tokens, all trained), read out with
    ``scored_posterior`` over every goal of the decision's apartment (``all_goals`` order)."""

    phase_keys = ("before", "after")
    phase_names = ("before the first put", "after it")

    def __init__(self, args: argparse.Namespace) -> None:
        self.style, self.form = args.style, particle_form(args.style)
        data = TrainData(episodes=args.train_episodes, seed=0, every=2, n_particles=1, prompt_style=args.style)
        self.rows = AssistTask().rows(data)
        self.prompts = [r["prompt"] for r in self.rows]
        self.posteriors = [
            softmax(household_logliks(r["apartment"], r["episode_seed"], r["actions"], HOUSEHOLD_HUMAN))
            for r in self.rows
        ]
        self.domain = get_domain("household")
        episodes = self.domain.heldout_episodes(args.heldout_episodes, 7)
        self.decisions = assist_decisions(self.domain, episodes, HOUSEHOLD_HUMAN, 7)
        self.held_out = [self.domain.assist_prompt(d.episode, d.observations, 1, args.style) for d in self.decisions]
        puts = [any(o.action[0] in (PUTON, PUTIN) for o in d.observations) for d in self.decisions]
        self.phases = np.array(["after" if put else "before" for put in puts])  # the latest action included
        self.goals = [all_goals(d.episode.apartment) for d in self.decisions]
        self.exact = [_probs(d.exact, goals) for d, goals in zip(self.decisions, self.goals)]
        self.truth = np.array([goals.index(d.goal) for d, goals in zip(self.decisions, self.goals)])

    def texts(self, apartment: str) -> list[str]:
        """Each goal of a train apartment as a one-particle answer (``all_goals`` order)."""
        place = bundled_apartment(apartment)
        return [format_household_particles([g], [1.0], place, self.form) for g in all_goals(place)]

    def answers(self) -> list[str]:
        return [text for name in sorted({r["apartment"] for r in self.rows}) for text in self.texts(name)]

    def attach(self, model: Any, tokenizer: Any, path: str) -> None:
        super().attach(model, tokenizer, path)
        self.answer_ids = {
            name: [tokenizer(t, add_special_tokens=False).input_ids for t in self.texts(name)]
            for name in sorted({r["apartment"] for r in self.rows})
        }  # tokenized on their own, as ``score`` does

    def preamble(self) -> list[str]:
        sizes = np.array([len(g) for g in self.goals])
        uniform = [np.full(n, 1.0 / n) for n in sizes]
        uniform_kl = np.mean([np.sum(e * (_log(e) - _log(u))) for e, u in zip(self.exact, uniform)])
        exact_p = np.mean([e[t] for e, t in zip(self.exact, self.truth)])
        exact_right = np.mean([e.argmax() == t for e, t in zip(self.exact, self.truth)])
        return [
            f"goals per decision {sizes.min()}-{sizes.max()}; {np.mean(self.phases == 'after'):.2f} of the decisions "
            "after the first put",
            f"references: uniform KL {uniform_kl:.2f}, p(true) {np.mean(1.0 / sizes):.4f}, MAP right "
            f"{np.mean(1.0 / sizes):.4f} (chance); exact KL 0, p(true) {exact_p:.3f}, MAP right {exact_right:.2f}",
        ]

    def loss(self, rng: np.random.Generator) -> torch.Tensor:
        """Cross-entropy of the answer tokens (summed over them, mean over the batch) after each prompt."""
        sequences, starts = [], []
        for k in rng.choice(len(self.rows), size=64, replace=False):
            goal = rng.choice(len(self.posteriors[k]), p=self.posteriors[k])
            starts.append(len(self.train_ids[k]))
            sequences.append(self.train_ids[k] + self.answer_ids[self.rows[k]["apartment"]][goal])
        logits, mask = self.logits(sequences)
        targets = torch.full(mask.shape, -100, dtype=torch.long)
        for k, (s, start) in enumerate(zip(sequences, starts)):
            targets[k, start : len(s)] = torch.tensor(s[start:])
        # position t predicts token t + 1
        nll = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]), targets[:, 1:].reshape(-1), ignore_index=-100, reduction="sum"
        )
        return nll / len(sequences)

    def read(self) -> list[np.ndarray]:
        backend = TransformersBackend.from_model(self.model, self.tokenizer, batch_size=64, name=self.path)
        chats = [[{"role": "user", "content": p}] for p in self.held_out]
        return [
            _probs(scored_posterior(self.domain, backend, d.episode, chat, self.style), goals)
            for d, chat, goals in zip(self.decisions, chats, self.goals)
        ]


def _probs(posterior: Any, goals: tuple) -> np.ndarray:
    """A posterior's probabilities of ``goals``, in their order."""
    probs = dict(zip(posterior.hypotheses, posterior.probs))
    return np.array([probs.get(g, 0.0) for g in goals])


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(p, 1e-300))


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
