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
    ReferenceHuman,
    first_pick_put,
    passes_reference_filter,
    reference_draw,
    reference_posteriors,
    reference_roles,
)
from mindzero.envs.gridworld.episodes import (
    REFERENCE_COLORS,
    REFERENCE_SEPARATION,
    REFERENCE_WALLS,
    Episode,
    far_pairs,
    load_episodes,
    reference_layout,
    reference_layout_id,
    rollout_alone,
)
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.layout import parse_layout
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, Observation, WorldState, goal_achieved, step
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


def replay_row(ep: Episode, row: dict) -> tuple[list, list[int]]:
    actions = [ACTION_NAMES.index(a) for a in row["human_actions"]]
    states = [ep.initial_state()]
    for a in actions:
        states.append(step(ep.layout, states[-1], a, Action.STAY))
    return states, actions


def goal_distance(ep: Episode) -> int:
    lay = ep.layout
    a, b = (lay.index(lay.object_cells[g]) for g in ep.goal)
    return int(lay.distance[a, b])


@needs_shared
def test_our_filter_keeps_the_reference_episodes_on_their_own_trajectories():
    """The reference kept every shared episode by its filter on the recorded trajectory; so does our
    emulation of that filter (the reference's human as the likelihood, forgetting at pauses)."""
    rows = [json.loads(line) for line in SHARED.read_text().splitlines()]
    kept = []
    for ep, row in zip(load_episodes(SHARED), rows):
        states, actions = replay_row(ep, row)
        assert first_pick_put(states) == (row["first_pick_action_index"], row["first_put_action_index"])
        kept.append(passes_reference_filter(ep, states, actions))
    assert len(kept) == 200 and all(kept)


@needs_shared
def test_the_reference_human_explains_every_recorded_action_where_ours_does_not():
    """Each action the reference human took in the shared episodes is one of its best moves under
    :class:`ReferenceHuman` (p ≥ 0.25: ties of up to 4 moves). Our evaluation human (ε 0) gives
    some of them almost nothing: at equal distances it heads for the lower-indexed goal object."""
    rows = [json.loads(line) for line in SHARED.read_text().splitlines()]
    ours_low = 0
    for ep, row in zip(load_episodes(SHARED), rows):
        ref, our = ReferenceHuman.from_params(ep.layout), HumanModel(ep.layout, epsilon=0.0)
        states, actions = replay_row(ep, row)
        for s, a in zip(states, actions):
            assert ref.action_probs(s, np.array([ep.goal]))[0, a] >= 0.25
            ours_low += our.action_probs(s, np.array([ep.goal]))[0, a] < 0.01
    assert ours_low >= 20


TIE = "...#...\n0..H..1\nP......\n\n0: red circle\n1: blue circle\n"


def test_the_reference_human_heads_for_either_object_at_a_tie_and_never_chooses_to_stay():
    lay = parse_layout(TIE)
    state = WorldState.initial(lay)
    ref = ReferenceHuman.from_params(lay).action_probs(state, np.array([(0, 1)]))[0]
    assert ref[Action.LEFT] == pytest.approx(0.5, abs=1e-4) and ref[Action.RIGHT] == pytest.approx(0.5, abs=1e-4)
    assert ref[Action.STAY] == 0.0 and ref[Action.UP] < 1e-12  # up walks into the wall
    ours = HumanModel(lay, epsilon=0.0).action_probs(state, np.array([(0, 1)]))[0]
    assert ours[Action.LEFT] > 0.99  # the evaluation human: the lower-indexed object
    # Carrying object 0 after a move: the human pauses, but the reference's inference scores the
    # pause as impossible under every goal (it never sees the pause).
    carrying = WorldState(state.human, state.helper, (state.human,) + state.objects[1:], 0, -1, True, 5)
    model = ReferenceHuman.from_params(lay)
    assert model.action_probs(carrying, np.array([(0, 1)]))[0, Action.STAY] == 1.0
    assert model.action_probs(carrying, np.array([(0, 1)]), pause=False)[0, Action.STAY] == 0.0
    assert model.action_probs(carrying, np.array([(0, 1)]), pause=False)[0, Action.RIGHT] > 0.99


def test_the_filters_inference_forgets_at_a_pause_so_goal_objects_lie_an_even_distance_apart():
    """The reference's inference gives a pause likelihood 0 under every goal and restarts from the
    uniform posterior. Midway through the carry it has then seen one move if the carry has an odd
    number of moves, none if even: only goals whose objects are an even distance apart pass."""
    draw = reference_draw(3, 0)
    pick, put = first_pick_put(draw.states)
    pause = pick + 2
    assert draw.actions[pause] == Action.STAY
    post = reference_posteriors(draw.episode, draw.states, draw.actions, (pause, pause + 1))
    assert post[pause].std() > 0.01 and np.allclose(post[pause + 1], 1 / 28)
    assert all(goal_distance(reference_draw(k, 1).episode) % 2 == 0 for k in range(12))
    rng = np.random.default_rng(5)
    passed = {0: 0, 1: 0}
    tried = {0: 0, 1: 0}
    while min(tried.values()) < 25:
        lay = reference_layout(rng, 0)
        pairs = far_pairs(lay)
        if not pairs:
            continue
        ep = Episode(lay, pairs[int(rng.integers(len(pairs)))])
        states, actions = rollout_alone(ep, ReferenceHuman.from_params(lay), rng, 49)
        if goal_achieved(states[-1], ep.goal, lay):
            parity = goal_distance(ep) % 2
            tried[parity] += 1
            passed[parity] += passes_reference_filter(ep, states, actions)
    assert passed[1] == 0 and passed[0] >= 5


@needs_shared
def test_the_reference_episodes_goal_objects_lie_an_even_distance_apart():
    assert all(goal_distance(ep) % 2 == 0 for ep in load_episodes(SHARED))


def test_the_filters_roles_split_evenly_when_both_objects_are_eight_or_more_moves_away():
    """The reference weighs goal (a, b)'s first object by exp(−d/0.01), which underflows to 0 beyond 7
    moves: with both objects 8 or more moves away the split is 0.5/0.5, else the nearer one first."""
    lay = parse_layout("0" + "." * 15 + "1\nH" + "." * 15 + "P\n\n0: red circle\n1: blue circle\n")
    start = WorldState.initial(lay)
    probs = np.array([1.0])  # the one goal pair (0, 1)

    def roles_at(x: int) -> tuple[list, list]:
        pick, put = reference_roles(probs, WorldState(lay.index((x, 0)), start.helper, start.objects), lay)
        return pick.tolist(), put.tolist()

    assert roles_at(0) == ([1.0, 0.0], [0.0, 1.0])  # 1 and 17 moves
    assert roles_at(6) == ([1.0, 0.0], [0.0, 1.0])  # 7 and 11
    assert roles_at(7) == ([0.5, 0.5], [0.5, 0.5])  # 8 and 10: both weights underflow
    assert roles_at(9) == ([0.5, 0.5], [0.5, 0.5])  # 10 and 8
    assert roles_at(10) == ([0.0, 1.0], [1.0, 0.0])  # 11 and 7
    carrying = WorldState(start.human, start.helper, (start.human, start.objects[1]), 0)
    assert reference_roles(probs, carrying, lay)[1].tolist() == [0.0, 1.0]


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
