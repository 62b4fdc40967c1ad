"""Each verb imports only what it needs: with Starlette and uvicorn hidden (as on a training machine
without the web stack), the training, GridWorld, Household and story verbs still run, and
``mindzero serve`` fails with one line naming the missing package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: A sitecustomize that makes the web packages unimportable in the subprocess.
HIDE_WEB = """
import sys


class HideWeb:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("starlette", "uvicorn"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, HideWeb())
"""


@pytest.fixture(scope="module")
def without_web(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The subprocess environment: the hiding sitecustomize first on PYTHONPATH, one thread."""
    folder = tmp_path_factory.mktemp("hide_web")
    (folder / "sitecustomize.py").write_text(HIDE_WEB)
    path = os.pathsep.join([str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}


def mindzero(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mindzero", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_web_packages_are_hidden(without_web: dict[str, str]) -> None:
    """The fixture itself works: otherwise the tests below would prove nothing."""
    probe = subprocess.run([sys.executable, "-c", "import starlette"], env=without_web, capture_output=True, text=True)
    assert probe.returncode != 0 and "starlette" in probe.stderr


@pytest.mark.parametrize(
    "verb",
    [["gridworld", "assist"], ["train", "ssrl"], ["household", "assist"], ["stories", "generate"], ["report", "study"]],
    ids=" ".join,
)
def test_verbs_build_their_parser_without_the_web_stack(without_web: dict[str, str], verb: list[str]) -> None:
    run = mindzero(without_web, *verb, "--help")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"usage: mindzero {' '.join(verb)}")


def test_a_real_run_without_the_web_stack(without_web: dict[str, str], tmp_path: Path) -> None:
    run = mindzero(without_web, "gridworld", "assist", "--reasoner", "exact", "--episodes", "1", "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "results.json").is_file()


def test_serve_names_the_missing_package_in_one_line(without_web: dict[str, str]) -> None:
    run = mindzero(without_web, "serve")
    assert run.returncode == 2
    expected = "mindzero: error: mindzero serve needs starlette: pip install starlette uvicorn"
    assert run.stderr.strip().splitlines() == [expected]
