"""One results shape for every evaluation: ``OUT/results.json`` beside ``OUT/samples.jsonl``; and
the one reader of input files.

Files are written atomically (temp file + rename) so an interrupted run never leaves a half file,
as strict JSON (a NaN or infinite metric is a bug, never a value). Input files are read by
:func:`read_text`, :func:`read_json` and :func:`read_jsonl`, which raise only :class:`UserError`
with ``FILE:LINE: what is wrong``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from mindzero import __version__
from mindzero.core.errors import UserError


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, paths, tuples and dataclass-like objects to plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        return {k: to_jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


def dumps_row(row: Mapping[str, Any]) -> str:
    """One JSON line with sorted keys (deterministic bytes), strict JSON."""
    return json.dumps(to_jsonable(row), sort_keys=True, allow_nan=False) + "\n"


def dumps_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    """Serialise rows as JSON lines (:func:`dumps_row`)."""
    return "".join(dumps_row(r) for r in rows)


def dumps_json(value: Any) -> str:
    """A results or manifest file's text: indented, sorted keys, strict JSON."""
    return json.dumps(to_jsonable(value), indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_jsonl(path: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> None:
    atomic_write_text(path, dumps_jsonl(rows))


def prepare_out(path: str | os.PathLike, flag: str = "--out") -> Path:
    """Create an output folder and check that a file can be written in it, before any work (a run
    must not fail on its last step). Every writing command calls this first."""
    if not str(path).strip():
        raise UserError(f"{flag} must not be empty")
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UserError(f"{flag} {out} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as err:
        raise UserError(f"{flag} {out}: cannot write there ({err.strerror or err})") from None
    return out


def read_text(path: str | os.PathLike, hint: str = "") -> str:
    """The UTF-8 text of an input file. Missing, unreadable, binary or non-UTF-8 files are one-line
    errors naming the file (and the line of the first bad byte); ``hint`` says how to get the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: file not found" + (f"; {hint}" if hint else "")) from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a file" + (f"; {hint}" if hint else "")) from None
    except OSError as err:
        raise UserError(f"{path}: cannot read ({err.strerror or err})") from None
    return decode_text(data, str(path))


def read_stdin_text() -> str:
    """Standard input as UTF-8 text, with :func:`read_text`'s errors (a text stream without bytes
    underneath, as in tests, is taken as it is)."""
    raw = getattr(sys.stdin, "buffer", None)
    return decode_text(raw.read(), "stdin") if raw is not None else sys.stdin.read()


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; NUL bytes or invalid UTF-8 are an error naming ``name`` and the line."""
    bad = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = err.start if bad < 0 else min(bad, err.start)
    if bad >= 0:
        line = data.count(b"\n", 0, bad) + 1
        raise UserError(f"{name}:{line}: not UTF-8 text (a binary file?)")
    return text


def read_json(path: str | os.PathLike, hint: str = "") -> Any:
    """A JSON file's value; broken JSON is an error naming the file and line."""
    try:
        return json.loads(read_text(path, hint))
    except json.JSONDecodeError as err:
        raise UserError(f"{path}:{err.lineno}: not valid JSON ({err.msg})") from None


#: A field's expected type(s) in :func:`check_fields`.
FieldTypes = Mapping[str, type | tuple[type, ...]]


def check_fields(row: Any, fields: FieldTypes, where: str) -> None:
    """``row`` is a JSON object with each of ``fields`` of its type (a bool is no number)."""
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object, got {type(row).__name__}")
    for key, kinds in fields.items():
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if key not in row:
            raise UserError(f"{where}: missing field {key!r}")
        value = row[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise UserError(f"{where}: field {key!r} must be {names}, got {type(value).__name__}")


def iter_jsonl(path: str | os.PathLike, fields: FieldTypes | None = None, hint: str = "") -> Iterator[tuple[int, dict]]:
    """(line number, row) for every non-blank line of a JSONL file; a line that is not a JSON object
    with ``fields`` is an error naming the file and line."""
    for n, line in enumerate(read_text(path, hint).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise UserError(f"{path}:{n}: not valid JSON ({err.msg})") from None
        check_fields(row, fields or {}, f"{path}:{n}")
        yield n, row


def read_jsonl(path: str | os.PathLike, fields: FieldTypes | None = None, hint: str = "") -> list[dict]:
    """The rows of a JSONL file (see :func:`iter_jsonl`); a file without rows is an error too."""
    rows = [row for _, row in iter_jsonl(path, fields, hint)]
    if not rows:
        raise UserError(f"{path}: no rows (the file is empty)")
    return rows


def git_hash() -> str | None:
    """The git commit of the mindzero source tree, or None outside a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def package_versions(names: Iterable[str] = ("numpy", "torch", "transformers", "trl")) -> dict:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def machine() -> dict:
    """What the numbers were measured on: CPU cores and platform, and the GPU when torch (already
    imported by the run) has one; a report names it beside each row."""
    info: dict[str, Any] = {"cpus": os.cpu_count(), "platform": platform.platform(terse=True)}
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        info["gpu"] = f"{torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}"
    return info


def write_results(
    out_dir: str | os.PathLike,
    task: str,
    config: Mapping[str, Any],
    metrics: Mapping[str, Any],
    samples: Iterable[Mapping[str, Any]] | None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``samples.jsonl`` (unless ``samples`` is None: a row stream wrote it as the run went)
    and then ``results.json`` into ``out_dir``; return the results path.

    ``created`` is the only field that changes between identical runs; samples are byte-identical.
    """
    out = Path(out_dir)
    if samples is not None:
        write_jsonl(out / "samples.jsonl", samples)
    results = {
        "task": task,
        "mindzero_version": __version__,
        "git_hash": git_hash(),
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "config": to_jsonable(config),
        "metrics": to_jsonable(metrics),
        "versions": package_versions(),
        "machine": machine(),
    }
    if extra:
        results.update(to_jsonable(extra))
    path = out / "results.json"
    atomic_write_text(path, dumps_json(results))
    return path
