"""Household play through the JSON API: a played episode is the benchmark's, the buttons are exactly
the valid actions, impossible actions are refused with the reason at no tick, the state shows what
the person sees (and the goal's progress), and no action name causes a server error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindzero.cli import main
from mindzero.commands.serve import ServeConfig, serve_settings
from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.envs.household.episodes import world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHumanParams
from mindzero.envs.household.world import HUMAN
from mindzero.tasks.assist import AssistSettings, run_episode
from mindzero.web.games import PlaySession
from mindzero.web.household import HouseholdView

VIEW = HouseholdView()
EPISODES = {"split": "test", "episodes": 2, "episode_seed": 0}


def test_info_and_household_defaults(client_for) -> None:
    info = client_for(domain="household", episodes=2).get("/api/info").json()
    assert info["domain"] == "household" and info["reasoners"] == ["solo", "smc", "oracle", "none"]
    assert info["episodes"] == 4 and info["max_steps"] == 250 and "putin" in info["actions"]
    assert serve_settings(ServeConfig(domain="household", runs=None)).human == HOUSEHOLD_HUMAN
    # a flag changed from its default is kept; the others take Household's defaults
    changed = serve_settings(ServeConfig(domain="household", runs=None, human=HumanParams(epsilon=0.2)))
    assert changed.human == HouseholdHumanParams(epsilon=0.2)


@pytest.mark.parametrize("name", ["oracle", "smc"])
def test_a_played_household_episode_is_the_benchmark_episode(name: str) -> None:
    """The simulated human's actions, sent by name through a play session, give the benchmark's
    helped run tick for tick; at every tick the buttons are exactly the valid actions."""
    domain = get_domain("household")
    episode = VIEW.episodes(EPISODES)[1]
    world, seed = world_of(episode.apartment), 1
    run = AssistSettings(max_steps=250, human=HOUSEHOLD_HUMAN, calibrate=False)
    expected = run_episode(domain, episode, domain.reasoner(name, seed, HOUSEHOLD_HUMAN), seed, run)
    alone = run_episode(domain, episode, None, seed, run)
    assert expected.success and expected.ticks < alone.ticks  # the helper's help shows in this episode
    play = PlaySession(VIEW, domain, episode, HOUSEHOLD_HUMAN, domain.reasoner(name, seed, HOUSEHOLD_HUMAN), seed, 250)
    human_rng = np.random.default_rng([seed, 0])
    while not play.done:
        buttons = [c["action"] for c in play.snapshot()["actions"]]
        assert {VIEW.action(episode, play.state, b) for b in buttons} == set(world.valid_actions(play.state, HUMAN))
        action = play.world.human_action(play.state, human_rng)
        assert VIEW.action_name(episode, action) in buttons
        play.act(VIEW.action_name(episode, action))
    assert (play.ticks, play.success) == (expected.ticks, expected.success)
    assert play.snapshot()["state"]["progress"]["satisfied"] == play.snapshot()["state"]["progress"]["needed"]


def test_the_api_plays_the_same_episode(client_for) -> None:
    """Through HTTP, tick for tick the snapshots equal a play session's fed the same actions."""
    client = client_for(domain="household", episodes=2, reasoner=["oracle"])
    snap = client.post("/api/play", json={"reasoner": "oracle", "seed": 1, "episode": 1}).json()
    domain = get_domain("household")
    episode = VIEW.episodes(EPISODES)[1]
    mirror = PlaySession(VIEW, domain, episode, HOUSEHOLD_HUMAN, domain.reasoner("oracle", 1, HOUSEHOLD_HUMAN), 1, 250)
    human_rng = np.random.default_rng([1, 0])
    while not snap["done"]:
        name = VIEW.action_name(episode, mirror.world.human_action(mirror.state, human_rng))
        mirror.act(name)
        snap = client.post(f"/api/play/{snap['session']}/act", json={"action": name}).json()
        assert {k: v for k, v in snap.items() if k not in ("session", "study")} == mirror.snapshot()
    assert snap["success"] and snap["t"] == 30 and snap["posterior"]["bars"][0]["true"]


@pytest.fixture
def session(client_for):
    """Episode 0 (apt5): 3 salmon into the fridge, 2 already inside; the person at the kitchen's centre."""
    client = client_for(domain="household", episodes=2)
    snap = client.post("/api/play", json={"reasoner": "smc", "seed": 4, "episode": 0}).json()
    assert snap["goal"]["text"] == "Put 3 salmon inside the fridge." and snap["state"]["human"]["near"] is None
    return client, snap


@pytest.mark.parametrize(
    ("action", "status", "message"),
    [
        ("fly", 400, "unknown action 'fly'"),
        ("grab", 400, "unknown action 'grab'"),
        ("walk attic", 400, "'attic' in 'walk attic' is no room or furniture"),
        ("grab o999", 400, "'o999' in 'grab o999' is no object"),
        ("open f01", 400, "'f01' in 'open f01' is no furniture"),
        ("grab f1", 400, "is no object"),
        ("walk kitchen", 409, "you are already at the kitchen"),
        ("open f7", 409, "you are not at the fridge: walk to it first"),
        ("putin o0 f7", 409, "you are not holding the plate 1"),
        ("grab o20", 409, "the salmon 3 is not within your reach here"),
    ],
)
def test_impossible_actions_are_refused_at_no_tick(session, action: str, status: int, message: str) -> None:
    client, snap = session
    response = client.post(f"/api/play/{snap['session']}/act", json={"action": action})
    assert response.status_code == status and message in response.json()["error"], response.text
    after = client.get(f"/api/play/{snap['session']}").json()
    assert after["t"] == 0 and after["state"] == snap["state"]


def test_what_the_person_sees_and_the_goal_progress(session) -> None:
    """Objects inside the closed fridge are not shown until it is opened; refusals name the reason;
    progress counts the salmon inside the fridge."""
    client, snap = session
    sid = snap["session"]

    def act(action: str) -> dict:
        response = client.post(f"/api/play/{sid}/act", json={"action": action})
        assert response.status_code == 200, response.text
        return response.json()

    state = snap["state"]
    assert state["progress"] == {
        "predicates": [{"text": "inside(salmon, fridge)", "placed": 2, "needed": 3}],
        "satisfied": 2,
        "needed": 3,
    }
    fridge = next(f for f in state["furniture"] if f["name"] == "fridge")
    assert fridge["in_view"] and fridge["open"] is False
    assert not [o for o in state["objects"] if o["place"] == fridge["id"]]  # closed: nothing inside is seen
    assert all(f["open"] is None for f in state["furniture"] if not f["in_view"])
    while snap["state"]["human"]["near"] != fridge["id"]:
        snap = act(f"walk {fridge['id']}")
    assert {"open", "switchon"} <= {c["action"].split()[0] for c in snap["actions"]}
    response = client.post(f"/api/play/{sid}/act", json={"action": f"close {fridge['id']}"})
    assert response.status_code == 409 and "the fridge is already closed" in response.json()["error"]
    snap = act(f"open {fridge['id']}")
    response = client.post(f"/api/play/{sid}/act", json={"action": f"switchon {fridge['id']}"})
    assert response.status_code == 409 and "close the fridge first" in response.json()["error"]
    inside = [o for o in snap["state"]["objects"] if o["place"] == fridge["id"]]
    assert [o["class"] for o in inside] == ["salmon", "salmon"] and {o["relation"] for o in inside} == {"inside"}
    snap = act(f"grab {inside[0]['id']}")
    assert snap["state"]["human"]["holding"] == [inside[0]["name"]] and snap["state"]["progress"]["satisfied"] == 1
    held = next(o for o in snap["state"]["objects"] if o["id"] == inside[0]["id"])
    assert held["relation"] == "held" and held["held_by"] == "human"
    snap = act(f"grab {inside[1]['id']}")
    t = snap["t"]
    others = [o["id"] for o in snap["state"]["objects"] if o["place"] == fridge["id"]]
    if others:  # the helper may have brought the third salmon meanwhile
        response = client.post(f"/api/play/{sid}/act", json={"action": f"grab {others[0]}"})
        assert response.status_code == 409 and "both your hands are full" in response.json()["error"]
    snap = act(f"putin {inside[0]['id']} {fridge['id']}")
    assert snap["t"] == t + 1 and snap["state"]["progress"]["satisfied"] >= 1


ACTION_TEXT = st.text(max_size=20) | st.builds(
    lambda verb, args: " ".join([verb, *args]),
    st.sampled_from(["noop", "walk", "open", "close", "grab", "putback", "putin", "switchon", "jump"]),
    st.lists(
        st.sampled_from(["f0", "f7", "f16", "f17", "o0", "o28", "o29", "kitchen", "f-1", "o", "", "f٣"]), max_size=3
    ),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=ACTION_TEXT)
def test_no_action_name_causes_a_server_error(session, action: str) -> None:
    client, snap = session
    response = client.post(f"/api/play/{snap['session']}/act", json={"action": action})
    assert response.status_code in (200, 400, 409), response.text
    assert response.status_code == 200 or response.json()["error"]


def test_household_serve_flags_are_checked(capsys) -> None:
    assert main(["serve", "--domain", "household", "--reasoner", "smc", "--human-epsilon", "0"]) == 2
    assert "smc inference needs --human-epsilon > 0" in capsys.readouterr().err
    assert main(["serve", "--domain", "household", "--study-logs", "L", "--study-tasks", "50"]) == 2
    assert "--study-tasks 50 exceeds --episodes 20 x 2 apartments" in capsys.readouterr().err


def test_household_study_task(client_for, tmp_path: Path) -> None:
    client = client_for(domain="household", episodes=1, study_logs=str(tmp_path), study_tasks=2,
                        study_conditions=["solo", "oracle"])  # fmt: skip
    snap = client.post("/api/study", json={"participant": "p1"}).json()
    assert snap["domain"] == "household" and snap["posterior"] is None and snap["study"]["steps"] == 4
    assert client.post(f"/api/play/{snap['session']}/act", json={"action": "noop"}).json()["t"] == 1


def test_viewer_replays_a_household_run(client_for, tmp_path: Path) -> None:
    assert main(["household", "assist", "--reasoner", "oracle", "--episodes", "1", "--seeds", "10",
                 "--out", str(tmp_path / "hh")]) == 0  # fmt: skip
    client = client_for(runs=str(tmp_path))
    recorded = [json.loads(line) for line in (tmp_path / "hh" / "samples.jsonl").read_text().splitlines()]
    replay = client.get("/api/replay", params={"path": "hh/samples.jsonl", "row": 1}).json()
    assert replay["domain"] == "household" and replay["mismatch"] is None
    assert len(replay["frames"]) == recorded[1]["t_helped"] + 1 and replay["frames"][0]["state"]["progress"]
