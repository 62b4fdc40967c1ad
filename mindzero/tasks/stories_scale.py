"""``mindzero stories scale-eval``: inference-time scaling of belief traces (DEL-ToM Fig. 3, Tables 2-3).

For every question a policy samples a pool of traces once; a verifier (the oracle DEL checker or a
trained PBM) scores every step of every trace once; then for each budget N, random size-N subsets
of the pool (``trials`` of them) are decided by every method — vanilla and weighted BoN under each
aggregation, and majority vote. Accuracy is reported per belief order and as the mean over orders
(the paper's "Avg."). Optional step-level beam search runs with the same policy and verifier.
With a PBM verifier, its step accuracy on the pools against the checker's labels (Table 4 on the
traces it ranks, at its stored threshold) is reported as ``verifier_step_accuracy``.

Question sets: ``hitom`` (the official one-chapter CoT subset, 200 questions), ``ood`` (the 44
hand-written unexpected-transfer stories, 132 questions) or ``generated`` (fresh generator stories).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindzero.core.config import PROBABILITY
from mindzero.core.errors import UserError
from mindzero.core.results import read_jsonl
from mindzero.inference.belief_search import (
    AGGREGATIONS,
    BackendPolicy,
    OracleVerifier,
    PBMVerifier,
    SyntheticPolicy,
    aggregate,
    beam_search,
    bon_accuracy,
    load_verifier,
    method_name,
    methods,
    score_pool,
    select,
)
from mindzero.llm import EndpointOptions, load_backend
from mindzero.llm.base import Usage
from mindzero.llm.transformers_backend import DTYPES
from mindzero.pbm.data import BeliefQuestion, questions_from_hitom, questions_from_stories
from mindzero.pbm.model import READOUTS, step_accuracy
from mindzero.stories.generator import generate_stories
from mindzero.stories.hitom import HITOM_URL, load_hitom
from mindzero.stories.semantics import SEMANTICS
from mindzero.stories.traces import check_trace, normalise
from mindzero.tasks.stories_ood import load_ood_questions, load_own_words_questions

DATASETS = ("hitom", "ood", "generated", "own-words")


@dataclass
class ScaleEvalConfig(EndpointOptions):
    """Options of ``mindzero stories scale-eval``."""

    data: str = field(
        default="hitom",
        metadata={
            "help": "hitom (one-chapter CoT) | ood (hand-written) | generated | own-words (--own-words FILE)",
            "choices": DATASETS,
        },
    )
    hitom: str | None = field(
        default=None, metadata={"help": f"path to the official Hi-ToM_data.json (data=hitom; from {HITOM_URL})"}
    )
    ood: str | None = field(default=None, metadata={"help": "OOD stories JSONL (default: the shipped set)"})
    own_words: str | None = field(
        default=None,
        metadata={"help": "stories in own words, JSONL of {id, text, questions} (data=own-words; read by the reader)"},
    )
    stories: int = field(
        default=20, metadata={"help": "generated stories (data=generated), 5 questions each", "ge": 1, "le": 100_000}
    )
    lengths: list[int] = field(
        default_factory=lambda: [1],
        metadata={"help": "chapters per generated story, cycled (data=generated)", "choices": (1, 2, 3)},
    )
    per_order: int | None = field(default=None, metadata={"help": "at most this many questions per order", "ge": 1})
    semantics: str = field(
        default="hitom",
        metadata={"help": "the semantics behind the gold labels and the checker", "choices": SEMANTICS},
    )
    policy: str = field(
        default="synthetic", metadata={"help": "synthetic (corrupted gold traces) or a model spec (hf:, vllm:, ...)"}
    )
    error_rate: float = field(default=0.6, metadata={"help": "synthetic: probability a sample is wrong", **PROBABILITY})
    cluster: float = field(
        default=0.7, metadata={"help": "synthetic: share of wrong samples on one wrong answer", **PROBABILITY}
    )
    verifier: str = field(default="oracle", metadata={"help": "oracle (DEL checker) or a PBM folder"})
    pbm_readout: str | None = field(
        default=None,
        metadata={
            "help": "a PBM verifier's step score: label, value or both (default: the PBM's own)",
            "choices": READOUTS,
        },
    )
    oracle: bool = field(
        default=True, metadata={"help": "with a PBM verifier, also rank the same pools with the oracle"}
    )
    reuse_traces: str | None = field(
        default=None, metadata={"help": "traces.jsonl of an earlier run on the same questions: rescore, don't sample"}
    )
    pool: int = field(default=16, metadata={"help": "traces sampled per question (largest N)", "ge": 1, "le": 1_024})
    ns: list[int] = field(
        default_factory=lambda: [1, 2, 4, 8, 16], metadata={"help": "budgets N", "ge": 1, "le": 1_024}
    )
    trials: int = field(
        default=20, metadata={"help": "random size-N subsets of the pool per question", "ge": 1, "le": 10_000}
    )
    temperature: float = field(default=0.7, metadata={"help": "policy sampling temperature", "ge": 0})
    max_new_tokens: int = field(default=1024, metadata={"help": "tokens per sampled trace", "ge": 1, "le": 32_768})
    with_example: bool = field(default=True, metadata={"help": "include the worked example in the prompt"})
    batch: int = field(default=16, metadata={"help": "sequences per policy call", "ge": 1, "le": 4_096})
    verifier_batch: int = field(default=8, metadata={"help": "traces per verifier forward pass", "ge": 1, "le": 4_096})
    dtype: str = field(default="float32", metadata={"help": "policy dtype (transformers backend)", "choices": DTYPES})
    beam: bool = field(default=False, metadata={"help": "also run step-level beam search"})
    beam_k: int = field(default=4, metadata={"help": "beams kept", "ge": 1, "le": 256})
    beam_b: int = field(default=4, metadata={"help": "candidates per beam and step", "ge": 1, "le": 256})
    step_tokens: int = field(
        default=96, metadata={"help": "tokens per proposed step (beam search)", "ge": 1, "le": 32_768}
    )
    seed: int = field(default=0, metadata={"help": "seed of sampling, subsets and question choice", "ge": 0})
    out: str = field(default="runs/scale-eval", metadata={"help": "output folder"})


def load_questions(config: ScaleEvalConfig) -> list[BeliefQuestion]:
    """The question set, cut to ``per_order`` questions per order (a seeded choice)."""
    if config.data == "hitom":
        if config.hitom is None:
            raise UserError(f"--data hitom needs --hitom PATH to Hi-ToM_data.json (released at {HITOM_URL})")
        questions = questions_from_hitom(load_hitom(config.hitom), config.semantics)
    elif config.data == "ood":
        questions = load_ood_questions(config.ood, config.semantics)
    elif config.data == "own-words":
        if config.own_words is None:
            raise UserError("--data own-words needs --own-words FILE (JSONL of {id, text, questions})")
        questions, refused = load_own_words_questions(config.own_words, config.semantics)
        stories = len({q.story_id for q in questions})
        print(f"own words: {stories} of {stories + len(refused)} stories read whole, {len(questions)} questions")
        if refused:
            print(f"  refused (an unread sentence or question): {', '.join(refused)}")
        if not questions:
            raise UserError(f"{config.own_words}: the reader read no story whole (`mindzero stories ask` says why)")
    else:
        stories = generate_stories(config.stories, config.seed, tuple(config.lengths), semantics=config.semantics)
        questions = list(questions_from_stories(stories, config.semantics))
    if config.per_order is not None:
        rng = random.Random(config.seed)
        by_order: dict[int, list[BeliefQuestion]] = defaultdict(list)
        for q in questions:
            by_order[q.order].append(q)
        questions = [
            q
            for order in sorted(by_order)
            for q in sorted(
                rng.sample(by_order[order], min(config.per_order, len(by_order[order]))), key=lambda q: q.id
            )
        ]
    return questions


def reused_pools(path: str, questions: Sequence[BeliefQuestion], pool: int) -> list[list[str]]:
    """The first ``pool`` traces per question from an earlier run's traces.jsonl."""
    rows = read_jsonl(path, {"id": str, "sample": int, "trace": str})
    by_id: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for r in rows:
        by_id[r["id"]].append((r["sample"], r["trace"]))
    pools = []
    for q in questions:
        have = [t for _, t in sorted(by_id.get(q.id, []))]
        if len(have) < pool:
            raise UserError(f"{path} has {len(have)} traces for {q.id}, --pool needs {pool}; use the same questions")
        pools.append(have[:pool])
    return pools


def reused_policy_usage(traces_path: str, n_traces: int) -> Usage:
    """What sampling ``n_traces`` reused traces cost, at the earlier run's policy cost per trace (its
    results.json beside traces.jsonl), so that a rescoring run's compute axis still counts the
    policy; zero, with a note, where that file has no policy cost."""
    results = Path(traces_path).with_name("results.json")
    try:
        usage = json.loads(results.read_text())["metrics"]["usage"]
        spent = usage["policy"]
        scale = n_traces * usage["policy_tokens_per_trace"] / spent["tokens"]
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        print(f"note: no policy cost in {results}: the cost table counts the verifier only")
        return Usage()
    return Usage(
        prompt_tokens=round(spent["prompt_tokens"] * scale),
        completion_tokens=round(spent["completion_tokens"] * scale),
        flops=None if spent["tflops"] is None else spent["tflops"] * 1e12 * scale,
        seconds=spent["seconds"] * scale,
    )


def check_config(config: ScaleEvalConfig) -> None:
    """What the fields' declared checks cannot see: one field against another."""
    if max(config.ns) > config.pool:
        raise UserError(f"largest N ({max(config.ns)}) exceeds --pool {config.pool}")


def make_policy(config: ScaleEvalConfig) -> Any:
    if config.policy == "synthetic":
        return SyntheticPolicy(config.error_rate, config.cluster)
    kwargs = {"dtype": config.dtype} if not config.policy.startswith(("openai:", "vllm:")) else {}
    backend = load_backend(config.policy, endpoint=config, **kwargs)
    return BackendPolicy(
        backend, config.temperature, config.max_new_tokens, config.step_tokens, config.with_example, config.batch
    )


def _by_order(values: dict[int, list[float]]) -> dict:
    per = {str(k): sum(v) / len(v) for k, v in sorted(values.items()) if v}
    return {"by_order": per, "avg": sum(per.values()) / len(per) if per else None}


def cost_per_question(
    policy: Any, verifier: Any, n_traces: int, ns: Sequence[int], beam: dict | None, n_questions: int
) -> dict:
    """Tokens and TFLOPs per question of each method at each N (paper Fig. 3's compute axis).

    A budget-N method samples N traces (N times the mean policy cost per trace); BoN also scores
    them with the verifier, majority vote does not. Beam search is its measured total per question.
    TFLOPs are 2 · parameters · tokens (None where a backend does not know its size).
    """

    def per(usage: Any, n: float) -> tuple[float, float | None]:
        tflops = None if usage.tflops is None else usage.tflops * n / n_traces
        return usage.tokens * n / n_traces, tflops

    table: dict[str, dict] = {}
    for n in ns:
        p_tok, p_tf = per(policy, n)
        v_tok, v_tf = per(verifier, n)
        table[str(n)] = {
            "majority": {"tokens": p_tok, "tflops": p_tf},
            "bon": {"tokens": p_tok + v_tok, "tflops": None if p_tf is None or v_tf is None else p_tf + v_tf},
        }
    if beam is not None:
        pol, ver = beam["policy_usage"], beam["verifier_usage"]
        tf = None if pol.get("tflops") is None or ver.get("tflops") is None else pol["tflops"] + ver["tflops"]
        table["beam"] = {
            "tokens": (pol["tokens"] + ver["tokens"]) / n_questions,
            "tflops": None if tf is None else tf / n_questions,
        }
    return table


def bon_table(
    questions: Sequence[BeliefQuestion], scored: Sequence[Sequence[Any]], config: ScaleEvalConfig
) -> tuple[list[dict], dict]:
    """(per question: {N: accuracy per method}, accuracy per method × N × order) of scored pools.

    Subsets are drawn from ``random.Random(seed)`` in question order, so two verifiers scoring the
    same pools are compared on the same subsets."""
    rng = random.Random(config.seed)
    acc: dict[str, dict[int, dict[int, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    per_question = []
    for q, pool in zip(questions, scored):
        per_n = {n: bon_accuracy(pool, q.answer, n, config.trials, rng) for n in config.ns}
        for n, res in per_n.items():
            for name, value in res.items():
                acc[name][n][q.order].append(value)
        per_question.append(per_n)
    table = {method_name(s, a): {str(n): _by_order(acc[method_name(s, a)][n]) for n in config.ns} for s, a in methods()}
    return per_question, table


def run_scale_eval(config: ScaleEvalConfig) -> tuple[dict, list[dict], list[dict]]:
    """(metrics, per-question samples, per-trace rows); see the module docstring. Writes nothing:
    ``mindzero stories scale-eval`` writes them as results.json, samples.jsonl and traces.jsonl."""
    check_config(config)
    questions = load_questions(config)
    if not questions:
        raise UserError("no questions selected")
    verifier = load_verifier(config.verifier, config.verifier_batch, config.pbm_readout)
    if config.reuse_traces:
        if config.beam:
            raise UserError("--beam needs a policy; run it without --reuse-traces")
        pools = reused_pools(config.reuse_traces, questions, config.pool)
        policy_usage = reused_policy_usage(config.reuse_traces, sum(map(len, pools)))
    else:
        policy = make_policy(config)
        with policy.usage.measure() as policy_usage:
            pools = policy.sample(questions, config.pool, config.seed)
    with verifier.usage.measure() as verifier_usage:
        scored = score_pool(verifier, questions, pools, batch=max(config.verifier_batch, 1) * 8)

    per_question, accuracy = bon_table(questions, scored, config)
    samples, traces = [], []
    pool_correct: dict[int, list[float]] = defaultdict(list)
    for q, pool, per_n in zip(questions, scored, per_question):
        gold = normalise(q.answer)
        finals = [t.answer == gold for t in pool]
        pool_correct[q.order].extend(finals)
        for j, t in enumerate(pool):
            check = check_trace(t.text, q.labels, q.answer)
            traces.append(
                {
                    "id": q.id,
                    "sample": j,
                    "question_order": q.order,
                    "trace": t.text,
                    "answer": t.answer,
                    "final_correct": t.answer == gold,
                    "step_scores": list(t.step_scores),
                    "step_labels": check.step_labels,
                    **{f"score_{a}": aggregate(t.step_scores, a) for a in AGGREGATIONS},
                }
            )
        prediction = select(pool, "weighted", "min")
        samples.append(
            {
                "id": q.id,
                "story_id": q.story_id,
                "question_order": q.order,
                **q.meta,
                "question": q.question_text,
                "answer": q.answer,
                "pool_answers": [t.answer for t in pool],
                "pool_final_correct": sum(finals) / len(finals),
                "accuracy_by_n": {str(n): per_n[n] for n in config.ns},
                "prediction": prediction,
                "correct": prediction == gold,
            }
        )

    metrics: dict[str, Any] = {
        "n_questions": len(questions),
        "questions_by_order": {str(k): sum(q.order == k for q in questions) for k in sorted(pool_correct)},
        "sample_accuracy": _by_order(pool_correct),
        "accuracy": accuracy,
        "prediction": "weighted-min over the whole pool (samples.jsonl prediction/correct)",
    }
    if isinstance(verifier, PBMVerifier) and any(t["step_labels"] for t in traces):
        rows = [{**t, "labels": [bool(y) for y in t["step_labels"]]} for t in traces]
        metrics["verifier_step_accuracy"] = step_accuracy(
            rows, [t["step_scores"] for t in traces], verifier.pbm.threshold
        )[0]
    if config.oracle and config.verifier != "oracle":  # the same pools and subsets, ranked by the checker
        metrics["oracle_accuracy"] = bon_table(questions, score_pool(OracleVerifier(), questions, pools), config)[1]
    if config.beam:
        with policy.usage.measure() as beam_policy, verifier.usage.measure() as beam_verifier:
            beams = beam_search(policy, verifier, questions, config.beam_k, config.beam_b, config.seed)
        hits: dict[int, list[float]] = defaultdict(list)
        for s, q, b in zip(samples, questions, beams):
            ok = b.answer == normalise(q.answer)
            hits[q.order].append(float(ok))
            s["beam_answer"], s["beam_correct"] = b.answer, ok
        metrics["beam"] = {
            **_by_order(hits),
            "k": config.beam_k,
            "b": config.beam_b,
            "policy_usage": beam_policy.as_dict(),
            "verifier_usage": beam_verifier.as_dict(),
        }
    n_traces = max(1, sum(len(p) for p in pools))
    metrics["cost"] = cost_per_question(
        policy_usage, verifier_usage, n_traces, config.ns, metrics.get("beam"), len(questions)
    )
    metrics["usage"] = {
        "policy": policy_usage.as_dict(),
        "verifier": verifier_usage.as_dict(),
        "policy_tokens_per_trace": policy_usage.tokens / n_traces,
        "verifier_tokens_per_trace": verifier_usage.tokens / n_traces,
        "policy_tflops_per_trace": None if policy_usage.tflops is None else policy_usage.tflops / n_traces,
        "verifier_tflops_per_trace": None if verifier_usage.tflops is None else verifier_usage.tflops / n_traces,
    }
    return metrics, samples, traces
