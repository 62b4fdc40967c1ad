"""``mindzero <area> <verb> [options]`` — one entry point for every benchmark, generator and trainer.

Every module of :mod:`mindzero.commands` that defines ``register(subparsers)`` is an area: it adds
its parser and verbs (each verb sets ``func(args) -> int``); areas are listed by module name, so a
new area is a new module there and no edit here. Area modules import heavy dependencies (torch,
transformers) lazily, inside their verbs, so ``mindzero --help`` stays fast. A :class:`UserError`
is one line on stderr (exit 2); SIGINT and SIGTERM unwind the run and are one line too (exit 130
and 143).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys
import threading
from types import ModuleType

from mindzero import __version__, commands
from mindzero.core.errors import UserError, clip


def area_modules() -> list[ModuleType]:
    """The modules of :mod:`mindzero.commands` that define ``register``, sorted by name; the others
    are helpers the areas share."""
    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    modules = [importlib.import_module(f"{commands.__name__}.{name}") for name in names]
    return [m for m in modules if callable(getattr(m, "register", None))]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mindzero",
        description="Online mental reasoning: infer goals and beliefs from behaviour.",
    )
    parser.add_argument("--version", action="version", version=f"mindzero {__version__}")
    areas = parser.add_subparsers(dest="area", metavar="AREA", required=True)
    for module in area_modules():
        module.register(areas)
    return parser


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: the run unwinds like Ctrl-C, so that every write in progress
    cleans up after itself (atomic files, row streams keep their last checkpoint)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "--help"])
    previous = {}
    if threading.current_thread() is threading.main_thread():  # only there can Python handle signals
        previous = {s: signal.signal(s, _interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return int(args.func(args) or 0)
    except UserError as err:
        message, status = f"mindzero: error: {clip(str(err), 1_000)}", 2  # never a megabyte of echoed input
    except KeyboardInterrupt as err:
        signum = err.signum if isinstance(err, Interrupted) else signal.SIGINT
        name = signal.Signals(signum).name
        message, status = f"mindzero: interrupted ({name}); rerun with --resume to continue", 128 + signum
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    # printed once the failed frames are gone, so that no progress bar they drew is cleared after it
    print(message, file=sys.stderr)
    return status
