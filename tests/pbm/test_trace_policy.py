"""The trace-writing policy (``train trace-policy``) and the ``cpu-tiny`` PBM: presets build and run
in seconds with tiny sizes, the results are ordinary model folders usable as ``--policy`` and as a
verifier, scores stay in [0, 1] on garbage, and scale-eval with them is deterministic by seed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.pbm.data import INSTRUCTIONS, policy_messages
from mindzero.pbm.model import READOUTS
from mindzero.stories.traces import render_gold_trace
from mindzero.train.pbm import PBMConfig, train_pbm
from mindzero.train.trace_policy import (
    POLICY_SEED_OFFSET,
    TracePolicyConfig,
    TraceScratch,
    policy_rows,
    tokenized,
    train_trace_policy,
    training_questions,
)

pytest.importorskip("trl")

TINY = TraceScratch(hidden=16, layers=1, heads=2, vocab=1200)


@pytest.fixture(scope="module")
def policy(tmp_path_factory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("policy") / "run"
    config = TracePolicyConfig(
        out=str(out), scratch=TINY, stories=4, max_steps=2, batch_size=2, save_steps=1, copy_warmup_steps=2
    )
    return train_trace_policy(config), out


def test_policy_preset_builds_and_trains_in_seconds(policy) -> None:
    summary, out = policy
    assert summary["steps"] == 2 and summary["questions"] == 20
    assert summary["seconds"] < 60 and summary["parameters"] < 50_000
    assert (out / "final" / "config.json").is_file() and (out / "checkpoint-2").is_dir()
    log = [json.loads(x) for x in (out / "train_log.jsonl").read_text().splitlines()]
    assert log and log[-1]["step"] == 2


def test_copy_warmup_runs_first_and_shows_every_sequence_twice(policy) -> None:
    from mindzero.train.copy_warmup import MAX_ALPHABET, SEQUENCE_TOKENS, copy_rows

    _, out = policy
    recorded = json.loads((out / "trace_policy_config.json").read_text())
    assert recorded["model_path"] == str(out / "copy-warmup") and (out / "copy-warmup" / "tokenizer.json").is_file()
    assert json.loads((out / "copy-warmup.jsonl").read_text().splitlines()[-1])["step"] == 2
    assert not (out / "copy-warmup.run").exists()
    rows = copy_rows(50, list(range(10, 400)), seed=3)
    assert rows == copy_rows(50, list(range(10, 400)), seed=3) != copy_rows(50, list(range(10, 400)), seed=4)
    for row in rows:
        ids, mask = row["input_ids"], row["completion_mask"]
        assert ids[:SEQUENCE_TOKENS] == ids[SEQUENCE_TOKENS:] and len(mask) == len(ids)
        # the loss is on the second showing only, from its second token (its first is not yet implied)
        assert mask.index(1) == SEQUENCE_TOKENS + 1 and all(mask[SEQUENCE_TOKENS + 1 :])
        assert 4 <= len(set(ids)) <= MAX_ALPHABET and min(ids) >= 10
    with pytest.raises(UserError, match="scratch"):
        train_trace_policy(TracePolicyConfig(out=str(out / "x"), model=str(out / "final"), copy_warmup_steps=5))


def test_same_seed_same_policy_bytes(tmp_path) -> None:
    """Copy warm-up, tokenizer and SFT are deterministic by seed: the whole folder, not only the loss."""

    def run(name: str, seed: int) -> tuple[bytes, bytes]:
        config = TracePolicyConfig(
            out=str(tmp_path / name), scratch=TINY, stories=4, max_steps=2, batch_size=2, copy_warmup_steps=2, seed=seed
        )
        final = Path(train_trace_policy(config)["final_model"])
        return (final / "model.safetensors").read_bytes(), (final / "tokenizer.json").read_bytes()

    first = run("a", 0)
    assert run("b", 0) == first
    assert run("c", 1)[0] != first[0]


def test_trace_tokenizer_keeps_values_whole_and_masks_the_prompt(policy) -> None:
    from transformers import AutoTokenizer

    _, out = policy
    tokenizer = AutoTokenizer.from_pretrained(str(out / "final"))
    assert len(tokenizer(INSTRUCTIONS, add_special_tokens=False).input_ids) == 1
    q = training_questions(1, 0, [1])[0]
    assert len(tokenizer.tokenize(f" {q.containers[0]}")) == 1  # a value word is one token
    row = policy_rows([q])[0]
    item = tokenized(row, tokenizer)
    n = sum(item["completion_mask"])
    completion = tokenizer.decode(item["input_ids"][-n:], skip_special_tokens=True)
    assert completion == row["completion"] and item["completion_mask"][0] == 0
    assert tokenizer.decode(item["input_ids"]).count(INSTRUCTIONS) == 1


def test_training_stories_are_not_the_evaluation_stories() -> None:
    train = training_questions(2, 0, [1])
    assert POLICY_SEED_OFFSET > 0
    from mindzero.pbm.data import questions_from_stories
    from mindzero.stories.generator import generate_stories

    evaluated = list(questions_from_stories(generate_stories(2, 0, (1,))))
    assert {q.lines for q in train}.isdisjoint({q.lines for q in evaluated})


def test_resume_continues_and_a_wrong_model_is_one_line(policy, tmp_path) -> None:
    _, out = policy
    config = TracePolicyConfig(out=str(out), scratch=TINY, stories=4, max_steps=3, batch_size=2, resume=True)
    summary = train_trace_policy(config)
    assert summary["steps"] == 3 and summary["resumed_from"].endswith("checkpoint-2")
    with pytest.raises(UserError):
        train_trace_policy(TracePolicyConfig(out=str(tmp_path / "x"), model=str(tmp_path / "missing")))


def test_policy_folder_writes_traces_as_a_policy(policy) -> None:
    from mindzero.inference.belief_search import BackendPolicy
    from mindzero.llm import load_backend

    _, out = policy
    questions = training_questions(1, 5, [1])[:2]
    sampler = BackendPolicy(load_backend(f"hf:{out / 'final'}"), 1.0, 24, with_example=False)
    first = sampler.sample(questions, 2, seed=3)
    assert first == sampler.sample(questions, 2, seed=3)
    assert len(first) == 2 and all(len(p) == 2 for p in first)


@pytest.fixture(scope="module")
def tiny_scratch_pbm(tmp_path_factory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("pbm") / "run"
    config = PBMConfig(
        preset="cpu-tiny",
        out=str(out),
        scratch=TINY,
        stories=4,
        max_steps=1,
        heldout_fraction=0.25,
        max_length=512,
        copy_warmup_steps=2,
    )
    return train_pbm(config), out


def test_cpu_tiny_pbm_preset_runs_one_step(tiny_scratch_pbm) -> None:
    summary, out = tiny_scratch_pbm
    assert summary["steps"] == 1 and summary["seconds"] < 120
    assert (out / "scratch" / "config.json").is_file() and (out / "final" / "pbm_config.json").is_file()
    assert (out / "copy-warmup" / "config.json").is_file()  # the scratch PBM copied before it judged
    with pytest.raises(UserError, match="scratch"):
        train_pbm(PBMConfig(preset="cpu-tiny", model=str(out / "final"), copy_warmup_steps=3, out=str(out / "x")))
    with pytest.raises(UserError, match="scratch"):  # the preset's pretrained model, not only --model
        train_pbm(PBMConfig(preset="cpu-small", copy_warmup_steps=3, out=str(out / "y")))
    acc = summary["eval"]["step_accuracy"]
    assert all(0 <= v <= 1 for v in acc["by_order"].values())
    held = [json.loads(x) for x in (out / "heldout.jsonl").read_text().splitlines()]
    for order, share in summary["eval"]["always_plus"]["by_order"].items():
        labels = [y for r in held if str(r["question_order"]) == order for y in r["labels"]]
        assert share == pytest.approx(sum(labels) / len(labels))


def test_belief_targets_are_what_the_engine_says_each_step_should_claim(tiny_scratch_pbm) -> None:
    import re

    from transformers import AutoTokenizer

    from mindzero.pbm.data import gold_and_corrupted_rows, questions_from_stories
    from mindzero.pbm.model import CLAIMS, encode_trace, make_pbm_config, step_piece
    from mindzero.stories.generator import generate_stories
    from mindzero.stories.traces import NULL
    from mindzero.train.pbm import StepDataset

    _, out = tiny_scratch_pbm
    tokenizer = AutoTokenizer.from_pretrained(out / "final")
    pbm = make_pbm_config(tokenizer, "tiny", 4096)
    tag = tokenizer(pbm["tag"], add_special_tokens=False).input_ids
    rows = gold_and_corrupted_rows(questions_from_stories(generate_stories(6, 5, (1,))), 3, 5)
    assert any(r["source"] == "corrupt:skipped_step" for r in rows)
    plain = StepDataset(rows, tokenizer, pbm).items
    with_claims = StepDataset(rows, tokenizer, pbm, belief_targets=True).items
    differing = {claim: 0 for claim in CLAIMS}
    for row, a, b in zip(rows, plain, with_claims):
        assert a["input_ids"] == b["input_ids"]
        assert all(x == -100 or x == t for x, t in zip(a["labels"], b["labels"]))  # the +/- targets are kept
        ids = b["input_ids"]
        targets = {i: t for i, (x, t) in enumerate(zip(a["labels"], b["labels"])) if x != t}
        _, positions = encode_trace(tokenizer, tag, row["prompt"], row["completions"], 4095)
        last_line = 0
        for p, step in zip(positions, row["completions"]):
            number = int(re.search(r"Step (\d+)", step).group(1))
            value = row["line_labels"][number - 1]
            engine = {
                "value": value if value is not None else NULL,
                "number": str(last_line + 1),  # the line the checker expects next
            }
            piece = step_piece(step)
            first = p - len(tag) - len(tokenizer(piece, add_special_tokens=False).input_ids) + 1
            mine = {i - first: t for i, t in targets.items() if first <= i <= p}
            fixed = {}  # the step's tokens had each part read what the engine says
            for claim, find in CLAIMS.items():
                span = find(piece)
                fixed[claim] = tokenizer(piece[: span[0]] + engine[claim] + piece[span[1] :], add_special_tokens=False)
                differing[claim] += piece[slice(*span)] != engine[claim]
            wrong_parts = sum(piece[slice(*find(piece))] != engine[c] for c, find in CLAIMS.items())
            assert mine and all(any(f.input_ids[i] == t for f in fixed.values()) for i, t in mine.items())
            assert sum(t != ids[first + i] for i, t in mine.items()) == wrong_parts  # one per wrong part
            last_line = max(last_line, number)
    assert all(differing.values()), differing  # wrong values and skipped lines
    del rows[0]["line_labels"]
    with pytest.raises(UserError, match="line_labels"):
        StepDataset(rows, tokenizer, pbm, belief_targets=True)


def test_every_score_is_in_unit_interval_on_garbage(tiny_scratch_pbm) -> None:
    from mindzero.inference.belief_search import PBMVerifier

    _, out = tiny_scratch_pbm
    q = training_questions(1, 9, [1])[0]
    gold = render_gold_trace(q.events, q.question, q.labels)
    garbage = [
        "",
        "## Step 1 ##",
        "## Step 1 ##\n\x00\x01 ки + - [[[]]]\n## Step 2 ##\n" + "Ω" * 3000,
        "Final Answer: [x]",
        gold.replace("[", "]"),
        gold * 3,
        policy_messages(q)[0]["content"],
    ]
    for readout in READOUTS:
        scores = PBMVerifier(str(out / "final"), readout=readout).score([q] * len(garbage), garbage)
        assert scores[0] == [] and len(scores[1]) == 1
        assert all(0.0 <= s <= 1.0 for trace in scores for s in trace)
    assert scores[1] == [0.0]  # the value readout: a step without a value is unverifiable
    with pytest.raises(UserError, match="readout"):
        PBMVerifier(str(out / "final"), readout="vibes")


def test_value_readout_is_the_written_values_probability_as_a_running_minimum(tiny_scratch_pbm) -> None:
    import torch

    from mindzero.pbm.data import pbm_problem, split_steps
    from mindzero.pbm.model import ProcessBeliefModel, encode_trace, span_positions
    from mindzero.stories.traces import number_span, value_span

    _, out = tiny_scratch_pbm
    pbm = ProcessBeliefModel(out / "final", readout="value")
    assert pbm.config["claims"] == ["value", "number"]  # the cpu-tiny preset trains both
    q = training_questions(1, 11, [1])[0]
    steps = split_steps(render_gold_trace(q.events, q.question, q.labels))
    (scores,) = pbm.score([pbm_problem(q)], [steps])
    ids, positions = encode_trace(pbm.tokenizer, pbm.tag_ids, pbm_problem(q), steps, pbm.max_length)
    with torch.no_grad():
        logp = pbm.model(torch.tensor([ids])).logits[0].log_softmax(-1)
    expected, values_only, running, running_values = [], [], 1.0, 1.0
    assert positions[0] is not None
    for k, (p, step) in enumerate(zip(positions, steps)):
        if p is None:  # cut off by max_length: unverifiable
            running = running_values = 0.0
            expected.append(running)
            values_only.append(running_values)
            continue
        value = span_positions(pbm.tokenizer, step, p, len(pbm.tag_ids), value_span)
        number = span_positions(pbm.tokenizer, step, p, len(pbm.tag_ids), number_span)
        assert value and pbm.tokenizer.decode([ids[i] for i in value]) in step  # the value's own tokens
        assert pbm.tokenizer.decode([ids[i] for i in number]).strip() == str(k + 1)  # the number's
        p_value, p_claims = (math.exp(sum(float(logp[i - 1, ids[i]]) for i in at)) for at in (value, value + number))
        running, running_values = min(running, p_claims), min(running_values, p_value)
        expected.append(running)
        values_only.append(running_values)
    assert scores == pytest.approx(expected, rel=1e-4)
    assert all(a >= b for a, b in zip(scores, scores[1:]))
    claims = pbm.config.pop("claims")  # a PBM trained before step numbers: its value alone
    assert pbm.score([pbm_problem(q)], [steps])[0] == pytest.approx(values_only, rel=1e-4)
    pbm.config["claims"] = claims
    pbm.readout = "label"
    (labels,) = pbm.score([pbm_problem(q)], [steps])
    pbm.readout = "both"
    (both,) = pbm.score([pbm_problem(q)], [steps])
    assert both == pytest.approx([math.sqrt(v * x) for v, x in zip(scores, labels)], rel=1e-5)
    every = pbm.score_readouts([pbm_problem(q)], [steps])  # one forward pass, every readout
    assert (every["value"], every["label"], every["both"]) == ([scores], [labels], [both])


def test_scale_eval_with_trained_policy_and_pbm_is_deterministic_with_oracle_beside(
    policy, tiny_scratch_pbm, tmp_path, capsys
) -> None:
    _, policy_out = policy
    _, pbm_out = tiny_scratch_pbm
    args = [
        "stories", "scale-eval", "--data", "generated", "--stories", "2", "--lengths", "1,2",
        "--policy", str(policy_out / "final"), "--verifier", str(pbm_out / "final"), "--with-example", "false",
        "--pool", "4", "--ns", "1,2,4", "--trials", "3", "--max-new-tokens", "24", "--temperature", "1.0",
    ]  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    a, b = (json.loads((tmp_path / d / "results.json").read_text())["metrics"] for d in "ab")
    assert a["accuracy"] == b["accuracy"] and a["oracle_accuracy"] == b["oracle_accuracy"]
    cost = a["cost"]
    assert cost["2"]["bon"]["tokens"] == pytest.approx(2 * cost["1"]["bon"]["tokens"])
    assert 0 < cost["4"]["majority"]["tflops"] < cost["4"]["bon"]["tflops"]
    # the oracle beside the PBM ranks the same pools on the same subsets as an oracle run would
    reuse = [*args[:8], "--verifier", "oracle", "--reuse-traces", str(tmp_path / "a" / "traces.jsonl")]
    assert main([*reuse, *args[12:], "--out", str(tmp_path / "o")]) == 0
    oracle = json.loads((tmp_path / "o" / "results.json").read_text())["metrics"]
    assert oracle["accuracy"] == a["oracle_accuracy"] and "oracle_accuracy" not in oracle
    # rescoring samples nothing, but the traces cost what they cost: the earlier run's policy cost per trace
    for n in ("1", "4"):
        assert oracle["cost"][n]["majority"] == pytest.approx(a["cost"][n]["majority"])
    assert oracle["usage"]["policy_tokens_per_trace"] == pytest.approx(a["usage"]["policy_tokens_per_trace"])
    (tmp_path / "a" / "results.json").unlink()  # without it the table counts the verifier only, and says so
    assert main([*reuse, *args[12:], "--out", str(tmp_path / "p")]) == 0
    assert "no policy cost" in capsys.readouterr().out
    alone = json.loads((tmp_path / "p" / "results.json").read_text())["metrics"]
    assert alone["cost"]["4"]["majority"]["tokens"] == 0 and alone["accuracy"] == oracle["accuracy"]
