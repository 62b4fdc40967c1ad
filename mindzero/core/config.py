"""Dataclass configs ↔ command-line flags ↔ YAML files (one source of defaults and help text).

Every field of a config dataclass becomes a ``--flag`` whose help is the field's ``metadata["help"]``.
Precedence: dataclass default < ``--config FILE`` (YAML with the same keys) < flags given explicitly.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mindzero.core.errors import UserError

T = TypeVar("T")


def _parse_list(kind: type) -> Any:
    def parse(text: str) -> list:
        try:
            return [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            message = f"expected a comma-separated list of {kind.__name__}, got {text!r}"
            raise argparse.ArgumentTypeError(message) from None

    return parse


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


def _flag_type(annotation: Any) -> tuple[Any, str]:
    """argparse ``type`` and metavar for a field annotation (Optional and list[...] supported)."""
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _flag_type(args[0])
    if origin is list:
        return _parse_list(args[0]), "A,B,..."
    if annotation is bool:
        return _parse_bool, "BOOL"
    if annotation in (int, float, str):
        return annotation, annotation.__name__.upper()
    return str, "VALUE"


def add_dataclass_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """Add one ``--field-name`` flag per dataclass field, plus ``--config FILE``."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        kind, metavar = _flag_type(hints[f.name])
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        parser.add_argument(
            f"--{f.name.replace('_', '-')}",
            dest=f.name,
            type=kind,
            metavar=metavar,
            default=argparse.SUPPRESS,
            help=f"{f.metadata.get('help', '')} (default: {default})",
        )
    parser.add_argument("--config", type=Path, metavar="FILE", help="YAML file with the same keys as the flags")


def config_from_args(cls: type[T], args: argparse.Namespace) -> T:
    """Build ``cls`` from defaults, then ``--config`` YAML, then explicit flags."""
    names = {f.name for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    config_file = getattr(args, "config", None)
    if config_file is not None:
        try:
            loaded = yaml.safe_load(Path(config_file).read_text()) or {}
        except OSError as err:
            raise UserError(f"cannot read config {config_file}: {err.strerror}") from None
        except yaml.YAMLError as err:
            raise UserError(f"config {config_file} is not valid YAML: {err}") from None
        if not isinstance(loaded, dict):
            raise UserError(f"config {config_file} must be a mapping of option names to values")
        unknown = sorted(set(k.replace("-", "_") for k in loaded) - names)
        if unknown:
            raise UserError(f"config {config_file}: unknown keys {unknown}; known: {sorted(names)}")
        values.update({k.replace("-", "_"): v for k, v in loaded.items()})
    values.update({k: v for k, v in vars(args).items() if k in names})
    return cls(**values)


def apply_preset(config: T, presets: Mapping[str, Mapping[str, Any]]) -> T:
    """Fill the fields of ``config`` left as None from ``presets[config.preset]``."""
    name = config.preset  # type: ignore[attr-defined]
    if name not in presets:
        raise UserError(f"unknown preset {name!r}; choose from {', '.join(presets)}")
    filled = {k: v for k, v in presets[name].items() if getattr(config, k) is None}
    return dataclasses.replace(config, **filled)  # type: ignore[type-var]
