"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for the OpenAIBackend tests."""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def char_logprob(ch: str) -> float:
    """The fake server's model: every character is one token with this log-probability."""
    return -0.1 * (ord(ch) % 7 + 1)


class FakeOpenAIServer(ThreadingHTTPServer):
    """An OpenAI-compatible server on 127.0.0.1 whose 'model' is deterministic and character-level.

    Completions are pseudo-random letters seeded by (prompt, seed, choice index); ``fail_next``
    answers the next requests with HTTP 503; ``delay`` stalls every answer (for timeouts and, like a
    model's latency, for concurrency); ``reply`` replaces every completion answer with that JSON value
    (for malformed answers); ``most_in_flight`` is the most requests it was answering at once.
    """

    model = "fake-model"
    #: Connections the listening socket queues (socketserver's default, 5, is fewer than the requests a
    #: concurrency test sends at once: on a loaded machine the 8th waited for a SYN retry)
    request_queue_size = 64

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.fail_next = 0
        self.delay = 0.0
        self.max_choices: int | None = None  # answer at most this many choices (llama.cpp ignores n)
        self.reply: Any = None
        self.in_flight = self.most_in_flight = 0
        self.lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client that timed out has left (the late answer hits a closed socket)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAIServer

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": FakeOpenAIServer.model}]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        with self.server.lock:
            self.server.in_flight += 1
            self.server.most_in_flight = max(self.server.most_in_flight, self.server.in_flight)
        self.answering = True
        try:
            self._answer()
        finally:
            self._done()

    def _done(self) -> None:
        """The request stops counting as in flight before its answer is written: a client that
        sends its next request on reading the answer must not be seen overlapping it."""
        if getattr(self, "answering", False):
            self.answering = False
            with self.server.lock:
                self.server.in_flight -= 1

    def _answer(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        if self.server.delay:
            time.sleep(self.server.delay)
        if self.server.reply is not None:
            self._send(200, self.server.reply)
            return
        if self.server.fail_next > 0:
            self.server.fail_next -= 1
            self._send(503, {"error": {"message": "server overloaded"}})
            return
        if body.get("model") != FakeOpenAIServer.model:
            self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            return
        if self.path == "/v1/completions":
            prompt = body["prompt"]
        elif self.path == "/v1/chat/completions":
            prompt = "".join(f"<{m['role']}>{m['content']}" for m in body["messages"])
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        n = body.get("n", 1)
        if self.server.max_choices is not None:
            n = min(n, self.server.max_choices)
        choices, completion_tokens = [], 0
        for j in range(n):
            rng = random.Random(f"{prompt}|{body.get('seed')}|{j}" if body.get("seed") is not None else None)
            length = rng.randint(1, 6)
            text = "".join(rng.choice("abcdefgh") for _ in range(min(length, body["max_tokens"])))
            finish = "length" if length > body["max_tokens"] else "stop"
            completion_tokens += len(text)
            choice: dict[str, Any] = {"index": j, "finish_reason": finish}
            if self.path == "/v1/chat/completions":
                choice["message"] = {"role": "assistant", "content": text}
            elif body.get("echo"):
                full = prompt + text
                choice["text"] = full
                choice["logprobs"] = {
                    "tokens": list(full),
                    "token_logprobs": [None] + [char_logprob(c) for c in full[1:]],
                    "text_offset": list(range(len(full))),
                }
            else:
                choice["text"] = text
            choices.append(choice)
        self._send(
            200,
            {
                "object": "text_completion",
                "model": FakeOpenAIServer.model,
                "choices": choices,
                "usage": {"prompt_tokens": len(prompt), "completion_tokens": completion_tokens},
            },
        )

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self._done()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
