"""The Process Belief Model: a causal LM that writes ``+`` or ``-`` after every step of a trace.

As in DEL-ToM (adapted from RLHFlow's process reward models) the PBM reads the problem and then
each step followed by a fixed tag; the token after the tag is the label, ``+`` for a correct step
and ``-`` for a wrong one. Training is ordinary next-token cross-entropy restricted to those label
positions (every other position is masked with -100), run by transformers' ``Trainer``. Scoring
needs no label tokens in the input: one forward pass over problem + all steps gives, at each tag,
``P(+) / (P(+) + P(-))`` — the step's score in [0, 1].

A PBM folder (``OUT/final`` or ``OUT/checkpoint-N``) holds the model, its tokenizer and
``pbm_config.json`` (kind, tag and label strings, base model); anything else is refused with a
message that says what the folder is instead.
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mindzero.core.errors import UserError
from mindzero.llm.base import UsageMeter
from mindzero.llm.models import PACKAGED_MODELS, load_language_model, resolve_model
from mindzero.pbm.data import upto_first_error
from mindzero.stories.traces import number_span, step_number, value_span

Span = tuple[int, int]

KIND = "mindzero-pbm"
CONFIG_FILE = "pbm_config.json"
READOUTS = ("label", "value", "both")
"""How a PBM scores a step: ``label`` = P(+)/(P(+)+P(-)) at its tag; ``value`` = the probability of
what the step claims, given everything before it — the value it wrote (a PBM trained with belief
targets predicts the engine's belief there) and, where trained (``claims``), its step number (the
engine's next line: a skipped or repeated line shows there) — as a running minimum over the trace (by
the prefix rule a step is no more certain than the steps before it); ``both`` = the geometric mean of
the two."""
CLAIMS = {"value": value_span, "number": number_span}
"""The parts of a step a PBM with belief targets predicts — the belief it writes and its step number —
and where each sits in the step (``pbm_config.json``: ``claims``)."""
THRESHOLDS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
"""Cuts :func:`choose_threshold` tries: a ``value`` readout is the probability of what a step wrote,
not a calibrated P(correct), and its best cut is often far below 0.5 (hence the log-spaced low end)."""
STEP_TAG = " ки"
"""Appended to every step; the PBM predicts the label token right after it."""
LABEL_CANDIDATES = ((" +", " -"), ("+", "-"))
"""Label strings to try, first pair whose strings are one token each wins."""
_HUB_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


def model_location(name: str) -> str:
    """A local folder for names and paths (converted once if GGUF); hub ids pass through (GPU hosts)."""
    if name in PACKAGED_MODELS or Path(name).expanduser().exists() or not _HUB_ID.match(name):
        return str(resolve_model(name))
    return name


def label_tokens(tokenizer: Any) -> tuple[str, str, int, int]:
    """(plus, minus, plus_id, minus_id): the first candidate pair that tokenizes to single tokens."""
    for plus, minus in LABEL_CANDIDATES:
        p = tokenizer(plus, add_special_tokens=False).input_ids
        m = tokenizer(minus, add_special_tokens=False).input_ids
        if len(p) == 1 and len(m) == 1 and p != m:
            return plus, minus, p[0], m[0]
    raise UserError("the tokenizer has no single-token '+'/'-' labels; choose another base model")


def make_pbm_config(
    tokenizer: Any, base_model: str, max_length: int, readout: str = "label", claims: Sequence[str] = ("value",)
) -> dict:
    """What a PBM folder records besides its weights: kind, tag, label strings and ids, length, readout,
    and the parts of a step it was trained to predict (:data:`CLAIMS`, scored by the ``value`` readout)."""
    plus, minus, plus_id, minus_id = label_tokens(tokenizer)
    return {
        "kind": KIND,
        "base_model": base_model,
        "tag": STEP_TAG,
        "plus": plus,
        "minus": minus,
        "plus_id": plus_id,
        "minus_id": minus_id,
        "max_length": max_length,
        "readout": readout,
        "claims": list(claims),
    }


def step_piece(step: object) -> str:
    """The text a step adds to the PBM's input (before its tag)."""
    return "\n" + str(step).strip()


@functools.lru_cache(maxsize=1 << 16)
def piece_tokens(tokenizer: Any, piece: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """(ids, character offsets) of a piece, cached: traces of one story repeat most of their pieces."""
    encoded = tokenizer(piece, add_special_tokens=False, return_offsets_mapping=True)
    return tuple(encoded.input_ids), tuple(map(tuple, encoded.offset_mapping))


def overlapping_tokens(offsets: Sequence[tuple[int, int]], span: Span) -> list[int]:
    """Indices of the tokens that overlap ``span`` (the first may also hold text before it)."""
    return [i for i, (a, b) in enumerate(offsets) if a < span[1] and b > span[0]]


def piece_start(tokenizer: Any, step: object, tag_position: int, tag_length: int) -> int:
    """Index, in the :func:`encode_trace` ids, of a step's first token, given its tag's position."""
    return tag_position - tag_length - len(piece_tokens(tokenizer, step_piece(step))[0]) + 1


def span_positions(
    tokenizer: Any, step: object, tag_position: int | None, tag_length: int, find: Callable[[str], Span | None]
) -> list[int]:
    """Indices, in the :func:`encode_trace` ids, of the tokens of the part of a step that ``find``
    locates in its piece (``value_span``: its last ``[value]``; ``number_span``: its step number),
    given the position of the step's tag; [] when the step was cut off (``tag_position`` None)
    or has no such part."""
    piece = step_piece(step)
    span = find(piece)
    if tag_position is None or span is None:
        return []
    first = piece_start(tokenizer, step, tag_position, tag_length)
    return [first + i for i in overlapping_tokens(piece_tokens(tokenizer, piece)[1], span)]


def gold_tokens(tokenizer: Any, step: object, find: Callable[[str], Span | None], gold: str) -> tuple[int, list[int]]:
    """(k, tokens): the tokens of the step's piece from its k-th on, had the part that ``find``
    locates read ``gold``, up to the end of that part — where a tokenizer merges across the part's
    edge, from the first token that changes; (0, []) when the step has no such part."""
    piece = step_piece(step)
    span = find(piece)
    if span is None:
        return 0, []
    written = piece_tokens(tokenizer, piece)[0]
    ids, offsets = piece_tokens(tokenizer, piece[: span[0]] + gold + piece[span[1] :])
    at = overlapping_tokens(offsets, (span[0], span[0] + len(gold)))
    if not at:
        return 0, []
    k = next((i for i, (a, b) in enumerate(zip(written, ids)) if a != b), at[0])
    k = min(k, at[0])
    return k, list(ids[k : at[-1] + 1])


def next_line(last_line: int, step: object) -> int:
    """The story line the checker has reached after ``step`` (it advances only on a number past it)."""
    number = step_number(step_piece(step))
    return number if number is not None and number > last_line else last_line


def write_pbm_config(folder: str | os.PathLike, config: dict) -> None:
    """Mark ``folder`` (weights + tokenizer) as a PBM checkpoint."""
    (Path(folder) / CONFIG_FILE).write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def encode_trace(
    tokenizer: Any, tag_ids: Sequence[int], problem: str, steps: Sequence[str], max_length: int
) -> tuple[list[int], list[int | None]]:
    """Token ids of problem + tagged steps, and each step's tag position (None if cut off).

    Pieces are tokenized separately so a tag always has the same tokens. A sequence longer than
    ``max_length`` loses the start of its problem first, then its last steps.
    """
    ids = list(tokenizer(problem, add_special_tokens=True).input_ids)
    n_problem = len(ids)
    positions: list[int] = []
    for step in steps:
        ids += list(piece_tokens(tokenizer, step_piece(step))[0]) + list(tag_ids)
        positions.append(len(ids) - 1)
    excess = len(ids) - max_length
    if excess > 0:
        cut = min(excess, max(n_problem - 1, 0))
        ids = ids[:1] + ids[1 + cut :] if cut else ids
        positions = [p - cut for p in positions]
        ids = ids[:max_length]
    return ids, [p if p < len(ids) else None for p in positions]


def read_pbm_config(path: str | os.PathLike) -> dict:
    """The PBM's own config; a clear error for anything that is not a PBM checkpoint."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"PBM checkpoint '{folder}' is not a folder; pass OUT/final or OUT/checkpoint-N of `train pbm`")
    file = folder / CONFIG_FILE
    if not file.is_file():
        what = "a causal language model" if (folder / "config.json").is_file() else "no model at all"
        raise UserError(
            f"'{folder}' is not a PBM checkpoint: it has no {CONFIG_FILE} ({what}); "
            "train one with `mindzero train pbm` and pass its OUT/final folder"
        )
    try:
        config = json.loads(file.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise UserError(f"'{file}' is unreadable ({err}); retrain or copy the checkpoint again") from None
    if not isinstance(config, dict) or config.get("kind") != KIND:
        kind = config.get("kind") if isinstance(config, dict) else type(config).__name__
        raise UserError(f"'{folder}' is a checkpoint of kind {kind!r}, not a PBM ({KIND!r})")
    return config


class ProcessBeliefModel:
    """A trained PBM; ``score(problems, steps)`` gives every step a score in [0, 1] (:data:`READOUTS`), batched."""

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        device: str | None = None,
        dtype: str = "float32",
        batch_size: int = 8,
        max_length: int | None = None,
        readout: str | None = None,
    ) -> None:
        self.config = read_pbm_config(path)
        self.readout = readout or self.config.get("readout", "label")
        if self.readout not in READOUTS:
            raise UserError(f"unknown PBM readout {self.readout!r}; choose one of {', '.join(READOUTS)}")
        self.threshold = stored_threshold(self.config, self.readout)
        import torch
        from transformers import AutoTokenizer

        self.name = str(path)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        self.model = load_language_model(path, getattr(torch, dtype))
        self.model.to(self.device).eval()
        self.batch_size = batch_size
        self.max_length = max_length or int(self.config["max_length"])
        self.tag_ids = self.tokenizer(self.config["tag"], add_special_tokens=False).input_ids
        self.plus_id, self.minus_id = int(self.config["plus_id"]), int(self.config["minus_id"])
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (self.tokenizer.eos_token_id or 0)
        self.usage = UsageMeter(self.model.num_parameters())

    def score(self, problems: Sequence[str], steps: Sequence[Sequence[str]]) -> list[list[float]]:
        """Per-step scores in [0, 1] (the PBM's own readout) for each (problem, steps) pair, one forward
        pass per trace. A trace with no steps gets ``[]``; a step cut off by ``max_length`` gets 0.0
        (unverifiable)."""
        return self.score_readouts(problems, steps, (self.readout,))[self.readout]

    def score_readouts(
        self, problems: Sequence[str], steps: Sequence[Sequence[str]], readouts: Sequence[str] = READOUTS
    ) -> dict[str, list[list[float]]]:
        """:meth:`score` under each of ``readouts``, from the same forward passes."""
        import torch

        start = time.perf_counter()
        encoded = [encode_trace(self.tokenizer, self.tag_ids, p, s, self.max_length) for p, s in zip(problems, steps)]
        out: dict[str, list[list[float]]] = {name: [[] for _ in encoded] for name in readouts}
        work = [i for i, (_, pos) in enumerate(encoded) if pos]
        work.sort(key=lambda i: len(encoded[i][0]))  # similar lengths together: less padding
        need_value = bool({"value", "both"} & set(readouts))
        with torch.inference_mode():
            for lo in range(0, len(work), self.batch_size):
                batch = work[lo : lo + self.batch_size]
                width = max(len(encoded[i][0]) for i in batch)
                ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for r, i in enumerate(batch):
                    row = encoded[i][0]
                    ids[r, : len(row)] = torch.tensor(row)
                    mask[r, : len(row)] = 1
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits
                pair = logits[..., [self.plus_id, self.minus_id]].float()
                p_plus = torch.softmax(pair, dim=-1)[..., 0].cpu()
                for r, i in enumerate(batch):
                    label = [float(p_plus[r, p]) if p is not None else 0.0 for p in encoded[i][1]]
                    value = self._value_scores(logits[r], encoded[i][0], encoded[i][1], steps[i]) if need_value else []
                    both = [(v * x) ** 0.5 for v, x in zip(value, label)]
                    for name in readouts:
                        out[name][i] = {"label": label, "value": value, "both": both}[name]
        tokens = sum(len(ids) for ids, _ in encoded)
        self.usage.record(prompt_tokens=tokens, completion_tokens=0, seconds=time.perf_counter() - start)
        return out

    def _value_scores(
        self, logits: Any, ids: list[int], positions: list[int | None], steps: Sequence[str]
    ) -> list[float]:
        """The ``value`` readout of one trace: the probability of each step's :data:`CLAIMS` that the
        PBM was trained on, given the prefix, as a running minimum; 0 without a value (or another
        claimed part).

        The softmax is taken only where a scored token is predicted (a full one is vocabulary × length)."""
        import torch

        finds = [CLAIMS[c] for c in self.config.get("claims") or ["value"]]  # label-trained: its value alone
        scores, running = [], 1.0
        for p, step in zip(positions, steps):
            claim = 1.0
            for find in finds:
                at = span_positions(self.tokenizer, step, p, len(self.tag_ids), find)
                logp = [torch.log_softmax(logits[i - 1].float(), dim=-1)[ids[i]] for i in at]
                claim *= float(torch.stack(logp).sum().exp()) if logp else 0.0
            running = min(running, claim)
            scores.append(running)
        return scores


def rank_auc(scored: Sequence[tuple[float, bool]]) -> float | None:
    """P(a correct step scores above a wrong one), ties counting half (Mann–Whitney U over the number of
    pairs); None without both kinds of step.

    Best-of-N only ranks traces, so this — not accuracy at a threshold — is what search can use."""
    from scipy.stats import mannwhitneyu

    right = [x for x, y in scored if y]
    wrong = [x for x, y in scored if not y]
    if not right or not wrong:
        return None
    return float(mannwhitneyu(right, wrong).statistic / (len(right) * len(wrong)))


def step_accuracy(
    rows: Sequence[dict], scores: Sequence[Sequence[float]], threshold: float = 0.5
) -> tuple[dict, list[dict]]:
    """Paper Table 4: step-level accuracy (score > threshold ⇔ label) per belief order and averaged,
    given the PBM's per-step ``scores`` of the ``rows`` (:meth:`ProcessBeliefModel.score`).

    Returns (metrics, per-row samples). ``avg`` is the mean of the per-order accuracies, as the
    paper's table averages its columns; ``micro`` pools all steps; ``always_plus`` is the baseline
    that calls every step correct (the share of correct steps); ``to_first_error`` is the same accuracy
    over each trace's steps up to its first wrong one, which does not reward guessing that late steps
    are wrong (``train pbm --label-scope first-error``), with the :func:`rank_auc` of those steps' scores
    and ``first_errors_caught``, the share of traces with a wrong step whose first one scores at or
    below the threshold (what a verifier must see to rank a trace down). ``step_accuracy.by_source``
    is the accuracy per kind of trace (``gold``, each corruption, the policy's samples): which
    mistakes the PBM misses. Rows without a labelled step are an error: an evaluation of nothing has
    no accuracy.
    """
    if not any(r["labels"] for r in rows):
        raise UserError("no labelled steps to evaluate: every trace is empty")
    by_order: dict[str, list[int]] = {}
    prior: dict[str, list[int]] = {}  # the labels themselves: what always answering "+" gets right
    scoped: dict[str, list[int]] = {}  # hits up to each trace's first wrong step
    scoped_prior: dict[str, list[int]] = {}  # always-"+" in that scope
    ranked: list[tuple[float, bool]] = []  # (score, label) of those steps
    first_errors: list[int] = []  # 1 where a trace's first wrong step scores at or below the threshold
    by_label: dict[str, list[int]] = {"correct_steps": [], "wrong_steps": []}
    by_source: dict[str, list[int]] = {}
    samples = []
    for r, s in zip(rows, scores):
        order = str(r["question_order"])
        hits = [int((x > threshold) == bool(y)) for x, y in zip(s, r["labels"])]
        by_order.setdefault(order, []).extend(hits)
        prior.setdefault(order, []).extend(int(bool(y)) for y in r["labels"][: len(hits)])
        upto = upto_first_error(r["labels"][: len(hits)])
        scoped.setdefault(order, []).extend(hits[: len(upto)])
        scoped_prior.setdefault(order, []).extend(int(bool(y)) for y in upto)
        ranked += [(x, bool(y)) for x, y in zip(s, upto)]
        if upto and not upto[-1]:  # upto never outruns hits: both are cut to the scored steps
            first_errors.append(hits[len(upto) - 1])
        for h, y in zip(hits, r["labels"]):
            by_label["correct_steps" if y else "wrong_steps"].append(h)
        by_source.setdefault(str(r.get("source")), []).extend(hits)
        samples.append(
            {
                "id": r["id"],
                "question_order": r["question_order"],
                "source": r.get("source"),
                "labels": r["labels"],
                "scores": s,
                "step_accuracy": sum(hits) / len(hits) if hits else None,
            }
        )
    per_order = {k: sum(v) / len(v) for k, v in sorted(by_order.items()) if v}
    pooled = [h for v in by_order.values() for h in v]
    plus = {k: sum(v) / len(v) for k, v in sorted(prior.items()) if v}
    to_first_error = {k: sum(v) / len(v) for k, v in sorted(scoped.items()) if v}
    scoped_plus = {k: sum(v) / len(v) for k, v in sorted(scoped_prior.items()) if v}
    metrics = {
        "step_accuracy": {
            "by_order": per_order,
            "avg": sum(per_order.values()) / len(per_order) if per_order else None,
            "micro": sum(pooled) / len(pooled) if pooled else None,
            **{k: (sum(v) / len(v) if v else None) for k, v in by_label.items()},
            "by_source": {k: sum(v) / len(v) for k, v in sorted(by_source.items()) if v},
        },
        "always_plus": {"by_order": plus, "avg": sum(plus.values()) / len(plus) if plus else None},
        "to_first_error": {
            "by_order": to_first_error,
            "avg": sum(to_first_error.values()) / len(to_first_error) if to_first_error else None,
            "always_plus": sum(scoped_plus.values()) / len(scoped_plus) if scoped_plus else None,
            "auc": rank_auc(ranked),
            "first_errors_caught": sum(first_errors) / len(first_errors) if first_errors else None,
        },
        "n_traces": len(rows),
        "n_steps": len(pooled),
        "threshold": threshold,
    }
    return metrics, samples


def stored_threshold(config: dict, readout: str) -> float:
    """Score above which a step counts as correct under ``readout``: the cut ``train pbm`` chose on
    validation traces (``pbm_config.json``: ``thresholds``), else 0.5."""
    return float((config.get("thresholds") or {}).get(readout, 0.5))


def choose_threshold(rows: Sequence[dict], scores: Sequence[Sequence[float]]) -> float:
    """The cut of :data:`THRESHOLDS` with the best mean per-order step accuracy on ``rows`` — validation
    traces, never the ones the accuracy is reported on; a tie goes to the cut nearest 0.5."""
    return max(THRESHOLDS, key=lambda t: (step_accuracy(rows, scores, t)[0]["step_accuracy"]["avg"], -abs(t - 0.5)))
