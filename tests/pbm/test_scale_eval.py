"""``stories scale-eval`` and ``pbm-data`` end to end: the synthetic policy with the oracle, a tiny local
model as policy with a tiny PBM as verifier (beam search included), and the vLLM path through a stand-in
``vllm`` module that runs the same tiny model."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from mindzero.cli import main


@pytest.fixture(scope="module")
def tiny_pbm(tiny_model_dir, tmp_path_factory) -> Path:
    """An untrained PBM: the tiny model marked as a PBM checkpoint (plumbing, not accuracy)."""
    from transformers import AutoTokenizer

    from mindzero.pbm.model import make_pbm_config, write_pbm_config

    folder = tmp_path_factory.mktemp("pbm") / "final"
    shutil.copytree(tiny_model_dir, folder)
    write_pbm_config(folder, make_pbm_config(AutoTokenizer.from_pretrained(str(folder)), "tiny", 1024))
    return folder


def test_synthetic_scale_eval_on_ood_is_deterministic(tmp_path) -> None:
    args = ["stories", "scale-eval", "--data", "ood", "--trials", "5", "--ns", "1,4,16"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a" / "samples.jsonl").read_bytes()
    assert a == (tmp_path / "b" / "samples.jsonl").read_bytes()
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    acc = results["metrics"]["accuracy"]
    assert set(acc) == {f"{s}-{h}" for s in ("vanilla", "weighted") for h in ("last", "min", "avg", "prod")} | {
        "majority"
    }
    assert set(acc["weighted-min"]["16"]["by_order"]) == {"0", "1", "2"}
    assert acc["weighted-min"]["16"]["avg"] > acc["weighted-min"]["1"]["avg"]
    assert results["metrics"]["n_questions"] == 132 and len(a.splitlines()) == 132
    assert (tmp_path / "a" / "scaling.png").stat().st_size > 10_000


def _tiny_run(tmp_path: Path, policy: str, verifier: str, beam: bool = True) -> dict:
    code = main(
        [
            "stories", "scale-eval", "--data", "ood", "--per-order", "1", "--with-example", "false",
            "--policy", policy, "--verifier", verifier, "--pool", "2", "--ns", "1,2", "--trials", "2",
            "--max-new-tokens", "16", "--beam", str(beam), "--beam-k", "1", "--beam-b", "2",
            "--step-tokens", "6", "--out", str(tmp_path),
        ]
    )  # fmt: skip
    assert code == 0
    return json.loads((tmp_path / "results.json").read_text())["metrics"]


def test_tiny_policy_with_tiny_pbm_and_beam_search(tiny_model_dir, tiny_pbm, tmp_path) -> None:
    metrics = _tiny_run(tmp_path, f"hf:{tiny_model_dir}", str(tiny_pbm))
    usage = metrics["usage"]
    assert usage["policy"]["completion_tokens"] > 0 and usage["policy"]["tflops"] > 0
    assert usage["verifier"]["tokens"] > 0 and metrics["beam"]["policy_usage"]["calls"] > 0
    traces = [json.loads(x) for x in (tmp_path / "traces.jsonl").read_text().splitlines()]
    assert len(traces) == 6 and all(len(t["step_scores"]) == len(t["step_labels"]) for t in traces)


def test_pbm_step_accuracy_on_the_pools_it_ranks(tiny_pbm, tmp_path, capsys) -> None:
    args = ["stories", "scale-eval", "--data", "ood", "--per-order", "2", "--trials", "2", "--ns", "1,4"]
    assert main([*args, "--verifier", str(tiny_pbm), "--out", str(tmp_path)]) == 0
    assert "Table 4 on the policy's own traces" in capsys.readouterr().out
    metrics = json.loads((tmp_path / "results.json").read_text())["metrics"]["verifier_step_accuracy"]
    traces = [json.loads(x) for x in (tmp_path / "traces.jsonl").read_text().splitlines()]
    threshold = metrics["threshold"]
    steps = [(s > threshold) == bool(y) for t in traces for s, y in zip(t["step_scores"], t["step_labels"])]
    assert metrics["n_steps"] == len(steps) and metrics["step_accuracy"]["micro"] == pytest.approx(
        sum(steps) / len(steps)
    )
    firsts = [t["step_scores"][t["step_labels"].index(0)] <= threshold for t in traces if 0 in t["step_labels"]]
    assert firsts and metrics["to_first_error"]["first_errors_caught"] == pytest.approx(sum(firsts) / len(firsts))


def test_vllm_policy_path_with_a_stand_in_engine(tiny_model_dir, tiny_pbm, tmp_path, monkeypatch) -> None:
    from mindzero.llm import TransformersBackend

    engine = TransformersBackend(tiny_model_dir)
    calls = []

    class SamplingParams:
        def __init__(self, n=1, temperature=1.0, max_tokens=16, seed=None, **kw):
            self.n, self.temperature, self.max_tokens, self.seed = n, temperature, max_tokens, seed

    class LLM:
        def __init__(self, model, dtype="auto", **kw):
            calls.append(model)

        def get_tokenizer(self):
            return engine.tokenizer

        def generate(self, inputs, params, use_tqdm=False):
            out = []
            for inp, p in zip(inputs, params):
                text = engine.tokenizer.decode(inp["prompt_token_ids"])
                gens = engine.generate([text], p.n, p.temperature, p.max_tokens, p.seed)[0]
                comps = [types.SimpleNamespace(text=g.text, token_ids=[0] * g.completion_tokens, finish_reason="stop")
                         for g in gens]  # fmt: skip
                out.append(types.SimpleNamespace(prompt_token_ids=inp["prompt_token_ids"], outputs=comps))
            return out

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=LLM, SamplingParams=SamplingParams))
    metrics = _tiny_run(tmp_path, f"vllm:{tiny_model_dir}", str(tiny_pbm), beam=False)
    assert calls == [str(tiny_model_dir)]
    assert metrics["usage"]["policy"]["completion_tokens"] > 0


def test_pbm_data_gold_source_jsonl_and_hf(tmp_path) -> None:
    datasets = pytest.importorskip("datasets")
    assert main(["stories", "pbm-data", "--stories", "3", "--out", str(tmp_path)]) == 0
    rows = [json.loads(x) for x in (tmp_path / "stepwise.jsonl").read_text().splitlines()]
    assert len(rows) == 45 and {r["source"] for r in rows} > {"gold"}
    assert all(len(r["completions"]) == len(r["labels"]) for r in rows)
    hf = datasets.load_from_disk(str(tmp_path / "hf"))
    assert hf.num_rows == 45 and hf[7]["labels"] == rows[7]["labels"]


def test_bad_options_are_one_line_errors(tmp_path, capsys) -> None:
    assert main(["stories", "scale-eval", "--ns", "1,32", "--out", str(tmp_path)]) == 2
    assert "exceeds --pool" in capsys.readouterr().err
    assert main(["stories", "scale-eval", "--data", "nope", "--out", str(tmp_path)]) == 2
    assert main(["stories", "scale-eval", "--data", "ood", "--semantics", "nope", "--out", str(tmp_path)]) == 2
    assert "--semantics must be one of hitom, del; got nope" in capsys.readouterr().err
    assert main(["stories", "scale-eval", "--out", str(tmp_path)]) == 2  # data=hitom: the file must be named
    err = capsys.readouterr().err
    assert "--hitom PATH" in err and "github.com/ying-hui-he/Hi-ToM_dataset" in err


def test_semantics_option_labels_the_questions(tmp_path) -> None:
    def answers(semantics: str) -> tuple[list, dict]:
        args = ["stories", "scale-eval", "--data", "generated", "--stories", "20", "--pool", "4", "--ns", "1,4"]
        assert main([*args, "--trials", "2", "--semantics", semantics, "--out", str(tmp_path / semantics)]) == 0
        rows = [json.loads(x) for x in (tmp_path / semantics / "samples.jsonl").read_text().splitlines()]
        results = json.loads((tmp_path / semantics / "results.json").read_text())
        return [r["answer"] for r in rows], results

    hitom, hitom_results = answers("hitom")
    dl, del_results = answers("del")
    assert hitom_results["config"]["semantics"] == "hitom" and del_results["config"]["semantics"] == "del"
    assert len(hitom) == len(dl) == 100 and 0 < sum(a != b for a, b in zip(hitom, dl)) < 20


def test_stories_in_own_words_are_read_labelled_and_searched(tmp_path, capsys) -> None:
    """``--data own-words``: each story the reader reads whole becomes questions over the events it
    read (shown in the templates' words, labelled by the engine); a story with an unread sentence is
    left out and named, never guessed."""
    from mindzero.tasks.stories_ood import load_own_words_questions

    rows = [
        {
            "id": "kitchen",
            "text": "Ann and Bob are in the kitchen. The pear's in the red box. Bob heads out. "
            "Ann pops the pear into the blue crate.",
            "questions": ["Where's the pear really?", "Where will Bob look for the pear?"],
        },
        {"id": "unread", "text": "Ann and Bob are in the den. Ann juggles the pear.", "questions": ["Where is it?"]},
    ]
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    questions, refused = load_own_words_questions(path)
    assert refused == ["unread"]
    assert [(q.order, q.answer) for q in questions] == [(0, "blue_crate"), (1, "red_box")]
    assert questions[0].lines[-1] == "Ann moved the pear to the blue_crate."
    assert questions[0].containers == ("red_box", "blue_crate")
    args = ["stories", "scale-eval", "--data", "own-words", "--own-words", str(path), "--trials", "2", "--ns", "1,4"]
    assert main([*args, "--out", str(tmp_path / "run")]) == 0
    assert "1 of 2 stories read whole, 2 questions" in capsys.readouterr().out
    assert main(["stories", "scale-eval", "--data", "own-words", "--out", str(tmp_path / "none")]) == 2
