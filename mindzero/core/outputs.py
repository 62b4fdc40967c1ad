"""Output folders: every writing command owns its ``--out``, and an interrupted run can continue.

A run records itself in ``OUT/mindzero-run.json``: the command, its config (without ``out``,
``resume``, ``overwrite`` and ``jobs``, which do not change what is written) and ``complete``. The record is
written as incomplete before the first output and rewritten as complete after the last one, so a
folder whose record says ``"complete": false`` (or that has none) is recognisably unfinished.

:func:`claim_out` decides, before any work, what a run may do with a folder:

- empty or new (a record alone counts as empty): the run starts;
- a run of the same command and config: with ``--resume`` the run continues it (a complete one is
  reused); otherwise a complete one is cleared and redone, an interrupted one is refused (so that
  forgetting ``--resume`` never throws work away);
- a run of another command or config: refused unless ``--overwrite``, which clears the folder;
- files without a record: refused (``--overwrite`` never deletes what mindzero did not write);
  ``--resume`` adopts them as an interrupted run (folders of versions before the record).

:class:`RowStream` writes a JSONL file row by row and resumably; :func:`atomic_path` writes a
file or folder whole or not at all.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text, dumps_json, dumps_row, prepare_out, to_jsonable

#: The run record: command, config and whether the run finished.
RECORD = "mindzero-run.json"
#: Options that say how to treat the folder, not what to write in it: never part of a run's identity.
NOT_RECORDED = ("out", "resume", "overwrite", "jobs")
#: Seconds of work between two checkpoints of a :class:`RowStream`: what a resumed run may redo
#: (``MINDZERO_CHECKPOINT_SECONDS`` sets it, e.g. for tests that interrupt short runs).
CHECKPOINT_SECONDS = float(os.environ.get("MINDZERO_CHECKPOINT_SECONDS", "1"))


def add_output_flags(parser: argparse.ArgumentParser, resume: bool = True) -> None:
    """``--overwrite`` and ``--resume`` (training configs declare their own ``--resume``)."""
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="clear --out first when it holds the output of another command or config",
    )
    if resume:
        parser.add_argument(
            "--resume",
            action="store_true",
            help="continue the interrupted run in --out (the same command and config)",
        )


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block is done: a folder is never left half cleared."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _empty(folder: Path) -> None:
    for entry in folder.iterdir():
        _remove(entry)


@dataclass
class OutputFolder:
    """A claimed ``--out``: a command writes inside ``with folder.run():`` (see :meth:`run`)."""

    path: Path
    command: str
    config: dict
    resume: bool  # continue what an earlier run of this command and config left here
    clear: bool  # :meth:`run` empties the folder first
    recorded: bool = True  # False in the other processes of a distributed launch: the first records

    def _record(self, complete: bool) -> None:
        record = {"command": self.command, "config": self.config, "complete": complete}
        atomic_write_text(self.path / RECORD, dumps_json(record))

    @contextlib.contextmanager
    def run(self) -> Iterator[OutputFolder]:
        """The run's writes: enter once the inputs are read. Entering takes the folder over (clears it
        when needed, records the run as incomplete); leaving normally drops the row streams'
        checkpoints and records the run as complete, the last write. A run that fails before writing
        anything resumable leaves the folder empty."""
        if not self.recorded:
            yield self
            return
        with _signals_held():
            if self.clear:
                _empty(self.path)
            self._record(complete=False)
        try:
            yield self
        except BaseException:
            if not [p for p in self.path.rglob("*") if p.is_file() and p.name != RECORD]:
                _empty(self.path)
            raise
        for ckpt in self.path.rglob(".*.ckpt"):
            ckpt.unlink()
        self._record(complete=True)

    def stream(self, name: str) -> RowStream:
        """A resumable JSONL file ``OUT/name`` (see :class:`RowStream`)."""
        return RowStream(self.path / name, self.resume)


def _config_record(config: Any) -> dict:
    record = to_jsonable(config)
    return {k: v for k, v in record.items() if k not in NOT_RECORDED}


def _with_new_defaults(recorded: dict, config: Any) -> dict:
    """The recorded config with the options it lacks set to their defaults: a run recorded before
    an option existed behaved as its default does, so resuming it with the default is the same run."""
    if not dataclasses.is_dataclass(config):
        return recorded
    defaults = {
        f.name: f.default if f.default is not dataclasses.MISSING else f.default_factory()
        for f in dataclasses.fields(config)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    added = {k: v for k, v in _config_record(defaults).items() if k not in recorded}
    return {**recorded, **added}


def claim_out(
    path: str | os.PathLike,
    command: str,
    config: Any,
    overwrite: bool = False,
    resume: bool = False,
    flag: str = "--out",
) -> OutputFolder:
    """Prepare ``--out`` (:func:`~mindzero.core.results.prepare_out`) and decide what this run may
    do with what it holds (see the module docstring); a refusal is a :class:`UserError`. Writes nothing."""
    if overwrite and resume:
        raise UserError("--overwrite and --resume exclude each other: start over or continue, not both")
    out = prepare_out(path, flag)
    options, config = config, _config_record(config)
    if os.environ.get("RANK", "0") != "0":  # a distributed launch (torchrun, accelerate): the first process
        return OutputFolder(out, command, config, resume=resume, clear=False, recorded=False)  # claims the folder
    folder = OutputFolder(out, command, config, resume=False, clear=False)
    if not [p for p in out.iterdir() if p.name != RECORD]:
        if resume:
            print(f"--resume: {out} holds no run yet; nothing was resumed, starting at the beginning", file=sys.stderr)
        return folder
    record = _read_record(out / RECORD)
    if record is None:
        if resume:
            folder.resume = True
            return folder
        raise UserError(
            f"{flag} {out} is not empty and has no {RECORD} (not written by this version of mindzero); "
            "choose another folder, or --resume if it holds an interrupted run of this command"
        )
    other = record.get("config") if isinstance(record.get("config"), dict) else {}
    other = _with_new_defaults(other, options)
    if record.get("command") != command or other != config:
        if overwrite:
            folder.clear = True
            return folder
        differs = sorted(k for k in config.keys() | other.keys() if config.get(k) != other.get(k))
        what = (
            f"a run of `mindzero {record.get('command')}`"
            if record.get("command") != command
            else f"a run of this command with another config (differs in {', '.join(differs)})"
        )
        raise UserError(f"{flag} {out} holds {what}; choose another folder, or --overwrite to replace it")
    if resume:
        folder.resume = True
    elif overwrite or record.get("complete"):
        folder.clear = True
    else:
        raise UserError(
            f"{flag} {out} holds an interrupted run of this command and config; "
            "rerun with --resume to continue it, or --overwrite to start over"
        )
    return folder


def _read_record(path: Path) -> dict | None:
    """The run record of a folder, or None when it has none (or an unreadable one)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, Mapping) else None


def _encode_state(value: Any) -> Any:
    """A producer's resume state as plain JSON: numbers, strings and lists as they are; tuples, exact
    fractions, numpy arrays and generators, dicts with other keys, and objects of mindzero's own
    classes tagged so that :func:`_decode_state` rebuilds them exactly (JSON, unlike a pickle, runs no
    code when a checkpoint from an output folder is read back)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [_encode_state(v) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_encode_state(v) for v in value]}
    if isinstance(value, Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, np.generic):
        return _encode_state(value.item())
    if isinstance(value, np.random.Generator):
        return {"rng": _encode_state(value.bit_generator.state)}
    if isinstance(value, dict):
        return {"items": [[_encode_state(k), _encode_state(v)] for k, v in value.items()]}
    kind = type(value)
    if kind.__module__.startswith("mindzero.") and hasattr(value, "__dict__"):
        return {"object": f"{kind.__module__}:{kind.__qualname__}", "attrs": _encode_state(vars(value))}
    raise TypeError(f"resume state holds a {kind.__name__}, which a checkpoint cannot store")


def _decode_state(value: Any) -> Any:
    """The inverse of :func:`_encode_state`; objects only of mindzero classes already imported."""
    if isinstance(value, list):
        return [_decode_state(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "tuple" in value:
        return tuple(_decode_state(v) for v in value["tuple"])
    if "fraction" in value:
        return Fraction(*value["fraction"])
    if "ndarray" in value:
        return np.array(value["ndarray"], dtype=np.dtype(value["dtype"]))
    if "rng" in value:
        state = _decode_state(value["rng"])
        rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        rng.bit_generator.state = state
        return rng
    if "items" in value:
        return {_decode_state(k): _decode_state(v) for k, v in value["items"]}
    module, _, name = value["object"].partition(":")
    if not module.startswith("mindzero."):
        raise TypeError(f"{value['object'][:80]} is not a mindzero class")
    kind = sys.modules[module]
    for part in name.split("."):
        kind = getattr(kind, part)
    made = kind.__new__(kind)
    made.__dict__.update(_decode_state(value["attrs"]))
    return made


class RowStream:
    """A JSONL file written row by row, so that memory stays flat and an interrupted run continues.

    Rows are appended to the hidden ``.NAME.part``. The producer calls :meth:`checkpoint` with its
    state after each unit of work; at most every :data:`CHECKPOINT_SECONDS`, and when the block
    ends, the state and the byte count are saved to ``.NAME.ckpt`` (JSON, atomically). A resumed
    stream cuts the part file back to its checkpoint and hands the state back (:attr:`state`).
    Leaving the ``with`` block normally renames the part file to NAME, so NAME is always whole;
    :attr:`done` says that the run being resumed had finished the file (the producer writes
    nothing and gets its final state back); once :meth:`OutputFolder.run` has completed the run and
    removed the checkpoints, a resumed run writes the file again."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        self.part = path.with_name(f".{path.name}.part")
        self.ckpt = path.with_name(f".{path.name}.ckpt")
        self.done = resume and path.is_file() and self.ckpt.is_file()
        self.state: Any = None
        self._offset = 0  # bytes of the part file that the checkpoint covers
        if resume and self.ckpt.is_file() and (self.done or self.part.is_file()):
            self._offset, self.state = self._load()
            if not self.done:
                self._verify()
        self._saved = time.monotonic()

    def _load(self) -> tuple[int, Any]:
        """The checkpoint's byte count and state; a damaged or foreign one is refused before any work."""
        try:
            saved = json.loads(self.ckpt.read_bytes())
            return saved["bytes"], _decode_state(saved["state"])
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise UserError(
                f"cannot resume: {self.ckpt} is not a checkpoint of this version ({str(err)[:120]}); "
                "nothing was run — start over with --overwrite"
            ) from None

    def _verify(self) -> None:
        """Refuse, before any work, a part file that does not hold the rows its checkpoint covers
        (cut short, or damaged): resuming it would lose rows or write NUL bytes."""
        with open(self.part, "rb") as fh:
            covered = fh.read(self._offset)
        problem = None
        if len(covered) < self._offset:
            problem = f"has {len(covered):,} bytes, its checkpoint covers {self._offset:,}"
        elif covered and not covered.endswith(b"\n"):
            problem = "does not end its last checkpointed row"
        else:
            for number, line in enumerate(covered.splitlines(), 1):
                try:
                    json.loads(line.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    problem = f"row {number} is not a JSON line"
                    break
        if problem:
            raise UserError(
                f"cannot resume: {self.part} {problem} (damaged); nothing was run — start over with --overwrite"
            )

    def __enter__(self) -> RowStream:
        if not self.done:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.part, "r+b" if self._offset else "wb")  # noqa: SIM115 (closed in __exit__)
            self._fh.truncate(self._offset)
            self._fh.seek(self._offset)
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        self._fh.write(dumps_row(row).encode("utf-8"))

    def checkpoint(self, state: Any) -> None:
        """Every row written so far is covered by ``state``: a resumed run may restart from there."""
        self.state = state
        if time.monotonic() - self._saved >= CHECKPOINT_SECONDS:
            self._save()

    def _save(self) -> None:
        self._fh.flush()
        atomic_write_text(self.ckpt, json.dumps({"bytes": self._fh.tell(), "state": _encode_state(self.state)}))
        self._saved = time.monotonic()

    def __exit__(self, kind: type | None, error: BaseException | None, tb: object) -> None:
        if self.done:
            return
        if kind is None:
            self._save()
            self._fh.close()
            os.replace(self.part, self.path)
        else:
            self._fh.close()
            if not self.ckpt.is_file():  # nothing a resumed run could continue from
                self.part.unlink()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Write a file or a folder (e.g. a Hugging Face export) whole or not at all: the caller writes
    the yielded hidden sibling path, which then replaces ``path``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.part")
    _remove(tmp)
    try:
        yield tmp
    except BaseException:
        _remove(tmp)
        raise
    _remove(path)
    os.replace(tmp, path)
