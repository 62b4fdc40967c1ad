"""Household: a symbolic apartment simulator with VirtualHome's rules (paper MindZero §5.3–5.4).
Importing this package registers one gymnasium id per bundled apartment
(``gymnasium.make("mindzero/Household-apt0-v0")``)."""

from gymnasium.envs.registration import register

from mindzero.envs.household.apartment import TEST_APARTMENTS, TRAIN_APARTMENTS

_ENTRY = "mindzero.envs.household.env:HouseholdEnv"

#: Registered id -> bundled apartment.
ENV_IDS: dict[str, str] = {f"mindzero/Household-{name}-v0": name for name in TRAIN_APARTMENTS + TEST_APARTMENTS}

for _id, _apartment in ENV_IDS.items():
    register(id=_id, entry_point=_ENTRY, kwargs={"apartment": _apartment})
