"""``mindzero <area> <verb> [options]`` — one entry point for every benchmark, generator and trainer.

Each area module exposes ``register(subparsers)`` which adds its parser and verbs; each verb sets
``func(args) -> int``. Area modules import heavy dependencies (torch, transformers) lazily, inside
their verbs, so ``mindzero --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from mindzero import __version__
from mindzero.core.errors import UserError

AREA_MODULES = (
    "mindzero.commands.gridworld",
    "mindzero.commands.stories",
    "mindzero.commands.train",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mindzero",
        description="Online mental reasoning: infer goals and beliefs from behaviour.",
    )
    parser.add_argument("--version", action="version", version=f"mindzero {__version__}")
    areas = parser.add_subparsers(dest="area", metavar="AREA", required=True)
    for name in AREA_MODULES:
        importlib.import_module(name).register(areas)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "--help"])
    try:
        return int(args.func(args) or 0)
    except UserError as err:
        print(f"mindzero: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mindzero: interrupted", file=sys.stderr)
        return 130
