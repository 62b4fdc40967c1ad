"""GridWorld in the browser: the player's actions, which of them are possible, and states as JSON.

Moves into walls are legal no-ops (as in the simulator, where they have non-zero likelihood);
``pick`` needs an object on the ground under the player and empty hands, ``put`` needs a held
object and a cell without one: otherwise the step would be a no-op that the simulated human never
takes, which exact inference could not explain, so it is refused instead (:class:`BadMove`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import fields

from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.envs.gridworld.episodes import Episode
from mindzero.envs.gridworld.render import HELPER_RGB, HUMAN_RGB, OBJECT_RGB
from mindzero.envs.gridworld.world import ACTION_NAMES, Action, WorldState
from mindzero.web.games import VIEWS, BadMove, UnknownAction

#: Keyboard order of the action buttons.
PLAYER_ACTIONS = ("up", "down", "left", "right", "stay", "pick", "put")


class GridWorldView:
    """:class:`~mindzero.web.games.GameView` of GridWorld."""

    domain = "gridworld"
    actions = PLAYER_ACTIONS

    def episodes(self, run_config: dict) -> Sequence[Episode]:
        """The run's episodes; a run recorded before protocols existed used the quick one."""
        names = [f.name for f in fields(EpisodeConfig)]
        return episodes(EpisodeConfig(**{"protocol": "quick", **{k: run_config[k] for k in names if k in run_config}}))

    def action(self, episode: Episode, state: WorldState, name: str) -> int:
        if name not in ACTION_NAMES:
            raise UnknownAction(f"unknown action {name!r}; use one of {', '.join(PLAYER_ACTIONS)}")
        action = Action[name.upper()]
        if action == Action.PICK:
            if state.human_carry >= 0:
                raise BadMove("you already hold an object: put it down first")
            if state.ground_object_at(state.human) < 0:
                raise BadMove("there is no object here to pick up")
        if action == Action.PUT:
            if state.human_carry < 0:
                raise BadMove("you hold nothing to put down")
            if state.ground_object_at(state.human) >= 0:
                raise BadMove("this cell already holds an object: put it down on an empty cell")
        return int(action)

    def action_name(self, episode: Episode, action: int) -> str:
        return ACTION_NAMES[action]

    def choices(self, episode: Episode, state: WorldState) -> list[dict]:
        """Every key, always (a move into a wall is a legal no-op)."""
        return [{"action": a, "label": a, "group": "keys"} for a in PLAYER_ACTIONS]

    def state_json(self, episode: Episode, state: WorldState) -> dict:
        layout = episode.layout
        holder = {state.human_carry: "human", state.helper_carry: "helper"}
        return {
            "width": layout.width,
            "height": layout.height,
            "obstacles": sorted(list(c) for c in layout.obstacles),
            "objects": [
                {
                    "label": o.label,
                    "color": o.color,
                    "shape": o.shape,
                    "rgb": list(OBJECT_RGB[o.color]),
                    "cell": list(layout.cell(state.objects[k])),
                    "held_by": holder.get(k),
                }
                for k, o in enumerate(layout.objects)
            ],
            "human": {"cell": list(layout.cell(state.human)), "rgb": list(HUMAN_RGB), "holding": state.human_carry},
            "helper": {"cell": list(layout.cell(state.helper)), "rgb": list(HELPER_RGB), "holding": state.helper_carry},
        }

    def goal_json(self, episode: Episode) -> dict:
        a, b = (episode.layout.objects[k].label for k in episode.goal)
        return {"hypothesis": list(episode.goal), "text": f"Put the {a} next to the {b}."}

    def label(self, episode: Episode, hypothesis: Hashable) -> str:
        a, b = hypothesis  # type: ignore[misc]
        return f"{episode.layout.objects[a].label} + {episode.layout.objects[b].label}"


VIEWS[GridWorldView.domain] = GridWorldView()
