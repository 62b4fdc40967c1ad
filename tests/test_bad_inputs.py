"""Every verb checks its inputs before it works: a bad option value, config file, data file or output
folder is one line on stderr naming the option or file (and line), exit 2, no traceback, and
nothing written in ``--out``. Options get the same check and message from flags and from YAML."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindzero.cli import main
from mindzero.pbm.model import CONFIG_FILE, KIND

QUESTION = {
    "id": "q1",
    "split": "train",
    "question_type": 1,
    "answer": "a",
    "question": "Which object will the human pick?",
    "layout": "H.0\n.P1\n\n0: red square\n1: blue circle\n",
    "goal": [0, 1],
    "actions": ["right"],
    "given_object": 1,
    "choice_goals": [[0, 1], [1, 0]],
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Bad (and a few good) input files, by name."""
    out = {
        "questions": json.dumps(QUESTION) + "\n",
        "empty": "",
        "broken": json.dumps(QUESTION) + "\n{not json\n",
        "missing": json.dumps({k: v for k, v in QUESTION.items() if k != "split"}) + "\n",
        "mistyped": json.dumps({**QUESTION, "question_type": "one"}) + "\n",
        "array": "[1, 2]\n",
        "walled": "H#..\n##.0\n...1\n.P..\n\n0: red square\n1: blue circle\n",
        "a_file": "I am a file, not a folder\n",
        "bad_yaml": "episodes: 2\nseeds: [1\n",
    }
    paths = {}
    for name, text in out.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text)
    paths["binary"] = tmp_path / "binary.bin"
    paths["binary"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    paths["latin1"] = tmp_path / "latin1.txt"
    paths["latin1"].write_bytes(b'{"id": "a"}\n{"id": "caf\xe9"}\n')
    paths["pbm"] = tmp_path / "pbm"
    paths["pbm"].mkdir()
    (paths["pbm"] / CONFIG_FILE).write_text(json.dumps({"kind": KIND}))
    return paths


def yaml_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return str(path)


ASSIST = ["gridworld", "assist", "--episodes", "1", "--seeds", "1", "--max-steps", "3"]
QA_EVAL = ["gridworld", "qa-eval", "--data", "{questions}"]
#: (argv with {file} placeholders, a fragment the error line must contain). ``--out`` is added last
#: unless the case gives its own.
CASES = [
    # option values, from flags
    (["gridworld", "assist", "--episodes", "0"], "--episodes must be in [1, 10000], got 0"),
    (["gridworld", "assist", "--episodes", "many"], "--episodes must be an integer, got many"),
    (["gridworld", "assist", "--seeds", ","], "--seeds needs at least one value"),
    (["gridworld", "assist", "--seeds", "-1"], "--seeds must be at least 0, got -1"),
    (["gridworld", "assist", "--human-epsilon", "2"], "--human-epsilon must be in [0, 1], got 2.0"),
    (["gridworld", "assist", "--human-epsilon", "nan"], "--human-epsilon must be a finite number, got nan"),
    (["gridworld", "assist", "--human-tau", "0"], "--human-tau must be greater than 0, got 0.0"),
    (["gridworld", "assist", "--human-gamma", "1"], "--human-gamma must be in (0, 1), got 1.0"),
    (["gridworld", "assist", "--max-steps", "-1"], "--max-steps must be in [1, 10000], got -1"),
    (["gridworld", "assist", "--max-steps", "0"], "--max-steps must be in [1, 10000], got 0"),
    (["gridworld", "assist", "--n-objects", "1"], "--n-objects must be in [2, 10], got 1"),
    (["gridworld", "assist", "--n-objects", "2"], "--protocol paper needs --n-objects of at least 3"),
    (["gridworld", "assist", "--protocol", "fast"], "--protocol must be one of paper, reference, ambiguous, quick"),
    (["gridworld", "assist", "--teleport-when", "soon"], "--teleport-when must be one of map-stable, human-holds"),
    (["gridworld", "assist", "--teleport", "-1"], "--teleport must be in [0, 10000], got -1"),
    (["gridworld", "assist", "--reasoner", ""], "--reasoner needs at least one value"),
    (
        ["gridworld", "assist", "--reasoner", "exact,psychic"],
        "--reasoner must be one of none, random, random-episode, oracle",
    ),
    (["gridworld", "assist", "--reasoner", "llm"], "--reasoner llm needs --model"),
    (["household", "assist", "--reasoner", "llm"], "--reasoner llm needs --model"),
    (
        ["gridworld", "assist", "--reasoner", "llm", "--model", "smollm2-135m", "--answer-mode", "score"]
        + ["--n-particles", "8"],
        "--answer-mode score reads the model's probability",
    ),
    (
        ["household", "assist", "--reasoner", "llm", "--model", "smollm2-135m", "--prompt-style", "relative"],
        "--prompt-style relative is not one of this domain's: full, compact",
    ),
    (["gridworld", "assist", "--family", "hills"], "--family must be one of empty, obstacles10"),
    (["gridworld", "assist", "--request-timeout", "0"], "--request-timeout must be greater than 0"),
    (["gridworld", "assist", "--retries", "-1"], "--retries must be in [0, 100], got -1"),
    (["gridworld", "qa-data", "--train-episodes", "-5"], "--train-episodes must be in [1, 100000], got -5"),
    ([*QA_EVAL, "--limit", "-2"], "--limit must be in [1, 10000000], got -2"),
    ([*QA_EVAL, "--reasoner", "psychic"], "--reasoner must be one of none, random, random-episode, oracle, exact, llm"),
    (["gridworld", "qa-eval"], "--data is required"),
    (["stories", "generate", "--n", "0"], "--n must be in [1, 1000000], got 0"),
    (["stories", "generate", "--n", "1", "--noise", "1.5"], "--noise must be in [0, 1], got 1.5"),
    (["stories", "generate", "--n", "1", "--lengths", "1,4"], "--lengths must be one of 1, 2, 3; got 4"),
    (["stories", "pbm-data", "--corruptions", "-1"], "--corruptions must be in [0, 64], got -1"),
    (["stories", "pbm-data", "--batch", "0"], "--batch must be in [1, 4096], got 0"),
    (["stories", "pbm-data", "--source", "gold,policy"], "--source must be one of gold, policy, both"),
    (["stories", "pbm-eval", "--pbm", "{pbm}", "--batch-size", "0"], "--batch-size must be in [1, 4096], got 0"),
    (["stories", "scale-eval", "--per-order", "-1"], "--per-order must be at least 1, got -1"),
    (["stories", "scale-eval", "--ns", "0,4"], "--ns must be in [1, 1024], got 0"),
    (["stories", "scale-eval", "--ns", "1,32"], "largest N (32) exceeds --pool 16"),
    (["stories", "scale-eval", "--error-rate", "inf"], "--error-rate must be a finite number, got inf"),
    (["stories", "scale-eval", "--beam", "maybe"], "--beam must be true or false, got maybe"),
    (["train", "ssrl", "--seed", "-3"], "--seed must be at least 0, got -3"),
    (["train", "ssrl", "--human-epsilon", "-0.1"], "--human-epsilon must be in [0, 1], got -0.1"),
    (["train", "format-sft", "--warm-start-learning-rate", "0"], "--warm-start-learning-rate must be greater than 0"),
    (["train", "pbm", "--heldout-fraction", "1"], "--heldout-fraction must be in (0, 1), got 1.0"),
    (["train", "pbm", "--model", "/nope"], "model path '/nope' does not exist"),  # before any data is built
    (["train", "ablation", "--rows", "none,bogus"], "--rows must be one of none, no-prior, single, no-entropy"),
    (["train", "ablation", "--train-config", "/nope.yaml"], "/nope.yaml: file not found"),
    (["train", "ablation", "--samples", "4"], "4 samples per decision need a temperature > 0"),  # before training
    (["train", "ablation", "--domain", "stories"], "--domain must be one of gridworld, household"),
    (["train", "ablation", "--train-config", "YAML:domain: household"], "trains domain household; pass --domain"),
    (["train", "ablation", "--train-config", "YAML:data: {prompt_style: facts}"], "facts is not one of domain"),
    # option values, from YAML: the same messages
    (["gridworld", "assist", "--config", "YAML:episodes: 0"], "--episodes must be in [1, 10000], got 0"),
    (["gridworld", "assist", "--config", 'YAML:episodes: "many"'], "--episodes must be an integer, got many"),
    (["gridworld", "assist", "--config", "YAML:seeds: 5"], "--seeds must be a list (A,B,... or a YAML list), got 5"),
    (["gridworld", "assist", "--config", "YAML:seeds: []"], "--seeds needs at least one value"),
    (["gridworld", "assist", "--config", "YAML:reasoner: [exact, 5]"], "--reasoner must be text, got 5"),
    (["gridworld", "assist", "--config", "YAML:teleport: true"], "--teleport must be an integer, got true"),
    (["gridworld", "assist", "--config", "YAML:human: {epsilon: .nan}"], "--human-epsilon must be a finite number"),
    (["gridworld", "assist", "--config", "YAML:human: 5"], "human must be a mapping"),
    (["gridworld", "assist", "--config", "YAML:episodes: 1\nbogus: 2"], "unknown keys ['bogus']"),
    (["gridworld", "assist", "--config", "YAML:- 1"], "a config must be a mapping"),
    (["gridworld", "assist", "--config", "{bad_yaml}"], "bad_yaml.txt:3: not valid YAML"),
    (["gridworld", "assist", "--config", "{binary}"], "binary.bin:1: not UTF-8 text"),
    (["gridworld", "assist", "--config", "{latin1}"], "latin1.txt:2: not UTF-8 text"),
    # output folders
    ([*ASSIST, "--out", ""], "--out must not be empty"),
    ([*ASSIST, "--out", "/proc/x"], "--out /proc/x: cannot write there"),
    ([*ASSIST, "--out", "{a_file}"], "a_file.txt is a file, not a folder"),
    ([*ASSIST, "--out", "{a_file}/sub"], "a_file.txt/sub: cannot write there (Not a directory)"),
    (["gridworld", "qa-data", "--out", "{a_file}"], "a_file.txt is a file, not a folder"),
    ([*QA_EVAL, "--out", "/proc/x"], "--out /proc/x: cannot write there"),
    (["stories", "generate", "--n", "1", "--out", ""], "--out must not be empty"),
    (["stories", "scale-eval", "--data", "generated", "--out", "{a_file}"], "is a file, not a folder"),
    (["stories", "pbm-data", "--out", "{a_file}/sub"], "cannot write there (Not a directory)"),
    (["train", "format-sft", "--out", "/proc/x"], "--out /proc/x: cannot write there"),
    # data files: FILE:LINE: what is wrong
    (["gridworld", "qa-eval", "--data", "{empty}"], "empty.txt: no rows (the file is empty)"),
    (["gridworld", "qa-eval", "--data", "{broken}"], "broken.txt:2: not valid JSON"),
    (["gridworld", "qa-eval", "--data", "{missing}"], "missing.txt:1: missing field 'split'"),
    (["gridworld", "qa-eval", "--data", "{mistyped}"], "mistyped.txt:1: field 'question_type' must be int, got str"),
    (["gridworld", "qa-eval", "--data", "{array}"], "array.txt:1: expected a JSON object, got list"),
    (["gridworld", "qa-eval", "--data", "{binary}"], "binary.bin:1: not UTF-8 text"),
    (["gridworld", "qa-eval", "--data", "{latin1}"], "latin1.txt:2: not UTF-8 text"),
    (["gridworld", "qa-eval", "--data", "{pbm}"], "pbm: is a folder, not a file"),
    (["gridworld", "assist", "--layouts", "{walled}"], "walled.txt: the human cannot reach object 0 (red square)"),
    (["gridworld", "assist", "--layouts", "{binary}"], "binary.bin:1: not UTF-8 text"),
    (["stories", "hitom-eval", "--data", "{pbm}"], "pbm: is a folder, not a file"),
    (["stories", "hitom-eval", "--data", "{binary}"], "binary.bin:1: not UTF-8 text"),
    (["stories", "hitom-eval", "--data", "{bad_yaml}"], "bad_yaml.txt:1: not valid JSON"),
    (["stories", "hitom-eval", "--data", "{array}"], "array.txt: record 0: expected a JSON object, got int"),
    (["stories", "pbm-eval", "--pbm", "{pbm}", "--data", "{empty}"], "empty.txt: no rows (the file is empty)"),
    (["stories", "pbm-eval", "--pbm", "{pbm}", "--data", "{questions}"], "questions.txt:1: missing field 'story_id'"),
    (["stories", "scale-eval", "--data", "ood", "--ood", "{broken}"], "broken.txt:1: missing field 'variant'"),
    (["stories", "scale-eval", "--data", "ood", "--ood", "{latin1}"], "latin1.txt:2: not UTF-8 text"),
    (["stories", "scale-eval", "--data", "hitom", "--hitom", "{binary}"], "binary.bin:1: not UTF-8 text"),
]


def expand(argv: list[str], files: dict[str, Path], tmp_path: Path) -> list[str]:
    """Fill ``{name}`` placeholders with input files and ``YAML:text`` with a config file."""
    out = []
    for arg in argv:
        if arg.startswith("YAML:"):
            arg = yaml_file(tmp_path, arg[len("YAML:") :])
        out.append(arg.format(**{k: str(v) for k, v in files.items()}))
    return out


@pytest.mark.parametrize(("argv", "fragment"), CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_input_is_one_line_and_writes_nothing(argv, fragment, files, tmp_path, capsys) -> None:
    argv = expand(argv, files, tmp_path)
    out = tmp_path / "out"
    if "--out" not in argv:
        argv += ["--out", str(out)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "\r" not in captured.err, captured.err
    assert lines[0].startswith("mindzero: error: ") and fragment in lines[0]
    assert "Traceback" not in captured.err and not captured.out
    assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]


def test_flags_and_yaml_give_the_same_message(tmp_path, capsys) -> None:
    for value in ("0", "-3", "2.5", "x"):
        assert main(["gridworld", "assist", "--max-steps", value, "--out", str(tmp_path / "a")]) == 2
        from_flag = capsys.readouterr().err
        config = yaml_file(tmp_path, f"max_steps: {value}")
        assert main(["gridworld", "assist", "--config", config, "--out", str(tmp_path / "b")]) == 2
        assert capsys.readouterr().err == from_flag


def test_valid_values_at_the_bounds_run(tmp_path) -> None:
    argv = [*ASSIST, "--reasoner", "exact", "--human-epsilon", "1", "--teleport", "0", "--n-objects", "2"]
    assert main([*argv, "--protocol", "quick", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["config"]["human"]["epsilon"] == 1.0 and results["config"]["teleport"] == 0
    assert all(math.isfinite(v) for v in results["metrics"].values() if isinstance(v, float))


def test_an_area_without_a_verb_exits_2(capsys) -> None:
    for area in ("gridworld", "stories", "train"):
        with pytest.raises(SystemExit) as exit_info:
            main([area])
        assert exit_info.value.code == 2 and "VERB" in capsys.readouterr().err


#: Values each ``gridworld assist`` field accepts, kept small so that valid configs run fast.
VALID = {
    "episodes": st.integers(1, 3),
    "episode_seed": st.integers(0, 5),
    "family": st.sampled_from([None, "empty", "obstacles10"]),
    "size": st.integers(6, 10),
    "n_objects": st.integers(2, 8),
    "seeds": st.lists(st.integers(0, 9), min_size=1, max_size=2),
    "max_steps": st.integers(1, 4),
    "teleport": st.one_of(st.none(), st.integers(0, 3)),
    "human": st.fixed_dictionaries(
        {}, optional={"epsilon": st.floats(0, 1), "tau": st.floats(0.01, 2), "gamma": st.floats(0.5, 0.99)}
    ),
    "reasoner": st.lists(st.sampled_from(["none", "random", "exact", "oracle"]), min_size=1, max_size=2),
    "n_particles": st.integers(1, 3),
    "temperature": st.floats(0, 2),
    "request_timeout": st.floats(0.1, 60),
}
#: Anything YAML can hold.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 4),
    st.floats(allow_nan=True, allow_infinity=True, width=16),
    st.sampled_from(["", "x", "3", "0.5", "true", "1,2", "exact", "none", "oracle", "llm", "empty"]),
)
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(["epsilon", "tau", "c", "gamma", "other"]), SCALARS, max_size=3),
)
VALID_CONFIGS = st.fixed_dictionaries({}, optional=VALID)
KEYS = st.sampled_from([*VALID, "model", "layouts", "bogus"])
CONFIGS = st.one_of(
    VALID_CONFIGS,
    st.tuples(VALID_CONFIGS, KEYS, VALUES).map(lambda c: {**c[0], c[1]: c[2]}),  # one field holds anything
    st.dictionaries(KEYS, VALUES, max_size=5),
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONFIGS)
def test_random_yaml_configs_never_raise(config: dict) -> None:
    """Whatever a config holds, assist runs (0) or says what is wrong in one line (2); runs stay
    small: at most 4 episodes and 2 seeds of at most 4 ticks."""
    config = {"episodes": 1, "seeds": [1], "max_steps": 3, **config}
    if type(config["episodes"]) is int:
        config["episodes"] = min(config["episodes"], 4)
    if isinstance(config["seeds"], list):
        config["seeds"] = config["seeds"][:2]
    if type(config["max_steps"]) is int:
        config["max_steps"] = min(config["max_steps"], 4)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_text(yaml.safe_dump(config))
        assert main(["gridworld", "assist", "--config", str(path), "--out", str(Path(tmp) / "out")]) in (0, 2)
