"""LLM scores cached on disk, so a run pays each distinct (model, prompt, continuation) once.

The LLM estimators of a reward or an inference (``--likelihood llm``, ``--prior llm``) ask for
log P(continuation | prompt) of hundreds of pairs per decision, most of them asked before (the
same goals, the same history text). :class:`CachedScorer` answers from one JSONL file per
(model, estimator) and sends only new pairs to the backend, in one batched call.

File format: a header line ``{"cache": "mindzero-scores", "version": 1, "model": ..., "estimator":
...}``, then one line per score ``{"k": key, "v": nats, "c": checksum}`` where ``key`` is the first
32 hex digits of SHA-256 of ``prompt + "\\x1f" + continuation`` and ``checksum`` the CRC-32 of
``f"{k} {v!r}"``. New scores are appended, one ``write`` per batch, after each backend call, so an
interrupted run keeps what it paid for. A line that does not parse, fails its checksum, or a
header of another model or estimator is corruption: the file is rebuilt — its intact score lines
rewritten atomically — with a one-line warning, and never used as it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text
from mindzero.llm.base import Backend

log = logging.getLogger(__name__)

VERSION = 1


def pair_key(prompt: str, continuation: str) -> str:
    """The cache key of one pair: 32 hex digits of SHA-256 (a collision is ~2^-64 per pair)."""
    return hashlib.sha256(f"{prompt}\x1f{continuation}".encode()).hexdigest()[:32]


def _checksum(key: str, value: float) -> int:
    return zlib.crc32(f"{key} {value!r}".encode())


def cache_path(folder: str | os.PathLike[str], model: str, estimator: str) -> Path:
    """``FOLDER/<model slug>-<8 hex of the spec>.<estimator>.jsonl``: one file per (model, estimator)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_.")[-48:] or "model"
    return Path(folder) / f"{slug}-{hashlib.sha256(model.encode()).hexdigest()[:8]}.{estimator}.jsonl"


class ScoreCache:
    """The scores of one (model, estimator) file (module docstring): read whole on opening."""

    def __init__(self, path: str | os.PathLike[str], model: str, estimator: str) -> None:
        self.path = Path(path)
        self.header = {"cache": "mindzero-scores", "version": VERSION, "model": model, "estimator": estimator}
        self.scores: dict[str, float] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        problem = None
        try:
            header = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            header = None
        if header != self.header:
            problem = "line 1: not this model's and estimator's header"
            lines = []
        for n, line in enumerate(lines[1:], 2):
            try:
                row = json.loads(line)
                key, value = row["k"], float(row["v"])
                if not isinstance(key, str) or row["c"] != _checksum(key, value):
                    raise ValueError("bad checksum")
            except (ValueError, KeyError, TypeError) as err:
                problem = problem or f"line {n}: {type(err).__name__}: {str(err)[:60]}"
                continue
            self.scores[key] = value
        if problem is not None:
            log.warning(
                "warning: score cache %s is corrupt (%s); rebuilding it with its %d intact score(s)",
                self.path,
                problem,
                len(self.scores),
            )
            self._rewrite()

    def _line(self, key: str, value: float) -> str:
        return json.dumps({"k": key, "v": value, "c": _checksum(key, value)}) + "\n"

    def _rewrite(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(self._line(k, v) for k, v in self.scores.items())
        atomic_write_text(self.path, json.dumps(self.header) + "\n" + body)

    def add(self, items: dict[str, float]) -> None:
        """Keep and append new scores (one write; the header first if the file is new)."""
        if not items:
            return
        if not self.path.exists():
            self._rewrite()
        self.scores.update(items)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write("".join(self._line(k, v) for k, v in items.items()))


class CachedScorer:
    """log P(continuation | prompt) of (prompt, continuation) pairs, from the cache or — for
    pairs it lacks — one :meth:`Backend.score_pairs` call. The backend is built on the first miss
    (``backend`` may be a factory), so a run whose scores are all cached never loads the model.

    ``hits``/``misses`` count pairs answered from the cache / by the backend; ``seconds`` is the
    backend's wall time."""

    def __init__(
        self,
        backend: Backend | Callable[[], Backend],
        folder: str | os.PathLike[str],
        model: str,
        estimator: str,
    ) -> None:
        self._backend = backend
        self.model = model
        self.estimator = estimator
        self.cache = ScoreCache(cache_path(folder, model, estimator), model, estimator)
        self.hits = self.misses = 0
        self.seconds = 0.0

    @property
    def backend(self) -> Backend:
        if not isinstance(self._backend, Backend):
            self._backend = self._backend()
        return self._backend

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Nats per pair, in order; each distinct missing pair is scored once."""
        keys = [pair_key(p, c) for p, c in pairs]
        known = self.cache.scores
        missing = {k: pair for k, pair in zip(keys, pairs) if k not in known}
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        if missing:
            backend = self.backend
            before = backend.usage.total.seconds
            try:
                values = backend.score_pairs(list(missing.values()))
            except NotImplementedError:
                raise UserError(
                    f"the {self.estimator} estimator needs log-probabilities and model {self.model} gives none "
                    "(use a transformers or vLLM model, or an OpenAI-compatible server with echo and logprobs)"
                ) from None
            except UserError as err:
                raise UserError(f"the {self.estimator} estimator cannot score with model {self.model}: {err}") from None
            self.seconds += backend.usage.total.seconds - before
            self.cache.add(dict(zip(missing, map(float, values))))
        return np.array([known[k] for k in keys], dtype=float)
