"""``mindzero stories generate|hitom-eval`` — Hi-ToM-style stories labelled by the DEL engine."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stories`` area with its verbs."""
    area = subparsers.add_parser("stories", help="DEL-labelled theory-of-mind stories (Hi-ToM style)")
    area.add_subparsers(dest="verb", metavar="VERB")
