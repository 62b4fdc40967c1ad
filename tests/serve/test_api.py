"""The JSON API through Starlette's TestClient: play semantics equal the benchmark's, sessions are
isolated and bounded, every bad input is a clear 4xx (never a 500), the viewer's replays match
the recorded runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindzero.cli import main
from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.tasks.assist import AssistSettings, run_episode
from mindzero.web.games import VIEWS, PlaySession
from mindzero.web.sessions import SessionStore, StoreFull

ACTIONS = ("up", "down", "left", "right", "stay", "pick", "put")


def test_info_offers_the_configured_helpers(client_for) -> None:
    info = client_for(reasoner=["exact", "oracle"]).get("/api/info").json()
    assert info["reasoners"] == ["solo", "exact", "oracle"] and tuple(info["actions"]) == ACTIONS
    assert info["episodes"] == 20 and info["study"] is False and info["viewer"] is False


@pytest.mark.parametrize("name", ["exact", "oracle", "random"])
def test_a_played_episode_is_the_benchmark_episode(name: str) -> None:
    """The simulated human's actions fed through a play session give the benchmark's helped run
    tick for tick: the browser's helper is the one `gridworld assist` measures."""
    domain, view = get_domain("gridworld"), VIEWS["gridworld"]
    episode = view.episodes({"episodes": 3, "episode_seed": 0})[2]
    human, seed = HumanParams(), 10
    expected = run_episode(domain, episode, domain.reasoner(name, seed, human), seed, AssistSettings(max_steps=50))
    play = PlaySession(view, domain, episode, human, domain.reasoner(name, seed, human), seed, max_steps=50)
    human_rng = np.random.default_rng([seed, 0])
    while not play.done:
        play.act(view.action_name(episode, play.world.human_action(play.state, human_rng)))
    assert (play.ticks, play.success) == (expected.ticks, expected.success)


def play(client, body: dict, actions: list[str]) -> list[dict]:
    snap = client.post("/api/play", json=body).json()
    out = [snap]
    for a in actions:
        out.append(client.post(f"/api/play/{snap['session']}/act", json={"action": a}).json())
    return out


def test_same_seed_same_episode_and_sessions_are_isolated(client_for) -> None:
    client = client_for()
    moves = ["up", "left", "left", "down", "right", "stay", "up", "up"]
    a = play(client, {"reasoner": "exact", "seed": 3, "episode": 1}, moves)
    b = play(client, {"reasoner": "exact", "seed": 3, "episode": 1}, moves[:4])
    assert a[0]["session"] != b[0]["session"]
    for x, y in zip(a, b):  # b's session saw only its own 4 moves; both agree tick for tick
        assert {k: v for k, v in x.items() if k != "session"} == {k: v for k, v in y.items() if k != "session"}
    again = client.get(f"/api/play/{b[0]['session']}").json()
    assert again["t"] == 4 and again["state"] == b[-1]["state"]
    assert a[-1]["t"] == 8 and a[-1]["posterior"]["bars"][0]["p"] > 1 / 28


def test_solo_has_no_helper_and_hidden_posterior_is_never_sent(client_for) -> None:
    solo = play(client_for(), {"reasoner": "solo", "seed": 1}, ["up", "right", "stay"])
    assert solo[-1]["condition"] == "solo" and solo[-1]["posterior"] is None
    assert {s["helper_action"] for s in solo[1:]} == {"stay"}
    blind = play(client_for(hide_posterior=True), {"reasoner": "exact", "seed": 1}, ["up", "right"])
    assert blind[-1]["condition"] == "exact" and all(s["posterior"] is None for s in blind)
    assert client_for(hide_posterior=True).get("/api/info").json()["show_posterior"] is False


def test_episode_ends_at_the_goal_or_the_tick_limit(client_for) -> None:
    client = client_for(max_steps=3)
    snaps = play(client, {"reasoner": "exact", "seed": 2}, ["stay"] * 3)
    assert snaps[-1]["done"] and not snaps[-1]["success"] and snaps[-1]["t"] == 3
    late = client.post(f"/api/play/{snaps[0]['session']}/act", json={"action": "up"})
    assert late.status_code == 409 and "over" in late.json()["error"]


@pytest.fixture
def session(client_for):
    client = client_for()
    return client, client.post("/api/play", json={"reasoner": "exact", "seed": 4, "episode": 0}).json()


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "message"),
    [
        ("POST", "/api/play", b"{not json", 400, "not valid JSON"),
        ("POST", "/api/play", b"[1, 2]", 400, "must be a JSON object"),
        ("POST", "/api/play", b"\xff\xfe", 400, "not valid JSON"),
        ("POST", "/api/play", {"reasoner": "gpt"}, 400, "reasoner must be one of"),
        ("POST", "/api/play", {"episode": 20}, 400, "'episode' must be an integer in [0, 19]"),
        ("POST", "/api/play", {"seed": -1}, 400, "'seed' must be an integer"),
        ("POST", "/api/play", {"seed": True}, 400, "'seed' must be an integer"),
        ("POST", "/api/play", {"seed": 1.5}, 400, "'seed' must be an integer"),
        ("POST", "/api/play", b"x" * 20000, 413, "over 16384 bytes"),
        ("POST", "ACT", {}, 400, "'action' must be a string"),
        ("POST", "ACT", {"action": 3}, 400, "'action' must be a string"),
        ("POST", "ACT", {"action": "jump"}, 400, "unknown action 'jump'"),
        ("POST", "ACT", {"action": "pick"}, 409, "no object here"),
        ("POST", "ACT", {"action": "put"}, 409, "hold nothing"),
        ("POST", "/api/play/nope/act", {"action": "up"}, 404, "no such session"),
        ("GET", "/api/play/nope", None, 404, "no such session"),
        ("GET", "/api/nowhere", None, 404, "Not Found"),
        ("PUT", "/api/play", None, 405, "Method Not Allowed"),
        ("POST", "/api/study", {"participant": "p1"}, 404, "study mode is off"),
        ("GET", "/api/runs", None, 404, "the viewer is off"),
    ],
)
def test_bad_requests_get_a_clear_4xx(session, method, url, body, status, message) -> None:
    client, snap = session
    url = url.replace("ACT", f"/api/play/{snap['session']}/act")
    raw = {"content": body, "headers": {"content-type": "application/json"}}
    kwargs = raw if isinstance(body, bytes) else {"json": body} if body is not None else {}
    response = client.request(method, url, **kwargs)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]
    after = client.get(f"/api/play/{snap['session']}").json()
    assert after["t"] == 0 and after["state"] == snap["state"]  # a refused request changes nothing


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON | st.dictionaries(st.sampled_from(["action", "reasoner", "seed", "episode"]), JSON, max_size=4))
def test_no_json_body_causes_a_server_error(session, body) -> None:
    client, snap = session
    for url in ("/api/play", f"/api/play/{snap['session']}/act"):
        response = client.post(url, content=json.dumps(body), headers=JSON_TYPE)
        assert response.status_code < 500, response.text
        assert response.status_code == 200 or response.json()["error"]


JSON_TYPE = {"content-type": "application/json"}


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    raw=st.binary(max_size=300)
    | st.text(alphabet="[]{}\"\\:,0123456789.-eE truefalsn", max_size=300).map(str.encode)
    | st.integers(1, 6000).map(lambda n: b"[" * n),
    kind=st.sampled_from(["application/json", "text/plain", "", "application/json; charset=utf-8"]),
)
def test_no_malformed_body_causes_a_server_error(session, raw: bytes, kind: str) -> None:
    client, snap = session
    headers = {"content-type": kind} if kind else {}
    for url in ("/api/play", f"/api/play/{snap['session']}/act"):
        response = client.post(url, content=raw, headers=headers)
        assert response.status_code < 500, response.text
        assert response.status_code == 200 or response.json()["error"]


def test_bodies_are_checked_before_they_are_parsed(session) -> None:
    client, _ = session
    deep = client.post("/api/play", content=b"[" * 5000, headers=JSON_TYPE)
    assert deep.status_code == 400 and "nests deeper" in deep.json()["error"]
    assert client.post("/api/play", content=b"", headers=JSON_TYPE).status_code == 400
    plain = client.post("/api/play", content=b"{}", headers={"content-type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    assert client.post("/api/play", content=b'{"seed": "[[[["}', headers=JSON_TYPE).status_code == 400


@pytest.fixture
def viewer(client_for, runs: Path):
    return client_for(runs=str(runs))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.text(max_size=300) | st.just("x" * 5000 + "/samples.jsonl"), row=st.text(max_size=25))
def test_no_viewer_query_causes_a_server_error(viewer, path: str, row: str) -> None:
    client = viewer
    for url in ("/api/replay", "/api/runs/episodes"):
        response = client.get(url, params={"path": path, "row": row})
        assert response.status_code < 500 and (response.status_code == 200 or response.json()["error"])


@pytest.fixture
def study(client_for, tmp_path: Path):
    return client_for(study_logs=str(tmp_path / "logs"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON | st.dictionaries(st.just("participant"), JSON | st.text(max_size=80), max_size=1))
def test_no_study_request_causes_a_server_error(study, body) -> None:
    client = study
    response = client.post("/api/study", content=json.dumps(body), headers=JSON_TYPE)
    assert response.status_code < 500 and (response.status_code == 200 or response.json()["error"])
    if response.status_code == 200:
        nxt = client.post(f"/api/study/{response.json()['session']}/next", content=json.dumps(body), headers=JSON_TYPE)
        assert nxt.status_code == 409 and "finish the current task" in nxt.json()["error"]


def test_store_is_bounded_and_sessions_expire() -> None:
    now = [0.0]
    store = SessionStore(capacity=2, ttl=60, clock=lambda: now[0])
    a, b = store.add("a"), store.add("b")
    with pytest.raises(StoreFull):
        store.add("c")
    now[0] = 30
    assert store.get(a) == "a"  # use restarts a's expiry
    now[0] = 70  # b unused for 70 s: expired; a used 40 s ago: alive
    c = store.add("c")
    assert len(store) == 2 and store.get(a) == "a" and store.get(c) == "c"
    with pytest.raises(KeyError):
        store.get(b)


def test_a_full_server_answers_503(client_for) -> None:
    client = client_for(max_sessions=2)
    for _ in range(2):
        assert client.post("/api/play", json={}).status_code == 200
    full = client.post("/api/play", json={})
    assert full.status_code == 503 and "maximum of 2 sessions" in full.json()["error"]


def test_viewer_lists_and_replays_a_run_exactly(client_for, runs: Path) -> None:
    client = client_for(runs=str(runs))
    listed = client.get("/api/runs").json()["runs"]
    assert listed == [{"path": "exact/samples.jsonl", "task": "gridworld/assist", "reasoner": "exact"}]
    episodes = client.get("/api/runs/episodes", params={"path": "exact/samples.jsonl"}).json()["episodes"]
    recorded = [json.loads(line) for line in (runs / "exact" / "samples.jsonl").read_text().splitlines()]
    assert [e["t_helped"] for e in episodes] == [r["t_helped"] for r in recorded]
    for row, sample in enumerate(recorded):
        replay = client.get("/api/replay", params={"path": "exact/samples.jsonl", "row": row}).json()
        assert replay["mismatch"] is None and replay["episode_id"] == sample["episode_id"]
        frames = replay["frames"]
        assert len(frames) == sample["t_helped"] + 1 and frames[-1]["human_action"] is None
        assert frames[0]["posterior"]["bars"][0]["p"] == pytest.approx(1 / 28)  # the prior, before any action
        truth = [b["p"] for b in frames[-1]["posterior"]["bars"] if b["true"]]
        assert truth and truth[0] > 1 / 28


def test_viewer_reports_a_replay_that_disagrees_with_the_record(client_for, runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "exact", tmp_path / "edited")
    path = tmp_path / "edited" / "samples.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["t_helped"] += 1
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    replay = client_for(runs=str(tmp_path)).get("/api/replay", params={"path": "edited/samples.jsonl", "row": 0})
    assert f"the run recorded {rows[0]['t_helped']}" in replay.json()["mismatch"]


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"path": "../exact/samples.jsonl", "row": 0}, 400, "not a samples.jsonl under the runs folder"),
        ({"path": "exact/results.json", "row": 0}, 400, "not a samples.jsonl"),
        ({"path": "other/samples.jsonl", "row": 0}, 404, "no run"),
        ({"path": "exact/samples.jsonl", "row": "x"}, 400, "'row' must be a non-negative integer"),
        ({"path": "exact/samples.jsonl", "row": 99}, 404, "has no row 99"),
        ({"row": 0}, 400, "missing query parameter 'path'"),
    ],
)
def test_viewer_bad_requests(client_for, runs: Path, params, status, message) -> None:
    response = client_for(runs=str(runs)).get("/api/replay", params=params)
    assert response.status_code == status and message in response.json()["error"]


def test_an_llm_run_needs_its_model_to_replay(client_for, runs: Path, tmp_path: Path) -> None:
    shutil.copytree(runs / "exact", tmp_path / "llm")
    results = json.loads((tmp_path / "llm" / "results.json").read_text())
    results["config"]["reasoner"] = "llm"
    (tmp_path / "llm" / "results.json").write_text(json.dumps(results))
    response = client_for(runs=str(tmp_path)).get("/api/replay", params={"path": "llm/samples.jsonl", "row": 0})
    assert response.status_code == 400 and "--model SPEC" in response.json()["error"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--port", "70000"], "--port must be in [0, 65535]"),
        (["--reasoner", "llm"], "--reasoner llm needs --model"),
        (["--reasoner", "exact", "--human-epsilon", "0"], "exact inference needs --human-epsilon > 0"),
        (["--study-logs", "L", "--study-conditions", "exact"], "needs solo and at least one helper"),
        (["--study-logs", "L", "--study-tasks", "30"], "--study-tasks 30 exceeds --episodes 20"),
    ],
)
def test_serve_flags_are_checked_before_starting(flags, message, capsys) -> None:
    assert main(["serve", *flags]) == 2
    assert message in capsys.readouterr().err


def walk_to(play: PlaySession, cell: int) -> None:
    """Move the player along a shortest path to layout cell ``cell``."""
    layout = play.episode.layout
    while play.state.human != cell:
        here = play.state.human
        move = min(range(1, 5), key=lambda m: layout.dist(int(layout.next_cell[here, m]), cell))
        play.act(ACTIONS[move - 1])


def test_an_action_exact_inference_cannot_explain_keeps_the_last_belief() -> None:
    """Carrying an object away and dropping it in the open has zero likelihood under every goal
    the pick left possible: the helper keeps its belief, says so, and the episode goes on."""
    domain, view = get_domain("gridworld"), VIEWS["gridworld"]
    episode = view.episodes({"episodes": 1})[0]
    human = HumanParams()
    play = PlaySession(view, domain, episode, human, domain.reasoner("exact", 0, human), 0, max_steps=100)
    k = next(k for k in range(len(episode.layout.objects)) if k not in episode.goal)
    walk_to(play, play.state.objects[k])
    play.act("pick")
    layout, objects = episode.layout, play.state.objects
    free = [c for c in range(layout.n_cells) if not layout.blocked[c] and layout.dist(play.state.human, c) < 100]
    away = next(c for c in free if min(layout.dist(c, o) for o in objects if o != objects[k]) >= 2)
    walk_to(play, away)
    before = play.posterior
    assert play.note is None and play.helper_failures == 0
    play.act("put")
    assert play.state.human_carry < 0 and play.helper_failures == 1  # the put happened
    assert play.posterior is before and "zero likelihood" in play.snapshot()["note"]
    play.act("stay")
    assert play.snapshot()["note"] is None and play.record()["helper_failures"] == 1


def test_serve_refuses_a_missing_runs_folder(capsys) -> None:
    from mindzero.cli import main

    assert main(["serve", "--runs", "/nonexistent/runs"]) == 2
    assert "no such folder" in capsys.readouterr().err
