"""Command-line areas (surface layer). A module here that defines ``register(subparsers)`` is an
area (``mindzero.cli`` finds it); one without is a helper the areas share (``assist_runs``,
``llm_options``). An area imports helpers, never another area (``tests/test_layers.py``)."""
