"""Dataclass configs ↔ command-line flags ↔ YAML files (one source of defaults and help text).

Every field of a config dataclass becomes a ``--flag`` whose help is the field's ``metadata["help"]``.
A field whose type is itself a dataclass (e.g. ``human: HumanParams``) becomes a group of flags
``--human-epsilon``, ``--human-tau``, ... and a YAML section ``human: {epsilon: ...}``.
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


def _nested(hints: dict, f: dataclasses.Field) -> type | None:
    """The dataclass type of a field that holds a nested config, else None."""
    kind = hints[f.name]
    return kind if dataclasses.is_dataclass(kind) else None


def add_dataclass_flags(parser: argparse.ArgumentParser, cls: type, prefix: str = "") -> None:
    """Add one ``--field-name`` flag per dataclass field (nested configs as ``--name-field``),
    plus ``--config FILE``."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        nested = _nested(hints, f)
        if nested is not None:
            group = parser.add_argument_group(f"{f.name} ({f.metadata.get('help', nested.__name__)})")
            add_dataclass_flags(group, nested, prefix=f"{prefix}{f.name}.")  # type: ignore[arg-type]
            continue
        kind, metavar = _flag_type(hints[f.name])
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        parser.add_argument(
            f"--{(prefix + f.name).replace('.', '-').replace('_', '-')}",
            dest=prefix + f.name,
            type=kind,
            metavar=metavar,
            default=argparse.SUPPRESS,
            help=f"{f.metadata.get('help', '')} (default: {default})",
        )
    if not prefix:
        parser.add_argument("--config", type=Path, metavar="FILE", help="YAML file with the same keys as the flags")


def _build(cls: type[T], values: Mapping[str, Any], where: str) -> T:
    """``cls(**values)`` with nested configs built from their sections; unknown keys are an error."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise UserError(f"{where}: unknown keys {unknown}; known: {sorted(fields)}")
    kwargs = dict(values)
    for name, f in fields.items():
        nested = _nested(hints, f)
        if nested is not None and name in kwargs:
            section = kwargs[name]
            if dataclasses.is_dataclass(section):
                continue
            if not isinstance(section, Mapping):
                keys = sorted(x.name for x in dataclasses.fields(nested))
                raise UserError(f"{where}: {name} must be a mapping of {keys}")
            kwargs[name] = _build(nested, {k.replace("-", "_"): v for k, v in section.items()}, f"{where}: {name}")
    return cls(**kwargs)


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
        values.update({k.replace("-", "_"): v for k, v in loaded.items()})
    for key, value in vars(args).items():
        head, dot, rest = key.partition(".")
        if head not in names:
            continue
        if dot:
            section = values.get(head)
            values[head] = {**(section if isinstance(section, Mapping) else {}), rest: value}
        else:
            values[key] = value
    return _build(cls, values, f"config {config_file}" if config_file is not None else "options")


def apply_preset(config: T, presets: Mapping[str, Mapping[str, Any]]) -> T:
    """Fill the fields of ``config`` left as None from ``presets[config.preset]``."""
    name = config.preset  # type: ignore[attr-defined]
    if name not in presets:
        raise UserError(f"unknown preset {name!r}; choose from {', '.join(presets)}")
    filled = {k: v for k, v in presets[name].items() if getattr(config, k) is None}
    return dataclasses.replace(config, **filled)  # type: ignore[type-var]
