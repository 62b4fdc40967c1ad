"""The layer table of ``docs/architecture.md``, enforced: every import of a mindzero module (inside
functions too) goes to the importer's own layer or a lower one; mindzero imports sit at module
top level, where they show the dependency graph; no module imports another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mindzero"

#: Layer of each package or module, lowest first (docs/architecture.md).
LAYERS = {
    "mindzero": 1,  # __init__: the version
    "mindzero.core": 1,
    "mindzero.envs": 2,
    "mindzero.epistemic": 2,
    "mindzero.stories": 2,
    "mindzero.llm": 3,
    "mindzero.pbm": 3,
    "mindzero.inference": 4,
    "mindzero.domains": 4,
    "mindzero.tasks": 5,
    "mindzero.train": 6,
    "mindzero.commands": 7,
    "mindzero.report": 7,
    "mindzero.web": 7,
    "mindzero.cli": 7,
    "mindzero.__main__": 7,
}


def layer(module: str) -> int:
    """Layer of the longest prefix of ``module`` in :data:`LAYERS`."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in LAYERS:
            return LAYERS[".".join(parts[:k])]
    raise KeyError(module)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def mindzero_imports(tree: ast.Module, module: str) -> list[tuple[ast.stmt, str, list[str], bool]]:
    """(node, imported module, imported names, at top level) for every import of a mindzero module."""
    top = {id(node) for node in tree.body}
    for node in tree.body:  # imports under `if TYPE_CHECKING:` or try: blocks at top level count as top level
        if isinstance(node, (ast.If, ast.Try)):
            top |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [(a.name, []) for a in node.names if a.name.split(".")[0] == "mindzero"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import: resolve against this module's package
                base = ".".join(module.split(".")[: -node.level] + ([node.module] if node.module else []))
            names = [(base, [a.name for a in node.names])] if base.split(".")[0] == "mindzero" else []
        else:
            continue
        found += [(node, target, imported, id(node) in top) for target, imported in names]
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    for path in SOURCES:
        layer(module_name(path))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    module = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node, target, names, at_top in mindzero_imports(tree, module):
        where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        if layer(target) > layer(module):
            problems.append(f"{where}: layer {layer(module)} imports {target} (layer {layer(target)})")
        if not at_top:
            problems.append(f"{where}: import of {target} inside a function or class (move it to the top)")
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private:
            problems.append(f"{where}: imports private {', '.join(private)} from {target}")
    assert not problems, "\n".join(problems)


def test_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    """The check itself fails on what it should: a core module importing a task, inside a function."""
    tree = ast.parse("def f():\n    from mindzero.tasks.assist import run_assist\n")
    ((_, target, _, at_top),) = mindzero_imports(tree, "mindzero.core.reward")
    assert layer(target) > layer("mindzero.core.reward") and not at_top


def test_only_commands_write_results() -> None:
    """Benchmarks return results; the command layer alone writes results.json + samples.jsonl."""
    writers = []
    for path in SOURCES:
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _, target, names, _ in mindzero_imports(tree, module):
            if target == "mindzero.core.results" and "write_results" in names and layer(module) < 7:
                writers.append(module)
    assert not writers, f"write_results imported below the command layer by {writers}"
