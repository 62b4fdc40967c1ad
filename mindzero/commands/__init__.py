"""Command-line areas (surface layer): each module exposes ``register(subparsers)``."""
