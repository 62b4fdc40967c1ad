"""Fixtures of the browser app's tests: apps built from flags, a live server on loopback, and the
recorded assistance runs the viewer replays."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.testclient import TestClient

from mindzero.cli import main
from mindzero.commands.serve import ServeConfig, serve_settings
from mindzero.web.app import ServeSettings, create_app


def settings(**flags) -> ServeSettings:
    """Serve settings as `mindzero serve` builds them from these flags (viewer off unless given)."""
    return serve_settings(ServeConfig(**{"runs": None, **flags}))


@pytest.fixture
def client_for() -> Callable[..., TestClient]:
    """``client_for(**flags)``: a TestClient of a fresh app; server errors come back as 500s, so
    that a test sees what a browser would."""

    def make(**flags) -> TestClient:
        return TestClient(create_app(settings(**flags)), raise_server_exceptions=False)

    return make


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder with one finished exact-helper assistance run (2 episodes, seed 10)."""
    root = tmp_path_factory.mktemp("runs")
    assert main(["gridworld", "assist", "--reasoner", "exact", "--episodes", "2", "--seeds", "10",
                 "--out", str(root / "exact")]) == 0  # fmt: skip
    return root


class LiveServer:
    """uvicorn serving an app on a free loopback port, in a thread."""

    def __init__(self, app) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        sock.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def live(runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One live server for a module's browser tests: exact and oracle helpers, the viewer on
    ``runs``, study mode logging to a temporary folder (2 tasks x solo, oracle)."""
    logs = tmp_path_factory.mktemp("study-logs")
    app = create_app(
        settings(runs=str(runs), study_logs=str(logs), study_tasks=2, study_conditions=["solo", "oracle"], episodes=4)
    )
    with LiveServer(app) as server:
        server.logs = logs
        yield server
