"""One results shape for every evaluation: ``OUT/results.json`` beside ``OUT/samples.jsonl``.

Files are written atomically (temp file + rename) so an interrupted run never leaves a half file.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from mindzero import __version__


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


def dumps_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    """Serialise rows as JSON lines with sorted keys (deterministic bytes)."""
    return "".join(json.dumps(to_jsonable(r), sort_keys=True) + "\n" for r in rows)


def write_jsonl(path: str | os.PathLike, rows: Iterable[Mapping[str, Any]]) -> None:
    atomic_write_text(path, dumps_jsonl(rows))


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


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


def write_results(
    out_dir: str | os.PathLike,
    task: str,
    config: Mapping[str, Any],
    metrics: Mapping[str, Any],
    samples: Iterable[Mapping[str, Any]],
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``results.json`` and ``samples.jsonl`` into ``out_dir``; return the results path.

    ``created`` is the only field that changes between identical runs; samples are byte-identical.
    """
    out = Path(out_dir)
    write_jsonl(out / "samples.jsonl", samples)
    results = {
        "task": task,
        "mindzero_version": __version__,
        "git_hash": git_hash(),
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "config": to_jsonable(config),
        "metrics": to_jsonable(metrics),
        "versions": package_versions(),
    }
    if extra:
        results.update(to_jsonable(extra))
    path = out / "results.json"
    atomic_write_text(path, json.dumps(results, indent=2, sort_keys=True) + "\n")
    return path
