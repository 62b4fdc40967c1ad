"""Any OpenAI-compatible HTTP endpoint: a vLLM or llama.cpp server, or a hosted API.

Standard library only (``urllib``), so it works without the ``llm`` extra. Connection failures,
timeouts, HTTP 408/409/429 and 5xx answers are retried with exponential backoff; when the retries
run out, the server rejects the request outright or answers with something that is not a
completion, a one-line :class:`UserError` naming the endpoint says so.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from mindzero.core.errors import UserError
from mindzero.llm.base import Backend, Generation, Prompt, UsageMeter

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})

#: Defaults that report a server which accepts connections but never answers in about 30 s
#: (3 attempts of 10 s plus 1.5 s of backoff) instead of minutes.
REQUEST_TIMEOUT = 10.0
RETRIES = 2
#: Requests in flight at once: a served model batches what arrives together, so decisions sent
#: concurrently cost about one request's latency (``benchmarks/bench_llm_eval.py``).
CONCURRENCY = 8
MAX_CONCURRENCY = 256


@dataclass(kw_only=True)
class EndpointOptions:
    """``--request-timeout``, ``--retries`` and ``--concurrency`` of commands that take a model spec; only ``openai:``
    specs use them (keyword-only, so configs with required fields can inherit them)."""

    request_timeout: float = field(
        default=REQUEST_TIMEOUT,
        metadata={"help": "seconds per HTTP request to an openai: model (raise it for long generations)", "gt": 0},
    )
    retries: int = field(
        default=RETRIES, metadata={"help": "retries of a failed HTTP request to an openai: model", "ge": 0, "le": 100}
    )
    concurrency: int = field(
        default=CONCURRENCY,
        metadata={"help": "requests to an openai: model kept in flight at once", "ge": 1, "le": MAX_CONCURRENCY},
    )
    active_params: float | None = field(
        default=None,
        metadata={
            "help": "parameters active per token of an openai: model, for its TFLOPs (paper Eq. 6), e.g. 2.2e10 "
            "for Qwen3-235B-A22B; unset: tokens are counted, TFLOPs are not",
            "gt": 0,
        },
    )


class OpenAIBackend(Backend):
    """Completions from ``{base_url}/completions`` (text prompts) and ``/chat/completions`` (chats).

    ``score`` needs an endpoint that echoes prompt log-probabilities on ``/completions``
    (``echo=true, logprobs=1``), as vLLM's server does; it takes text prompts only. The server's
    parameter count is unknown here: pass ``active_params`` to get FLOPs, otherwise they are None.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = REQUEST_TIMEOUT,
        max_retries: int = RETRIES,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        concurrency: int = CONCURRENCY,
        active_params: int | None = None,
    ) -> None:
        """Connect to ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``).

        ``timeout`` is seconds per HTTP request; a failed request is retried up to
        ``max_retries`` times, waiting ``backoff × 2^k`` seconds (at most ``max_backoff``) before
        retry k. ``model`` defaults to the first model the server lists; ``api_key`` to the
        ``OPENAI_API_KEY`` environment variable. Up to ``concurrency`` prompts are sent at once.
        """
        if not base_url.startswith(("http://", "https://")):
            raise UserError(f"OpenAI endpoint must be an http:// or https:// URL, got '{base_url}'")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise UserError(f"concurrency must be in [1, {MAX_CONCURRENCY}] requests in flight, got {concurrency}")
        self.concurrency = concurrency
        self.model = model or self._first_model()
        self.name = f"{self.base_url}#{self.model}"
        self.usage = UsageMeter(active_params)

    def sample(
        self, prompts: list[Prompt], n: int, temperature: float, max_new_tokens: int, seed: list[int] | None
    ) -> list[list[Generation]]:
        """``n`` completions per prompt, up to ``concurrency`` requests in flight (prompt i with seed
        ``seed[i]``); servers that return fewer are asked again, one at a time."""
        seeds = seed if seed is not None else [None] * len(prompts)
        with ThreadPoolExecutor(self.concurrency) as pool:
            return list(pool.map(lambda p, s: self._sample(p, n, temperature, max_new_tokens, s), prompts, seeds))

    def score(self, prompt: Prompt, continuations: Sequence[str]) -> list[float]:
        """Sum of the endpoint's echoed log-probs (nats) over the tokens covering each continuation."""
        if not isinstance(prompt, str):
            raise UserError(
                "OpenAI-compatible endpoints cannot score chat prompts (the chat API echoes no "
                "log-probabilities); render the chat to text first"
            )
        start = time.perf_counter()
        with ThreadPoolExecutor(self.concurrency) as pool:
            scored = list(pool.map(lambda c: self._score_one(prompt, c), continuations))
        self.usage.record(
            prompt_tokens=sum(p for _, p, _ in scored),
            completion_tokens=sum(c for _, _, c in scored),
            seconds=time.perf_counter() - start,
        )
        return [s for s, _, _ in scored]

    def _sample(
        self, prompt: Prompt, n: int, temperature: float, max_new_tokens: int, seed: int | None
    ) -> list[Generation]:
        out = self._request(prompt, n, temperature, max_new_tokens, seed)
        k = 0
        while len(out) < n:  # e.g. llama.cpp ignores n > 1
            k += 1
            out += self._request(prompt, 1, temperature, max_new_tokens, None if seed is None else seed + k)
        return out[:n]

    def _request(
        self, prompt: Prompt, n: int, temperature: float, max_new_tokens: int, seed: int | None
    ) -> list[Generation]:
        payload: dict[str, Any] = {
            "model": self.model,
            "n": n,
            "temperature": temperature,
            "max_tokens": max_new_tokens,
        }
        if seed is not None:
            payload["seed"] = seed
        path, key = ("/completions", "prompt") if isinstance(prompt, str) else ("/chat/completions", "messages")
        body = self._call("POST", path, {**payload, key: prompt})
        malformed = f"endpoint {self.base_url}{path} answered with no usable completions: {json.dumps(body)[:120]}"
        try:
            choices = sorted(body["choices"], key=lambda c: c.get("index", 0))
            texts = [c["text"] if "text" in c else (c.get("message") or {}).get("content") or "" for c in choices]
            finish = [c.get("finish_reason") or "stop" for c in choices]
            usage = body.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or 0)
            completion_tokens = int(usage.get("completion_tokens") or 0)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise UserError(malformed) from None
        if not choices or not all(isinstance(t, str) for t in texts):
            raise UserError(malformed)
        counts = _split(completion_tokens, texts)
        return [Generation(text, prompt_tokens, count, f) for text, count, f in zip(texts, counts, finish)]

    def _score_one(self, prompt: str, continuation: str) -> tuple[float, int, int]:
        """Return (log-prob, prompt tokens, continuation tokens) of one continuation."""
        full = prompt + continuation
        body = self._call(
            "POST",
            "/completions",
            {"model": self.model, "prompt": full, "max_tokens": 1, "echo": True, "logprobs": 1, "temperature": 0},
        )
        try:
            lp = body["choices"][0]["logprobs"]
            offsets, values = lp["text_offset"], lp["token_logprobs"]
        except (KeyError, IndexError, TypeError):
            raise UserError(
                f"endpoint {self.base_url} returned no prompt log-probabilities; scoring needs "
                "/completions with echo=true and logprobs (e.g. a vLLM server)"
            ) from None
        ends = list(offsets[1:]) + [len(full) + 1]
        # A token counts if it covers any character of the continuation (a token straddling the
        # boundary carries the continuation's first characters).
        picked = [v for o, e, v in zip(offsets, ends, values) if e > len(prompt) and o < len(full)]
        if any(v is None for v in picked):
            raise UserError("endpoint gave no log-probability for the first token; score needs a non-empty prompt")
        covered = sum(1 for o in offsets if o < len(full))
        return float(sum(picked)), covered - len(picked), len(picked)

    def _first_model(self) -> str:
        body = self._call("GET", "/models", None)
        try:
            return str(body["data"][0]["id"])
        except (KeyError, IndexError, TypeError):
            raise UserError(
                f"endpoint {self.base_url}/models lists no model; name one in the spec: openai:URL#MODEL"
            ) from None

    def _call(self, method: str, path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        """One JSON request with retries; transient failures back off, others fail at once."""
        url = self.base_url + path
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None if payload is None else json.dumps(payload).encode()
        attempts = self.max_retries + 1
        reason = ""
        for attempt in range(attempts):
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            retry_after = 0.0
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                try:
                    body = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = None
                if not isinstance(body, dict):
                    raise UserError(f"endpoint {url} answered with something that is not a JSON object: {raw[:80]!r}")
                return body
            except urllib.error.HTTPError as err:
                detail = _error_detail(err)
                if err.code not in RETRY_STATUS:
                    raise UserError(f"endpoint {url} rejected the request: HTTP {err.code} {detail}") from None
                reason = f"HTTP {err.code} {detail}".strip()
                header = err.headers.get("Retry-After", "") if err.headers else ""
                retry_after = float(header) if header.replace(".", "", 1).isdigit() else 0.0
            except (OSError, http.client.HTTPException) as err:  # refused, reset, timed out, cut short
                cause = getattr(err, "reason", err)
                reason = " ".join(f"{type(cause).__name__}: {cause}".split())
            if attempt + 1 < attempts:
                delay = min(self.max_backoff, max(self.backoff * 2**attempt, retry_after))
                log.warning(
                    "%s %s failed (%s); retry %d/%d in %.2f s",
                    method,
                    url,
                    reason,
                    attempt + 1,
                    self.max_retries,
                    delay,
                )
                time.sleep(delay)
        raise UserError(
            f"cannot reach OpenAI-compatible endpoint {url} after {attempts} attempts ({reason}); "
            "check that the server is running and the URL in 'openai:URL#MODEL' is right"
        )


def _error_detail(err: urllib.error.HTTPError) -> str:
    """The server's own error message, if it sent one (OpenAI style: {"error": {"message": ...}})."""
    try:
        body = json.loads(err.read() or b"{}")
        message = body.get("error", body)
        message = message.get("message", message) if isinstance(message, dict) else message
        return " ".join(str(message).split())[:200]
    except (json.JSONDecodeError, AttributeError, OSError):
        return str(err.reason)


def _split(total: int, texts: list[str]) -> list[int]:
    """Share a response's completion-token total among its choices in proportion to their length.

    The OpenAI API reports one total for all ``n`` choices; for ``n == 1`` the split is exact, and
    it always sums to the reported total so FLOPs stay exact.
    """
    if not texts:
        return []
    weights = [max(1, len(t)) for t in texts]
    counts = [total * w // sum(weights) for w in weights]
    for i in range(total - sum(counts)):
        counts[i % len(counts)] += 1
    return counts
