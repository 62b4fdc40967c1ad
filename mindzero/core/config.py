"""Dataclass configs ↔ command-line flags ↔ YAML files (one source of defaults, help text and checks).

Every field of a config dataclass becomes a ``--flag`` whose help is the field's ``metadata["help"]``.
A field whose type is itself a dataclass (e.g. ``human: HumanParams``) becomes a group of flags
``--human-epsilon``, ``--human-tau``, ... and a YAML section ``human: {epsilon: ...}``.
Precedence: dataclass default < ``--config FILE`` (YAML with the same keys) < flags given explicitly.
A field without a default is required.

Values are checked in one place, :func:`_build`, before a command does any work, and a flag's text
and a YAML value get the same check and the same message (the option named as its ``--flag``):

- the type of the annotation (``int``, ``float``, ``str``, ``bool``, ``list[...]``, ``X | None``);
  a flag's text and a YAML string are parsed as a flag would be (``"10,20"`` is a list);
- always: floats are finite, text is not empty, lists have at least one value;
- declared in the field's metadata (a list's bounds and choices apply to each value):
  ``ge``/``gt``/``le``/``lt`` bounds and ``choices`` (allowed values), e.g.
  ``field(default=20, metadata={"help": "episodes per seed", "ge": 1})``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import operator
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mindzero.core.errors import UserError, clip
from mindzero.core.results import read_text

T = TypeVar("T")

#: Metadata of a probability: ``metadata={"help": ..., **PROBABILITY}``.
PROBABILITY = {"ge": 0, "le": 1}

_KINDS = {int: "an integer", float: "a number", str: "text", bool: "true or false"}
_BOUNDS = {"ge": operator.ge, "gt": operator.gt, "le": operator.le, "lt": operator.lt}


def flag_name(name: str) -> str:
    """``--flag-name`` of a field (``human.epsilon`` → ``--human-epsilon``)."""
    return "--" + name.replace(".", "-").replace("_", "-")


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without ``| None``, whether None is allowed)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0], True
    return annotation, False


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _show(value: Any) -> str:
    """A value as it would be typed after its flag, so that a flag and a YAML value with the same
    text get the same message; at most :data:`~mindzero.core.errors.QUOTE_CHARS` of it (a 1 MB value is not echoed)."""
    if isinstance(value, bool):
        return str(value).lower()
    text = "''" if value == "" else str(value)
    return clip(text)


def _scalar(kind: type, value: Any, flag: str) -> Any:
    """``value`` as an ``int``, ``float``, ``str`` or ``bool``; text is parsed as a flag's would be."""
    try:
        if isinstance(value, str) and kind is not str:
            return _parse_bool(value.strip()) if kind is bool else kind(value)
        if kind is float and type(value) is int:
            return float(value)
        if type(value) is kind:
            return value
    except ValueError:
        pass
    raise UserError(f"{flag} must be {_KINDS[kind]}, got {_show(value)}")


def _convert(annotation: Any, value: Any, flag: str) -> Any:
    """``value`` (a flag's text or a YAML value) as the field's type, or a UserError naming ``flag``."""
    kind, optional = _unwrap(annotation)
    if value is None and optional:
        return None
    if typing.get_origin(kind) is list:
        item = typing.get_args(kind)[0]
        if isinstance(value, str):
            value = [x.strip() for x in value.split(",") if x.strip()]
        if not isinstance(value, list):
            raise UserError(f"{flag} must be a list (A,B,... or a YAML list), got {_show(value)}")
        return [_scalar(item, v, flag) for v in value]
    return _scalar(kind, value, flag)


def _describe_bounds(meta: Mapping[str, Any]) -> str:
    low, high = meta.get("ge", meta.get("gt")), meta.get("le", meta.get("lt"))
    if low is not None and high is not None:
        return f"in {'[' if 'ge' in meta else '('}{low}, {high}{']' if 'le' in meta else ')'}"
    if low is not None:
        return f"at least {low}" if "ge" in meta else f"greater than {low}"
    return f"at most {high}" if "le" in meta else f"less than {high}"


def _check(meta: Mapping[str, Any], value: Any, flag: str) -> None:
    """The rules every value follows plus the field's declared bounds and choices."""
    if isinstance(value, list):
        if not value:
            raise UserError(f"{flag} needs at least one value")
        for item in value:
            _check(meta, item, flag)
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"{flag} must be a finite number, got {_show(value)}")
    if isinstance(value, str) and not value.strip():
        raise UserError(f"{flag} must not be empty")
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        raise UserError(f"{flag} must be one of {', '.join(map(str, choices))}; got {_show(value)}")
    if any(key in meta and not holds(value, meta[key]) for key, holds in _BOUNDS.items()):
        raise UserError(f"{flag} must be {_describe_bounds(meta)}, got {_show(value)}")


def _nested(hints: dict, f: dataclasses.Field) -> type | None:
    """The dataclass type of a field that holds a nested config, else None."""
    kind = hints[f.name]
    return kind if dataclasses.is_dataclass(kind) else None


def _metavar(annotation: Any) -> str:
    kind, _ = _unwrap(annotation)
    if typing.get_origin(kind) is list:
        return "A,B,..."
    return "BOOL" if kind is bool else kind.__name__.upper()


def _required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _default(f: dataclasses.Field) -> Any:
    """A field's default value (a fresh one from its factory); MISSING for a required field."""
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def add_dataclass_flags(parser: argparse.ArgumentParser, cls: type, prefix: str = "", defaults: Any = None) -> None:
    """Add one ``--field-name`` flag per dataclass field (nested configs as ``--name-field``, their
    shown defaults the enclosing config's: ``defaults``), plus ``--config FILE``. Flags keep their
    text; :func:`config_from_args` converts and checks it."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        nested = _nested(hints, f)
        if nested is not None:
            group = parser.add_argument_group(f"{f.name} ({f.metadata.get('help', nested.__name__)})")
            inner = _default(f)
            add_dataclass_flags(group, nested, prefix=f"{prefix}{f.name}.", defaults=inner)  # type: ignore[arg-type]
            continue
        if _required(f):
            default = "required"
        else:
            default = f"default: {getattr(defaults, f.name) if defaults is not None else _default(f)}"
        if any(key in f.metadata for key in ("le", "lt")):
            default += f"; {_describe_bounds(f.metadata)}"  # upper bounds are part of an option's meaning
        is_bool = _unwrap(hints[f.name])[0] is bool
        parser.add_argument(
            flag_name(prefix + f.name),
            dest=prefix + f.name,
            metavar=_metavar(hints[f.name]),
            nargs="?" if is_bool else None,  # a bare --flag means true
            const="true" if is_bool else None,
            default=argparse.SUPPRESS,
            help=f"{f.metadata.get('help', '')} ({default})",
        )
    if not prefix:
        for old, new in renamed(cls).items():
            if flag_name(old) != flag_name(new):  # the old name, kept for one release
                parser.add_argument(flag_name(old), dest=f"{RENAMED_DEST}{old}", default=argparse.SUPPRESS,
                                    nargs="?", const="true", help=argparse.SUPPRESS)  # fmt: skip
        parser.add_argument("--config", type=Path, metavar="FILE", help="YAML file with the same keys as the flags")


def _build(cls: type[T], values: Mapping[str, Any], where: str, prefix: str = "") -> T:
    """``cls(**values)`` with every value converted and checked and nested configs built from their
    sections; unknown keys and missing required fields are errors."""
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise UserError(f"{where}: unknown keys {unknown}; known: {sorted(fields)}")
    kwargs = {}
    for name, value in values.items():
        f, flag = fields[name], flag_name(prefix + name)
        nested = _nested(hints, f)
        if nested is None:
            kwargs[name] = _convert(hints[name], value, flag)
            if kwargs[name] is not None:
                _check(f.metadata, kwargs[name], flag)
        elif isinstance(value, Mapping):
            section = {str(k).replace("-", "_"): v for k, v in value.items()}
            # keys a section leaves out keep the enclosing config's default for it (e.g. None: "the preset's")
            default = _default(f)
            inner = dataclasses.fields(nested)
            start = {x.name: getattr(default, x.name) for x in inner} if isinstance(default, nested) else {}
            kwargs[name] = _build(nested, {**start, **section}, f"{where}: {name}", prefix=f"{prefix}{name}.")
        else:
            keys = sorted(x.name for x in dataclasses.fields(nested))
            raise UserError(f"{where}: {name} must be a mapping of {keys}")
    for f in fields.values():
        if _required(f) and f.name not in kwargs:
            raise UserError(f"{flag_name(prefix + f.name)} is required: {f.metadata.get('help', '')}")
    return cls(**kwargs)


def validate(config: object) -> None:
    """Check a config built in code against its fields' declared ranges, in the messages that flags
    and YAML get from :func:`config_from_args` (nested configs check themselves when built)."""
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        if value is not None and not dataclasses.is_dataclass(value):
            _check(f.metadata, value, flag_name(f.name))


def _read_yaml(path: Path) -> dict:
    """A ``--config`` file's mapping; every failure is a one-line error naming the file (and line)."""
    try:
        loaded = yaml.safe_load(read_text(path)) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise UserError(f"{where}: not valid YAML ({getattr(err, 'problem', None) or 'syntax error'})") from None
    if not isinstance(loaded, dict):
        raise UserError(f"{path}: a config must be a mapping of option names to values")
    return {str(k).replace("-", "_"): v for k, v in loaded.items()}


#: A config dataclass's ``RENAMED`` maps an old flat option to its new place (``"every": "data.every"``).
RENAMED_DEST = "renamed:"


def renamed(cls: type) -> dict[str, str]:
    return dict(getattr(cls, "RENAMED", {}))


def _move_renamed(cls: type, values: dict[str, Any], where: str, quiet: bool = False) -> dict[str, Any]:
    """``values`` with old option names moved to their new places (nested sections), each said once
    on stderr (unless ``quiet``); an old name given together with its new one is an error."""
    # an old name that is now a section's name ("data: PATH" for data.path) moves before the others fill it
    for old, new in sorted(renamed(cls).items(), key=lambda item: item[0] != item[1].partition(".")[0]):
        if old not in values or (old == new.partition(".")[0] and isinstance(values[old], Mapping)):
            continue  # absent, or already the new section of that name
        value = values.pop(old)
        head, _, rest = new.partition(".")
        section = dict(values.get(head) or {}) if isinstance(values.get(head), Mapping) else {}
        if rest in section:
            raise UserError(f"{where}: {flag_name(old)} and {flag_name(new)} are one option; keep {flag_name(new)}")
        values[head] = {**section, rest: value}
        if not quiet:
            print(f"mindzero: {flag_name(old)} is now {flag_name(new)} ({where}); the old name goes in the next "
                  "release", file=sys.stderr)  # fmt: skip
    return values


def from_flat(cls: type[T], **values: Any) -> T:
    """``cls`` from keyword options in which old flat names stand for their new places (``every=3``
    for ``data.every``); values that are already dataclasses are kept as they are."""
    values = _move_renamed(cls, dict(values), "options", quiet=True)
    defaults = {f.name: _default(f) for f in dataclasses.fields(cls)}
    for name, value in list(values.items()):
        if isinstance(value, Mapping) and dataclasses.is_dataclass(defaults.get(name)):
            values[name] = dataclasses.replace(defaults[name], **value)
    return cls(**values)


def config_from_file(cls: type[T], path: Path, **defaults: Any) -> T:
    """Build ``cls`` from a YAML file as ``--config`` reads it; ``defaults`` fill keys it leaves out."""
    values = _move_renamed(cls, {**defaults, **_read_yaml(Path(path))}, f"config {path}")
    return _build(cls, values, f"config {path}")


def config_from_args(cls: type[T], args: argparse.Namespace) -> T:
    """Build ``cls`` from defaults, then ``--config`` YAML, then explicit flags."""
    names = {f.name for f in dataclasses.fields(cls)}
    config_file = getattr(args, "config", None)
    values: dict[str, Any] = _read_yaml(config_file) if config_file is not None else {}
    values = _move_renamed(cls, values, f"config {config_file}")
    flags = {k.removeprefix(RENAMED_DEST): v for k, v in vars(args).items() if k.startswith(RENAMED_DEST)}
    for key, value in [*_move_renamed(cls, flags, "flags").items(), *vars(args).items()]:
        head, dot, rest = key.partition(".")
        if head not in names:
            continue
        if dot or isinstance(value, Mapping):
            section = values.get(head)
            added = {rest: value} if dot else value
            values[head] = {**(section if isinstance(section, Mapping) else {}), **added}
        else:
            values[key] = value
    return _build(cls, values, f"config {config_file}" if config_file is not None else "options")


def presets_in(folder: Path) -> dict[str, dict]:
    """The presets of a trainer: one YAML file each, named by its stem (``cpu-tiny.yaml``)."""
    return {p.stem: yaml.safe_load(p.read_text()) or {} for p in sorted(Path(folder).glob("*.yaml"))}


def apply_preset(config: T, presets: Mapping[str, Mapping[str, Any]]) -> T:
    """Fill the fields of ``config`` left as None from ``presets[config.preset]``; a preset's mapping
    for a nested dataclass field (``"scratch": {"number_features": 8}``) fills that section's Nones."""
    name = config.preset  # type: ignore[attr-defined]
    if name not in presets:
        raise UserError(f"unknown preset {name!r}; choose from {', '.join(presets)}")
    return _fill(config, presets[name])


def _fill(config: T, values: Mapping[str, Any]) -> T:
    filled = {}
    for key, value in values.items():
        current = getattr(config, key)
        if current is None:
            filled[key] = value
        elif isinstance(value, Mapping) and dataclasses.is_dataclass(current):
            filled[key] = _fill(current, value)
    return dataclasses.replace(config, **filled)  # type: ignore[type-var]
