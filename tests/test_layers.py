"""The layer table of ``docs/architecture.md``, enforced: every import of a mindzero module (inside
functions too) goes to the importer's own layer or a lower one; mindzero imports sit at module
top level, where they show the dependency graph; no module imports another's private names.
Within layer 4, ``domains/`` never imports ``inference/`` and ``inference/`` imports no particular
domain; within layer 7, no command area imports another area."""

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


def defines_register(path: Path) -> bool:
    """Whether a module defines ``register`` at top level: in ``commands/``, that makes it an area."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and node.name == "register" for node in tree.body)


#: Command areas: the modules of mindzero/commands that define ``register`` (mindzero.cli finds them).
AREAS = {module_name(p) for p in sorted((PACKAGE / "commands").glob("*.py")) if defines_register(p)}


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


#: What domains/ shares with every domain: the registry, the interface, the generic SSRL reward.
SHARED_DOMAIN_MODULES = {"mindzero.domains", "mindzero.domains.base", "mindzero.domains.reward"}


def one_domain(module: str) -> bool:
    """Whether ``module`` is a module of a particular domain (anything else in domains/)."""
    path = PACKAGE.parent / module.replace(".", "/")
    is_module = path.is_dir() or path.with_suffix(".py").is_file()
    return within(module, "mindzero.domains") and module not in SHARED_DOMAIN_MODULES and is_module


def rule_problems(module: str, target: str, names: list[str]) -> list[str]:
    """Breaches of the rules inside a layer by one import."""
    candidates = [target, *(f"{target}.{n}" for n in names)]  # `from T import n` may import module T.n
    problems = []
    if within(module, "mindzero.domains") and any(within(m, "mindzero.inference") for m in candidates):
        problems.append(f"domains/ imports inference/ ({target}): a domain's reasoners live in its package")
    if within(module, "mindzero.inference") and any(one_domain(m) for m in candidates):
        problems.append(f"inference/ imports a particular domain ({target}): use mindzero.domains.base")
    areas = [m for m in candidates if m in AREAS and m != module]
    if within(module, "mindzero.commands") and areas:
        problems.append(f"imports the command area {areas[0]}: move what they share to a helper or report/")
    return problems


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
        problems += [f"{where}: {p}" for p in rule_problems(module, target, names)]
    assert not problems, "\n".join(problems)


def test_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    """The check itself fails on what it should: a core module importing a task, inside a function."""
    tree = ast.parse("def f():\n    from mindzero.tasks.assist import run_assist\n")
    ((_, target, _, at_top),) = mindzero_imports(tree, "mindzero.core.reward")
    assert layer(target) > layer("mindzero.core.reward") and not at_top


@pytest.mark.parametrize(
    ("module", "code"),
    [
        ("mindzero.domains.gridworld.qa", "def f():\n    from mindzero.inference.llm import LLMReasoner\n"),
        ("mindzero.domains.base", "from mindzero import inference\n"),
        ("mindzero.inference.llm", "from mindzero.domains.household.smc import Observation\n"),
        ("mindzero.inference.llm", "from mindzero.domains import gridworld\n"),
        ("mindzero.inference.llm", "import mindzero.domains.gridworld.reasoners\n"),
        ("mindzero.commands.train", "from mindzero.commands.stories import REASONERS\n"),
        ("mindzero.commands.assist_runs", "from mindzero.commands import gridworld\n"),
    ],
)
def test_rule_check_catches_a_crossing(module: str, code: str) -> None:
    """domains/ → inference/, inference/ → one domain, and area → area are caught, in functions too."""
    ((_, target, names, _),) = mindzero_imports(ast.parse(code), module)
    assert rule_problems(module, target, names)


def test_rule_check_allows_the_shared_interfaces() -> None:
    for module, code in [
        ("mindzero.inference.llm", "from mindzero.domains.base import Domain\n"),
        ("mindzero.inference.llm", "from mindzero.domains import get_domain\n"),
        ("mindzero.domains.base", "from mindzero.core.reasoner import Reasoner\n"),
        ("mindzero.commands.gridworld", "from mindzero.commands.llm_options import LLMOptions\n"),
    ]:
        ((_, target, names, _),) = mindzero_imports(ast.parse(code), module)
        assert not rule_problems(module, target, names), code


def test_areas_are_found() -> None:
    assert {"mindzero.commands.gridworld", "mindzero.commands.train"} <= AREAS
    assert "mindzero.commands.llm_options" not in AREAS


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
