"""GridWorld "Construction" (paper MindZero App. B). Importing this package registers the
gymnasium ids below (``gymnasium.make("mindzero/GridWorldHelper-v0")``); layout obstacles are
drawn from U(0, 20) for the plain id and fixed per family for the others."""

from gymnasium.envs.registration import register

_ENTRY = "mindzero.envs.gridworld.env:HelperEnv"

#: Registered id -> layout family (``layout.FAMILIES``; None draws U(0, 20) obstacles).
ENV_IDS: dict[str, str | None] = {
    "mindzero/GridWorldHelper-v0": None,
    "mindzero/GridWorldHelper-Empty-v0": "empty",
    "mindzero/GridWorldHelper-Obstacles10-v0": "obstacles10",
    "mindzero/GridWorldHelper-Obstacles15-v0": "obstacles15",
    "mindzero/GridWorldHelper-Obstacles20-v0": "obstacles20",
}

for _id, _family in ENV_IDS.items():
    register(id=_id, entry_point=_ENTRY, kwargs={"family": _family})
