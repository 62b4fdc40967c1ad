"""Verifier-guided inference-time scaling for belief traces (DEL-ToM §4.2.3): Best-of-N and beam search.

Pieces:

- a **policy** samples whole traces (:meth:`Policy.sample`) or proposes the next step of partial
  traces (:meth:`Policy.propose_steps`): :class:`BackendPolicy` wraps any LLM backend with the
  DEL-ToM prompt; :class:`SyntheticPolicy` corrupts gold traces at a known rate (tests, oracle figures);
- a **verifier** scores every step of a trace in [0, 1]: :class:`OracleVerifier` is the DEL trace
  checker used as an exact PBM (1 = correct step), :class:`PBMVerifier` a trained PBM;
- **selection**: trace score = ``last``/``min``/``avg``/``prod`` of its step scores; ``vanilla``
  BoN takes the best trace's answer, ``weighted`` BoN the answer with the largest summed trace
  score, ``majority`` the most frequent answer (no verifier). :func:`bon_accuracy` averages over
  random size-N subsets of a larger pool, as the paper's scaling curves do.

Everything is batched over questions and samples; the policy's and the verifier's token and FLOPs
counts are read from their ``usage`` meters.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tqdm import tqdm

from mindzero.llm.base import Backend, UsageMeter
from mindzero.pbm.data import (
    CORRUPTIONS,
    BeliefQuestion,
    corrupt_trace,
    pbm_problem,
    policy_messages,
    split_steps,
)
from mindzero.pbm.model import ProcessBeliefModel
from mindzero.stories.traces import belief_sentence, check_trace, normalise, render_gold_trace

AGGREGATIONS = ("last", "min", "avg", "prod")
STRATEGIES = ("vanilla", "weighted", "majority")


# --- verifiers --------------------------------------------------------------------------------


class Verifier(Protocol):
    name: str
    usage: UsageMeter

    def score(self, questions: Sequence[BeliefQuestion], traces: Sequence[str]) -> list[list[float]]:
        """Scores in [0, 1] for every step of ``traces[i]`` (a trace about ``questions[i]``)."""


class OracleVerifier:
    """The DEL trace checker as an exact PBM: a step scores 1 iff it and every earlier step are right.

    An upper bound for any learned PBM, and a deterministic verifier for testing the search code.
    """

    name = "oracle"

    def __init__(self) -> None:
        self.usage = UsageMeter(active_params=0)

    def score(self, questions: Sequence[BeliefQuestion], traces: Sequence[str]) -> list[list[float]]:
        return [[float(s.correct) for s in check_trace(t, q.labels, q.answer).steps] for q, t in zip(questions, traces)]


class PBMVerifier:
    """A trained Process Belief Model (see :mod:`mindzero.pbm.model`), loaded from its folder."""

    def __init__(self, path: str, batch_size: int = 8, **kwargs: Any) -> None:
        self.pbm = ProcessBeliefModel(path, batch_size=batch_size, **kwargs)
        self.name = f"pbm:{path}"
        self.usage = self.pbm.usage

    def score(self, questions: Sequence[BeliefQuestion], traces: Sequence[str]) -> list[list[float]]:
        return self.pbm.score([pbm_problem(q) for q in questions], [split_steps(t) for t in traces])


def load_verifier(spec: str, batch_size: int = 8, readout: str | None = None) -> Verifier:
    """``oracle`` or the folder of a trained PBM (scored by ``readout``, default its own)."""
    return OracleVerifier() if spec == "oracle" else PBMVerifier(spec, batch_size=batch_size, readout=readout)


# --- selection --------------------------------------------------------------------------------


def aggregate(scores: Sequence[float], how: str) -> float:
    """One trace score from its step scores; a trace without steps scores 0 (never beats one with)."""
    if not scores:
        return 0.0
    if how == "last":
        return float(scores[-1])
    if how == "min":
        return float(min(scores))
    if how == "avg":
        return float(sum(scores) / len(scores))
    if how == "prod":
        return float(math.prod(scores))
    raise ValueError(f"unknown aggregation {how!r}; choose from {AGGREGATIONS}")


@dataclass(frozen=True)
class ScoredTrace:
    """A sampled trace, its (normalised) final answer — None when it gives none — and step scores."""

    text: str
    answer: str | None
    step_scores: tuple[float, ...]


def trace_answer(text: object) -> str | None:
    """The normalised ``Final Answer: [c]`` of a trace, or None (never raises)."""
    return check_trace(text, ()).final_answer


def select(traces: Sequence[ScoredTrace], strategy: str, how: str = "min") -> str | None:
    """The answer a strategy picks from ``traces`` (ties: the earliest trace or answer wins).

    Traces without a final answer abstain from majority and weighted votes; vanilla BoN may still
    pick one, and then answers nothing.
    """
    if strategy == "majority":
        votes = Counter(t.answer for t in traces if t.answer is not None)
        return max(votes, key=lambda a: (votes[a], -_first(traces, a))) if votes else None
    scores = [aggregate(t.step_scores, how) for t in traces]
    if strategy == "vanilla":
        best = max(range(len(traces)), key=lambda i: (scores[i], -i)) if traces else None
        return None if best is None else traces[best].answer
    if strategy == "weighted":
        total: dict[str, float] = {}
        for t, s in zip(traces, scores):
            if t.answer is not None:
                total[t.answer] = total.get(t.answer, 0.0) + s
        return max(total, key=lambda a: (total[a], -_first(traces, a))) if total else None
    raise ValueError(f"unknown strategy {strategy!r}; choose from {STRATEGIES}")


def _first(traces: Sequence[ScoredTrace], answer: str) -> int:
    return next(i for i, t in enumerate(traces) if t.answer == answer)


def methods() -> list[tuple[str, str | None]]:
    """Every (strategy, aggregation) pair evaluated; majority ignores the aggregation."""
    return [(s, a) for s in ("vanilla", "weighted") for a in AGGREGATIONS] + [("majority", None)]


def method_name(strategy: str, how: str | None) -> str:
    return strategy if how is None else f"{strategy}-{how}"


def bon_accuracy(pool: Sequence[ScoredTrace], gold: str | None, n: int, trials: int, rng: random.Random) -> dict:
    """Mean accuracy of every method over ``trials`` random size-``n`` subsets of ``pool``.

    With ``n == len(pool)`` every subset is the whole pool, so one trial is computed.
    """
    gold_n = normalise(gold)
    if n > len(pool):
        raise ValueError(f"N={n} exceeds the pool of {len(pool)} traces")
    subsets = [list(range(n))] if n == len(pool) else [rng.sample(range(len(pool)), n) for _ in range(trials)]
    out = {}
    for strategy, how in methods():
        hits = [select([pool[i] for i in idx], strategy, how or "min") == gold_n for idx in subsets]
        out[method_name(strategy, how)] = sum(hits) / len(hits)
    return out


# --- policies ---------------------------------------------------------------------------------


class Policy(Protocol):
    name: str
    usage: UsageMeter

    def sample(self, questions: Sequence[BeliefQuestion], n: int, seed: int) -> list[list[str]]:
        """``n`` complete traces per question."""

    def propose_steps(
        self, questions: Sequence[BeliefQuestion], prefixes: Sequence[str], b: int, seed: int
    ) -> list[list[str]]:
        """``b`` candidate next steps (one ``## Step i ##`` block each) per partial trace."""


_STEP_END = re.compile(r"\n\s*\n|#+\s*step|final\s+answer", re.I)


class BackendPolicy:
    """An LLM backend prompted with the DEL-ToM prompt (paper App. A); all calls batched.

    Beam search continues a partial trace: the chat prompt is rendered with the model's chat
    template, the steps so far and the next ``## Step i ##`` header are appended, and the model
    writes that step (cut at the next blank line, step header or final answer).
    """

    def __init__(
        self,
        backend: Backend,
        temperature: float = 0.7,
        max_new_tokens: int = 1024,
        step_tokens: int = 96,
        with_example: bool = True,
        batch: int = 16,
    ) -> None:
        self.backend = backend
        self.name = backend.name
        self.usage = backend.usage
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens
        self.step_tokens = step_tokens
        self.with_example = with_example
        self.batch = batch

    def sample(self, questions: Sequence[BeliefQuestion], n: int, seed: int) -> list[list[str]]:
        out: list[list[str]] = []
        per_call = max(1, self.batch // n)
        for lo in tqdm(range(0, len(questions), per_call), desc="sampling traces", unit="call", mininterval=1.0):
            chunk = questions[lo : lo + per_call]
            gens = self.backend.generate(
                [policy_messages(q, self.with_example) for q in chunk],
                n=n,
                temperature=self.temperature,
                max_new_tokens=self.max_new_tokens,
                seed=seed + lo,
            )
            out.extend([g.text for g in gs] for gs in gens)
        return out

    def _chat_text(self, q: BeliefQuestion) -> str:
        messages = policy_messages(q, self.with_example)
        tokenizer = getattr(self.backend, "tokenizer", None)
        if tokenizer is not None and getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return "\n\n".join(m["content"] for m in messages) + "\n\n"

    def propose_steps(
        self, questions: Sequence[BeliefQuestion], prefixes: Sequence[str], b: int, seed: int
    ) -> list[list[str]]:
        headers = [f"## Step {len(split_steps(p)) + 1} ##\n" for p in prefixes]
        prompts = [self._chat_text(q) + p + h for q, p, h in zip(questions, prefixes, headers)]
        out: list[list[str]] = []
        per_call = max(1, self.batch // b)
        for lo in range(0, len(prompts), per_call):
            gens = self.backend.generate(
                prompts[lo : lo + per_call],
                n=b,
                temperature=self.temperature,
                max_new_tokens=self.step_tokens,
                seed=seed + lo,
            )
            for h, gs in zip(headers[lo : lo + per_call], gens):
                out.append([h + _STEP_END.split(g.text, maxsplit=1)[0].strip() for g in gs])
        return out


class SyntheticPolicy:
    """Gold traces corrupted at a known rate: a test double with exactly known trace quality.

    Each sample is the gold trace with probability ``1 - error_rate``. Otherwise, with probability
    ``cluster`` it is the question's *favourite mistake* — one wrong container written from one
    line to the end, the same for every sample of that question, so wrong answers pile up on one
    container (the vote-dilution regime of the paper's appendix) — else one random systematic
    corruption (:data:`mindzero.pbm.data.CORRUPTIONS`), or with probability ``garbage`` of those,
    text without any step. Deterministic by seed.
    """

    name = "synthetic"

    def __init__(self, error_rate: float = 0.5, cluster: float = 0.5, garbage: float = 0.1) -> None:
        self.error_rate, self.cluster, self.garbage = error_rate, cluster, garbage
        self.usage = UsageMeter(active_params=0)

    @staticmethod
    def favourite_mistake(q: BeliefQuestion) -> list[str | None]:
        """The per-question wrong belief sequence: a wrong container from some line of the last run on."""
        rng = random.Random(f"favourite:{q.id}")
        labels = list(q.labels)
        n = len(labels)
        start = n - 1
        while start > 0 and labels[start - 1] == labels[-1]:
            start -= 1
        k = rng.randrange(start, n)
        wrong = rng.choice([c for c in q.containers if c != labels[-1]] or ["nowhere_box"])
        return labels[:k] + [wrong] * (n - k)

    def _one(self, q: BeliefQuestion, rng: random.Random) -> str:
        if rng.random() >= self.error_rate:
            return render_gold_trace(q.events, q.question, q.labels)
        if rng.random() < self.cluster:
            return render_gold_trace(q.events, q.question, self.favourite_mistake(q))
        if rng.random() < self.garbage:
            return rng.choice(["", "I think it is in the box.", "Final Answer: [", "## Step ##\n[[[]]]"])
        for kind in rng.sample(list(CORRUPTIONS), len(CORRUPTIONS)):
            trace = corrupt_trace(q, kind, rng)
            if trace is not None:
                return trace
        return render_gold_trace(q.events, q.question, self.favourite_mistake(q))

    def sample(self, questions: Sequence[BeliefQuestion], n: int, seed: int) -> list[list[str]]:
        out = []
        for q in questions:
            rng = random.Random(f"{seed}:{q.id}")
            out.append([self._one(q, rng) for _ in range(n)])
        return out

    def propose_steps(
        self, questions: Sequence[BeliefQuestion], prefixes: Sequence[str], b: int, seed: int
    ) -> list[list[str]]:
        out = []
        for j, (q, prefix) in enumerate(zip(questions, prefixes)):
            rng = random.Random(f"{seed}:{q.id}:{j}:{len(prefix)}")
            line = len(split_steps(prefix))
            gold = render_gold_trace(q.events, q.question, q.labels).split("\n\n")[line]
            steps = []
            for _ in range(b):
                if rng.random() >= self.error_rate:
                    steps.append(gold)
                else:
                    wrong = rng.choice([c for c in q.containers if c != q.labels[line]] or ["nowhere_box"])
                    body = gold.rsplit("\n", 1)[0]
                    steps.append(f"{body}\n{belief_sentence(q.question, wrong)}")
            out.append(steps)
        return out


# --- search -----------------------------------------------------------------------------------


def score_pool(
    verifier: Verifier, questions: Sequence[BeliefQuestion], pools: Sequence[Sequence[str]], batch: int = 64
) -> list[list[ScoredTrace]]:
    """Score every step of every pooled trace, ``batch`` traces per verifier call."""
    flat = [(i, t) for i, pool in enumerate(pools) for t in pool]
    scores: list[list[float]] = []
    for lo in tqdm(range(0, len(flat), batch), desc=f"scoring ({verifier.name})", unit="batch", mininterval=1.0):
        chunk = flat[lo : lo + batch]
        scores.extend(verifier.score([questions[i] for i, _ in chunk], [t for _, t in chunk]))
    out: list[list[ScoredTrace]] = [[] for _ in pools]
    for (i, t), s in zip(flat, scores):
        out[i].append(ScoredTrace(t, trace_answer(t), tuple(s)))
    return out


def beam_search(
    policy: Policy,
    verifier: Verifier,
    questions: Sequence[BeliefQuestion],
    k: int = 4,
    b: int = 4,
    seed: int = 0,
) -> list[ScoredTrace]:
    """Step-level beam search, all questions in lockstep (paper §4.2.3).

    The first step gets ``k × b`` candidates from the empty trace; afterwards each of the ``k``
    beams proposes ``b`` next steps, the verifier scores each path at its newest step (a path
    whose newest step does not parse scores 0), and the top ``k`` paths survive. After the story's
    last line the best beam gets ``Final Answer: [its last belief]``.
    """
    beams: list[list[tuple[str, float]]] = [[("", 1.0)] for _ in questions]
    depth = max((len(q.lines) for q in questions), default=0)
    for line in tqdm(range(depth), desc="beam search", unit="line", mininterval=1.0):
        live = [i for i, q in enumerate(questions) if line < len(q.lines)]
        owners = [(i, prefix) for i in live for prefix, _ in beams[i]]
        width = [k * b if line == 0 else b for _ in owners]
        proposals = policy.propose_steps(
            [questions[i] for i, _ in owners], [p for _, p in owners], width[0] if owners else b, seed + line
        )
        paths = [(i, (p + "\n\n" if p else "") + step) for (i, p), steps in zip(owners, proposals) for step in steps]
        scores = verifier.score([questions[i] for i, _ in paths], [t for _, t in paths])
        grouped: dict[int, list[tuple[str, float]]] = {i: [] for i in live}
        for (i, text), s in zip(paths, scores):
            grouped[i].append((text, s[-1] if len(s) == line + 1 else 0.0))
        for i, cands in grouped.items():
            order = sorted(range(len(cands)), key=lambda j: (-cands[j][1], j))
            beams[i] = [cands[j] for j in order[:k]]
    texts = []
    for q, bs in zip(questions, beams):
        steps = check_trace(bs[0][0], q.labels).steps
        last = steps[-1].value if steps else None
        texts.append(f"{bs[0][0]}\n\nFinal Answer: [{last if last is not None else 'Null'}]\n")
    scores = verifier.score(questions, texts)
    return [ScoredTrace(t, trace_answer(t), tuple(s)) for t, s in zip(texts, scores)]
