"""llama.cpp's ``llama-server`` serving a GGUF file: the real OpenAI-compatible server that the
concurrency test and ``benchmarks/bench_llm_eval.py --llama-server`` drive (docs/llm.md says how to
build it from the ``llama-cpp-python`` source distribution)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

#: Where the binary is looked for: this variable, then ``llama-server`` on PATH.
BINARY_VARIABLE = "MINDZERO_LLAMA_SERVER"


def find_llama_server() -> str | None:
    """The ``llama-server`` binary to use, or None when there is none."""
    return os.environ.get(BINARY_VARIABLE) or shutil.which("llama-server")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def llama_server(
    binary: str,
    gguf: Path,
    parallel: int = 8,
    threads: int | None = None,
    context_per_slot: int = 2048,
    startup_seconds: float = 120.0,
    log: Path | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[str]:
    """Serve ``gguf`` with ``parallel`` slots (requests decoded together, continuous batching) on a
    free local port, with more command-line ``options``; yields the ``/v1`` base URL once ``/health``
    answers, stops the server after."""
    port = _free_port()
    command = [
        binary,
        "-m",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--parallel",
        str(parallel),
        "--ctx-size",
        str(parallel * context_per_slot),
        "--threads",
        str(threads or os.cpu_count() or 1),
        *options,
    ]
    stream = log.open("w") if log else subprocess.DEVNULL
    server = subprocess.Popen(command, stdout=stream, stderr=stream)
    try:
        deadline = time.monotonic() + startup_seconds
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"llama-server exited with {server.returncode} before serving: {' '.join(command)}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama-server did not answer /health within {startup_seconds:.0f} s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        if log:
            stream.close()
