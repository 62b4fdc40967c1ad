"""The reference protocol (the published evaluation's generator), episodes files, and the random helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.domains.gridworld.protocol import (
    MIN_PHASE_ACTIONS,
    first_pick_put,
    passes_reference_filter,
    reference_draw,
)
from mindzero.envs.gridworld.episodes import (
    REFERENCE_COLORS,
    REFERENCE_SEPARATION,
    REFERENCE_WALLS,
    load_episodes,
    reference_layout_id,
)
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, Observation, step
from mindzero.tasks.assist import AssistSettings, run_assist

DOMAIN = get_domain("gridworld")
SHARED = Path(__file__).resolve().parents[3] / "shared/data/gw_reference_episodes/episodes_seed0.jsonl"
needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="the shared reference episodes are not here")


def test_reference_episodes_follow_the_reference_generator():
    runs = list(episodes(EpisodeConfig(episodes=41, episode_seed=3, protocol="reference")))
    assert [e.to_dict() for e in runs] == [e.to_dict() for e in episodes(EpisodeConfig(episodes=41, episode_seed=3))]
    assert [reference_layout_id(k) for k in (0, 13, 14, 23, 24, 33, 34, 38, 39)] == [0, 0, 1, 10, 11, 20, 21, 25, 0]
    for k, ep in enumerate(runs):
        lay = ep.layout
        assert len(lay.obstacles) == REFERENCE_WALLS[reference_layout_id(k)] and lay.is_connected
        assert len({o.shape for o in lay.objects}) == 1 and sorted(o.color for o in lay.objects) == sorted(
            REFERENCE_COLORS
        )
        h = lay.index(lay.human_start)
        a, b = (lay.index(lay.object_cells[g]) for g in ep.goal)
        assert min(lay.distance[a, b], lay.distance[h, a], lay.distance[h, b]) > REFERENCE_SEPARATION
    assert sum(not ep.layout.obstacles for ep in runs[:40]) == 15
    walls = {reference_layout_id(k): runs[k].layout.obstacles for k in range(40)}
    assert runs[40].layout.obstacles == walls[reference_layout_id(40)]  # fixed layouts, as the reference's files
    assert runs[1].to_dict() == reference_draw(1, 3).episode.to_dict()
    assert runs[1].to_dict() != reference_draw(1, 4).episode.to_dict()


def test_the_generators_rollout_passes_the_filter_and_a_too_short_one_fails():
    draw = reference_draw(5, 0)
    pick, put = first_pick_put(draw.states)
    assert pick >= MIN_PHASE_ACTIONS and put - pick >= MIN_PHASE_ACTIONS
    assert draw.actions[pick] == Action.PICK and draw.actions[put] == Action.PUT
    assert passes_reference_filter(draw.episode, draw.states, draw.actions)
    cut = pick - MIN_PHASE_ACTIONS + 1  # start the human closer: fewer actions before the pick
    states = draw.states[cut:]
    shifted = type(draw.episode)(draw.episode.layout, draw.episode.goal)
    assert first_pick_put(states) == (pick - cut, put - cut)
    assert not passes_reference_filter(shifted, states, draw.actions[cut:])


@needs_shared
def test_our_filter_keeps_the_reference_episodes_on_their_own_trajectories():
    """The reference kept every shared episode by its filter on the recorded trajectory; ours agrees
    but for a few whose "next to which" answer is just under 0.3 by our inference (3 of 200: our
    posterior differs from the reference's at the margin, e.g. it breaks distance ties by index)."""
    rows = [json.loads(line) for line in SHARED.read_text().splitlines()]
    kept = []
    for ep, row in zip(load_episodes(SHARED), rows):
        actions = [ACTION_NAMES.index(a) for a in row["human_actions"]]
        states = [ep.initial_state()]
        for a in actions:
            states.append(step(ep.layout, states[-1], a, Action.STAY))
        assert first_pick_put(states) == (row["first_pick_action_index"], row["first_put_action_index"])
        kept.append(passes_reference_filter(ep, states, actions))
    assert len(kept) == 200 and np.mean(kept) >= 0.97


def test_random_redraws_its_goal_each_update_and_random_episode_keeps_it():
    ep = episodes(EpisodeConfig(episodes=1))[0]
    obs = Observation(ep.initial_state(), Action.STAY)
    for name, changes in (("random", True), ("random-episode", False)):
        reasoner = DOMAIN.reasoner(name, 7, AssistSettings().human)
        goals = [reasoner.reset(ep).map()] + [reasoner.update(obs).map() for _ in range(20)]
        assert (len(set(goals)) > 5) == changes
        again = DOMAIN.reasoner(name, 7, AssistSettings().human)
        assert [again.reset(ep).map()] + [again.update(obs).map() for _ in range(20)] == goals


def test_the_papers_random_goal_helper_gains_nothing_where_the_oracle_gains_much():
    runs = episodes(EpisodeConfig(episodes=60, episode_seed=2))
    settings = AssistSettings(seeds=[10], calibrate=False)
    speed = {}
    for name in ("random", "oracle"):
        metrics, _, _ = run_assist(
            DOMAIN, runs, settings, lambda s, n=name: DOMAIN.reasoner(n, s, settings.human), progress=False
        )
        speed[name] = metrics["speedup_mean"]
    assert abs(speed["random"]) < 0.015
    assert speed["oracle"] > 0.4


def write_lines(tmp_path: Path, rows: list) -> Path:
    path = tmp_path / "episodes.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


GOOD = {"layout_text": "H....\n.....\n..0..\n.....\nP...1\n\n0: red circle\n1: blue circle\n", "goal": [1, 0]}


def test_an_episodes_file_runs_like_generated_episodes(tmp_path):
    path = write_lines(
        tmp_path,
        [
            GOOD,
            {
                **GOOD,
                "episode_id": 7,
                "grid_size": [5, 5],
                "goal_labels": ["red circle", "blue circle"],
                "goal": [0, 1],
            },
        ],
    )
    loaded = load_episodes(path, size=5)
    assert [e.goal for e in loaded] == [(0, 1), (0, 1)] and [e.episode_id for e in loaded] == ["episodes-1", "7"]
    runs = episodes(EpisodeConfig(episodes=2, episodes_file=str(path), size=5))
    assert [r.to_dict() for r in runs] == [e.to_dict() for e in loaded]
    with pytest.raises(UserError, match="has 2 episodes; --episodes asks for 3"):
        episodes(EpisodeConfig(episodes=3, episodes_file=str(path), size=5))
    out = tmp_path / "out"
    argv = ["gridworld", "assist", "--episodes-file", str(path), "--episodes", "2", "--size", "5"]
    assert main([*argv, "--seeds", "1", "--reasoner", "none,random", "--out", str(out)]) == 0
    samples = (out / "random" / "samples.jsonl").read_text().splitlines()
    assert {json.loads(s)["episode_id"] for s in samples} == {"episodes-1", "7"}


WALLED = "H.#..\n..#..\n###..\n.....\nP.0.1\n\n0: red circle\n1: blue circle\n"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ({**GOOD, "goal": [0, 8]}, "episodes.jsonl:2: goal [0, 8] names object 8; the layout has objects 0..1"),
        ({**GOOD, "layout_text": WALLED}, "episodes.jsonl:2: goal [1, 0] is unreachable"),
        (
            {**GOOD, "layout_text": "H...\n..0.\nP..1\n\n0: red circle\n1: blue circle\n"},
            "episodes.jsonl:2: layout is 4x3; this run expects 5x5",
        ),
        (json.dumps(GOOD)[:40], "episodes.jsonl:2: not valid JSON"),
        ({**GOOD, "goal": [0, 0]}, "episodes.jsonl:2: goal must be two different object indices"),
        ({**GOOD, "goal_labels": ["red circle", "green circle"]}, "episodes.jsonl:2: goal_labels"),
        (
            {**GOOD, "layout_text": "H..\n.0.\n\n0: red circle\n"},
            "episodes.jsonl:2: layout_text: line 1, column 1: grid needs one 'H'",
        ),
        ({"goal": [0, 1]}, "episodes.jsonl:2: missing field 'layout_text'"),
    ],
)
def test_a_bad_episodes_file_is_a_one_line_error_naming_file_and_line(line, fragment, tmp_path, capsys):
    path = write_lines(tmp_path, [GOOD, line])
    argv = ["gridworld", "assist", "--episodes-file", str(path), "--size", "5", "--episodes", "1"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and fragment in err[0], err


def test_reproduce_runs_the_reference_protocol_and_passes_an_episodes_file(tmp_path, capsys):
    path = write_lines(tmp_path, [GOOD])
    assert main(["reproduce", "--dry-run", "--out", str(tmp_path / "r"), "--episodes-file", str(path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if " gridworld assist " in line]
    assert len(lines) == 2 and all(
        "--protocol reference" in line and f"--episodes-file {path}" in line for line in lines
    )
    assert main(["reproduce", "--dry-run", "--out", str(tmp_path / "r")]) == 0
    assert "--episodes-file" not in capsys.readouterr().out


def test_qa_data_reads_train_from_the_first_half_and_test_from_the_second(tmp_path):
    runs = episodes(EpisodeConfig(episodes=8, episode_seed=1))
    rows = [
        {"layout_text": ep.layout.to_text(), "goal": list(ep.goal), "episode_id": f"f{k}"} for k, ep in enumerate(runs)
    ]
    path = write_lines(tmp_path, rows)
    out = tmp_path / "qa"
    argv = ["gridworld", "qa-data", "--episodes-file", str(path), "--train-episodes", "2", "--test-episodes", "2"]
    assert main([*argv, "--images", "false", "--out", str(out)]) == 0
    train, test = ([json.loads(x) for x in (out / f"{n}.jsonl").read_text().splitlines()] for n in ("train", "test"))
    assert {r["episode_id"] for r in train} <= {"f0", "f1", "f2", "f3"} and len(train) == 6
    assert {r["episode_id"] for r in test} <= {"f4", "f5", "f6", "f7"} and {r["split"] for r in test} == {
        "unseen_layout"
    }
    assert main([*argv[:-1], "5", "--images", "false", "--out", str(tmp_path / "qa2")]) == 2
