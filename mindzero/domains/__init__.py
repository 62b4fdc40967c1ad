"""Domains by name: ``gridworld`` and ``household`` are built in; :func:`register` adds another, :func:`get_domain`
finds one (the interface: ``base.py``)."""

from __future__ import annotations

from collections.abc import Callable

from mindzero.core.errors import UserError
from mindzero.domains.base import Domain
from mindzero.domains.gridworld import GridWorldDomain
from mindzero.domains.household import HouseholdDomain

_FACTORIES: dict[str, Callable[[], Domain]] = {}
_LOADED: dict[str, Domain] = {}


def register(name: str, factory: Callable[[], Domain]) -> None:
    """Make ``get_domain(name)`` return ``factory()`` (built once, on first use)."""
    _FACTORIES[name] = factory
    _LOADED.pop(name, None)


def unregister(name: str) -> None:
    """Forget a registered domain (tests register toy domains)."""
    _FACTORIES.pop(name, None)
    _LOADED.pop(name, None)


def get_domain(name: str) -> Domain:
    """The registered domain ``name``; a one-line error naming the known ones otherwise."""
    if name not in _FACTORIES:
        raise UserError(f"unknown domain {name!r}; choose from {', '.join(_FACTORIES)}")
    if name not in _LOADED:
        _LOADED[name] = _FACTORIES[name]()
    return _LOADED[name]


register("gridworld", GridWorldDomain)
register("household", HouseholdDomain)
