"""OpenAIBackend against a real HTTP server on 127.0.0.1 (standard library only, no torch)."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from fake_openai_server import FakeOpenAIServer, char_logprob

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.llm import EndpointOptions, OpenAIBackend, load_backend
from mindzero.llm.openai_backend import RETRIES


def fast(server: FakeOpenAIServer, **kw: object) -> OpenAIBackend:
    """A backend with millisecond backoff so retry tests take no time."""
    return OpenAIBackend(server.url, "fake-model", backoff=0.001, **kw)  # type: ignore[arg-type]


def test_spec_string_and_default_model(openai_server: FakeOpenAIServer) -> None:
    named = load_backend(f"openai:{openai_server.url}#fake-model")
    listed = load_backend(f"openai:{openai_server.url}")
    assert isinstance(named, OpenAIBackend) and named.model == "fake-model"
    assert listed.model == "fake-model"  # first model the server lists
    assert named.name == f"{openai_server.url}#fake-model"


def test_text_and_chat_prompts_use_their_endpoints(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server)
    chat = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "goal?"}]
    out = backend.generate(["The agent", chat], n=3, temperature=0.7, max_new_tokens=4, seed=5)
    assert [len(gs) for gs in out] == [3, 3]
    paths = sorted(path for path, _ in openai_server.requests)
    assert paths == ["/v1/chat/completions", "/v1/completions"]
    by_path = dict(openai_server.requests)
    assert by_path["/v1/completions"]["prompt"] == "The agent"
    assert by_path["/v1/chat/completions"]["messages"] == chat
    for seed, path in ((5, "/v1/completions"), (6, "/v1/chat/completions")):  # prompt i: seed + i
        assert (by_path[path]["n"], by_path[path]["temperature"], by_path[path]["max_tokens"]) == (3, 0.7, 4)
        assert by_path[path]["seed"] == seed
    assert all(len(g.text) <= 4 for gs in out for g in gs)
    # The fake counts one token per character; a single choice gets the exact count.
    assert out[0][0].prompt_tokens == len("The agent")
    assert sum(g.completion_tokens for g in out[0]) == sum(len(g.text) for g in out[0])


def test_seeded_sampling_is_reproducible(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server)
    a = backend.generate(["p1", "p2"], n=4, temperature=1.0, max_new_tokens=6, seed=1)
    b = backend.generate(["p1", "p2"], n=4, temperature=1.0, max_new_tokens=6, seed=1)
    c = backend.generate(["p1", "p2"], n=4, temperature=1.0, max_new_tokens=6, seed=2)
    assert a == b
    assert a != c


def test_usage_and_flops_follow_eq6(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server, active_params=1000)
    out = backend.generate(["abcd"], n=2, max_new_tokens=6, seed=3)
    completion = sum(len(g.text) for g in out[0])
    total = backend.usage.total
    assert total.calls == 1
    assert total.prompt_tokens == 2 * 4  # the prompt counts once per sample
    assert total.completion_tokens == completion
    assert total.flops == 2 * 1000 * (8 + completion)
    assert total.seconds > 0


def test_flops_unknown_without_parameter_count(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server)
    backend.generate(["x"], max_new_tokens=2, seed=0)
    assert backend.usage.total.flops is None and backend.usage.total.tflops is None
    assert backend.usage.total.tokens > 0


def test_score_sums_logprobs_of_continuation_tokens(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server, active_params=10)
    scores = backend.score("Answer:", [" A", " Bcd"])
    assert scores == pytest.approx([sum(map(char_logprob, c)) for c in [" A", " Bcd"]])
    body = openai_server.requests[0][1]
    assert body["echo"] is True and body["logprobs"] == 1
    assert backend.usage.total.completion_tokens == 2 + 4
    assert backend.usage.total.prompt_tokens == 2 * len("Answer:")


def test_score_rejects_chat_prompts(openai_server: FakeOpenAIServer) -> None:
    with pytest.raises(UserError, match="cannot score chat prompts"):
        fast(openai_server).score([{"role": "user", "content": "hi"}], [" A"])


def test_server_returning_fewer_choices_is_asked_again(openai_server: FakeOpenAIServer) -> None:
    openai_server.max_choices = 1  # like llama.cpp, which ignores n
    out = fast(openai_server).generate(["q"], n=3, max_new_tokens=5, seed=9)
    assert len(out[0]) == 3
    assert len(openai_server.requests) == 3
    assert [body.get("seed") for _, body in openai_server.requests] == [9, 10, 11]


def test_answer_without_choices_is_an_error(openai_server: FakeOpenAIServer) -> None:
    openai_server.max_choices = 0
    with pytest.raises(UserError, match="answered with no usable completions"):
        fast(openai_server).generate(["q"], n=2, max_new_tokens=3)
    assert len(openai_server.requests) == 1


def test_transient_failures_are_retried_with_backoff(
    openai_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.fail_next = 2
    with caplog.at_level(logging.WARNING, logger="mindzero.llm.openai_backend"):
        out = fast(openai_server, max_retries=3).generate(["q"], max_new_tokens=3, seed=0)
    assert len(out[0]) == 1
    assert len(openai_server.requests) == 3  # two 503s, then success
    retries = [r.getMessage() for r in caplog.records]
    assert len(retries) == 2 and all("HTTP 503" in m for m in retries)
    assert "retry 1/3 in 0.00 s" in retries[0] and "retry 2/3" in retries[1]


def test_persistent_failure_becomes_one_line_user_error(openai_server: FakeOpenAIServer) -> None:
    openai_server.fail_next = 100
    with pytest.raises(UserError) as err:
        fast(openai_server, max_retries=2).generate(["q"], max_new_tokens=3)
    assert len(openai_server.requests) == 3
    assert "after 3 attempts" in str(err.value) and "HTTP 503" in str(err.value)
    assert "\n" not in str(err.value)


def test_client_errors_are_not_retried(openai_server: FakeOpenAIServer) -> None:
    backend = OpenAIBackend(openai_server.url, "no-such-model", backoff=0.001)
    with pytest.raises(UserError, match=r"HTTP 404 The model `no-such-model` does not exist"):
        backend.generate(["q"], max_new_tokens=3)
    assert len(openai_server.requests) == 1


def test_timeouts_are_retried(openai_server: FakeOpenAIServer) -> None:
    openai_server.delay = 0.3
    with pytest.raises(UserError, match=r"after 2 attempts \(TimeoutError"):
        fast(openai_server, timeout=0.05, max_retries=1).generate(["q"], max_new_tokens=3)
    assert len(openai_server.requests) == 2


def test_closed_port_is_retried_then_reported(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # find a free port, then close it so nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with caplog.at_level(logging.WARNING, logger="mindzero.llm.openai_backend"):
        with pytest.raises(UserError) as err:
            load_backend(f"openai:{url}#m", EndpointOptions(retries=2), backoff=0.001).generate(["q"], max_new_tokens=2)
    message = str(err.value)
    assert message.startswith(f"cannot reach OpenAI-compatible endpoint {url}/completions after 3 attempts")
    assert "Connection refused" in message and "\n" not in message
    assert len(caplog.records) == 2


def test_bad_arguments_are_user_errors(openai_server: FakeOpenAIServer) -> None:
    backend = fast(openai_server)
    with pytest.raises(UserError, match="n must be at least 1"):
        backend.generate(["q"], n=0)
    with pytest.raises(UserError, match="temperature must be >= 0"):
        backend.generate(["q"], temperature=-1)
    with pytest.raises(UserError, match="http:// or https://"):
        OpenAIBackend("127.0.0.1:8000/v1", "m")
    assert openai_server.requests == []


@pytest.mark.parametrize(
    "reply",
    [
        {"choices": "nope"},
        {"choices": [{"index": 0, "text": 5}]},
        {"choices": [{"text": "a"}], "usage": {"prompt_tokens": "many"}},
        [1, 2],
        "text",
    ],
)
def test_malformed_answers_are_one_line_errors_naming_the_endpoint(openai_server: FakeOpenAIServer, reply) -> None:
    openai_server.reply = reply
    with pytest.raises(UserError) as err:
        fast(openai_server).generate(["q"], max_new_tokens=3)
    assert f"endpoint {openai_server.url}/completions answered with" in str(err.value)
    assert "\n" not in str(err.value)


def test_default_timeouts_report_a_dead_server_within_about_30_seconds() -> None:
    backend = OpenAIBackend("http://127.0.0.1:9/v1", "m")
    waits = sum(min(backend.max_backoff, backend.backoff * 2**k) for k in range(RETRIES))
    assert backend.max_retries == RETRIES and backend.timeout * (RETRIES + 1) + waits <= 32


def test_cli_request_timeout_and_retries_reach_the_backend(openai_server: FakeOpenAIServer, tmp_path, capsys) -> None:
    """A server that accepts the request and never answers in time: one line after 2 short attempts."""
    openai_server.delay = 1.0
    argv = ["gridworld", "assist", "--reasoner", "llm", "--model", f"openai:{openai_server.url}#fake-model"]
    argv += ["--episodes", "1", "--seeds", "1", "--max-steps", "2", "--out", str(tmp_path)]
    assert main([*argv, "--request-timeout", "0.1", "--retries", "1"]) == 2
    err = capsys.readouterr().err.split("\r")[-1].strip()  # after the progress bar
    assert err.startswith("mindzero: error: cannot reach OpenAI-compatible endpoint") and "after 2 attempts" in err
    assert len(openai_server.requests) == 2 and "\n" not in err


def test_cli_malformed_answer_is_one_line(openai_server: FakeOpenAIServer, tmp_path, capsys) -> None:
    openai_server.reply = {"choices": "nope"}
    argv = ["gridworld", "assist", "--reasoner", "llm", "--model", f"openai:{openai_server.url}#fake-model"]
    assert main([*argv, "--episodes", "1", "--seeds", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.split("\r")[-1].strip()  # after the progress bar
    assert err.startswith(f"mindzero: error: endpoint {openai_server.url}/") and "\n" not in err
    assert not list(tmp_path.iterdir())


def test_a_served_model_is_a_zero_shot_reasoner_with_tokens_and_tflops_per_decision(
    openai_server: FakeOpenAIServer, tmp_path
) -> None:
    """The paper's large-model rows: any OpenAI-compatible endpoint answers QA and assists, and
    --active-params turns its token counts into TFLOPs (Eq. 6: 2 x P x tokens)."""
    spec = ["--reasoner", "llm", "--model", f"openai:{openai_server.url}#fake-model", "--active-params", "2.2e10"]
    data = tmp_path / "qa-data"
    assert (
        main(
            [
                "gridworld",
                "qa-data",
                "--train-episodes",
                "1",
                "--test-episodes",
                "3",
                "--images",
                "false",
                "--out",
                str(data),
            ]
        )
        == 0
    )
    runs = {
        "qa": ["gridworld", "qa-eval", "--data", str(data / "test.jsonl"), *spec],
        "assist": ["gridworld", "assist", *spec, "--episodes", "1", "--seeds", "1", "--max-steps", "4"],
    }
    for name, argv in runs.items():
        assert main([*argv, "--out", str(tmp_path / name)]) == 0
        results = next((tmp_path / name).rglob("results.json"))
        metrics = json.loads(results.read_text())["metrics"]
        assert metrics["decisions"] > 0 and metrics["tokens_per_decision"] > 0
        assert metrics["tflops_per_decision"] == pytest.approx(2 * 2.2e10 * metrics["tokens_per_decision"] / 1e12)
    assert all(body["model"] == "fake-model" for _, body in openai_server.requests)
