"""The parser's plain-JSON fast path decides exactly as the pydantic validator path does.

The reference is the same parser with the fast path switched off, on outputs near the schema:
valid ones, and ones with a single wrong type, value, key or character in them."""

from __future__ import annotations

import json
import math
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mindzero.domains.gridworld import hypotheses
from mindzero.domains.gridworld.hypotheses import _ADAPTER, _object_index, _plain_match, parse_goal_particles

OBJECTS = [("red", "square"), ("blue", "circle"), ("green", "star"), ("cyan", "triangle")]


def reference(text, n_particles=None, p_floor=1e-3):
    """The validator path alone."""
    with mock.patch.object(hypotheses, "_plain_match", return_value=None):
        return parse_goal_particles(text, OBJECTS, n_particles, p_floor)


class Obj:
    """A JSON object as written: key order and duplicate keys kept."""

    def __init__(self, pairs):
        self.pairs = pairs


class Raw:
    """A token written verbatim (NaN, 1e400, -0, ...)."""

    def __init__(self, text):
        self.text = text


def dumps(value, sep: str) -> str:
    if isinstance(value, Obj):
        return "{" + f",{sep}".join(f"{json.dumps(k)}:{sep}{dumps(v, sep)}" for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + f",{sep}".join(dumps(v, sep) for v in value) + "]"
    if isinstance(value, Raw):
        return value.text
    return json.dumps(value)


names = st.sampled_from([c for c, _ in OBJECTS] + [s for _, s in OBJECTS])
name = st.one_of(
    names,
    names.map(str.upper),
    names.map(lambda s: f" {s} "),
    names.map(lambda s: s[:-1]),
    st.text(max_size=6),
    st.just("red\ud800"),  # a lone surrogate: not valid JSON once escaped
    st.integers(-2, 2),
    st.none(),
    st.booleans(),
    st.just([]),
)
number = st.one_of(
    st.floats(-0.5, 1.5),
    st.floats(0, 1),
    st.integers(-1, 2),
    st.booleans(),
    st.sampled_from(["0.5", " 0.25 ", "1", "abc", "", "nan"]),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "-0.0", "1E-400", "0.10000000000000001"]).map(Raw),
    st.none(),
)


def mostly(valid: st.SearchStrategy, other: st.SearchStrategy) -> st.SearchStrategy:
    """``valid`` three times in four, else ``other``."""
    return st.integers(0, 3).flatmap(lambda k: valid if k else other)


def jobject(required: dict, wrong) -> st.SearchStrategy[Obj]:
    """An object with the ``required`` keys; one in four has one missing, repeated, extra or retyped."""

    @st.composite
    def build(draw):
        pairs = [(k, draw(v)) for k, v in required.items()]
        pairs = draw(st.permutations(pairs))
        change = draw(mostly(st.just("none"), st.sampled_from(["drop", "duplicate", "extra", "retype"])))
        if change == "drop":
            pairs.pop(draw(st.integers(0, len(pairs) - 1)))
        elif change == "duplicate":
            k, _ = pairs[draw(st.integers(0, len(pairs) - 1))]
            pairs.insert(draw(st.integers(0, len(pairs))), (k, draw(required[k])))
        elif change == "extra":
            pairs.append((draw(st.sampled_from(["extra", "P", "colour"])), draw(st.one_of(number, name))))
        elif change == "retype":
            i = draw(st.integers(0, len(pairs) - 1))
            pairs[i] = (pairs[i][0], draw(wrong))
        return Obj(pairs)

    return build()


@st.composite
def obj(draw) -> Obj:
    """One of the objects, mostly spelled as given."""
    color, shape = draw(st.sampled_from(OBJECTS))
    return draw(jobject({"color": mostly(st.just(color), name), "shape": mostly(st.just(shape), name)}, wrong))


wrong = st.one_of(st.just([]), st.just({}), st.text(max_size=3), st.integers(), st.none())
particle = jobject({"object1": obj(), "object2": obj(), "p": mostly(st.floats(0, 1), number)}, wrong)
document = st.one_of(jobject({"particles": st.lists(particle, max_size=5)}, wrong), st.lists(particle, max_size=2))


def plain_text(draw) -> str:
    """``json.dumps`` of particles naming the objects as given; p mostly valid."""
    particles = [
        {
            "object1": dict(zip(("color", "shape"), draw(st.sampled_from(OBJECTS)))),
            "object2": dict(zip(("color", "shape"), draw(st.sampled_from(OBJECTS)))),
            "p": draw(mostly(st.floats(0, 1), st.one_of(st.floats(-1, 2), st.booleans(), st.text(max_size=4)))),
        }
        for _ in range(draw(st.integers(0, 5)))
    ]
    return json.dumps({"particles": particles})


@st.composite
def outputs(draw) -> str:
    text = dumps(draw(document), draw(st.sampled_from(["", " ", "\n  "]))) if draw(st.booleans()) else plain_text(draw)
    wrap = draw(st.sampled_from(["none", "none", "fence", "prose", "truncate", "pad", "two", "surrogate"]))
    if wrap == "fence":
        text = f"Sure:\n```json\n{text}\n```"
    elif wrap == "prose":
        text = f"The goals are {text} I think."
    elif wrap == "truncate":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif wrap == "pad":
        text = f" \n{text}\t"
    elif wrap == "two":
        text = f"```\n{{}}\n```\n{text}"
    elif wrap == "surrogate":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + "\ud800" + text[at:]
    return text


@settings(max_examples=600, deadline=None)
@given(text=outputs(), n_particles=st.one_of(st.none(), st.integers(0, 6)))
@example(
    text='{"particles": [{"object1": {"color": "red", "shape": "square"}, '
    '"object2": {"color": "blue", "shape": "circle"}, "p": true}]}',
    n_particles=None,
)
def test_fast_path_decides_as_the_validator(text, n_particles):
    got = parse_goal_particles(text, OBJECTS, n_particles)
    assert got == reference(text, n_particles)
    assert got.ok == (got.posterior is not None)


@settings(max_examples=200, deadline=None)
@given(text=outputs())
def test_fast_path_output_is_validator_accepted(text):
    """Whatever the fast path accepts, the validator accepts with the same values."""
    index, pairs = _object_index(tuple(OBJECTS))
    fast = _plain_match(text, pairs, None, 1e-3)
    if fast is not None:
        particles = _ADAPTER.validate_json(text).particles
        merged: dict[tuple[int, int], float] = {}
        for particle in particles:
            pair = tuple(sorted(index[o.color, o.shape] for o in (particle.object1, particle.object2)))
            merged[pair] = merged.get(pair, 0.0) + max(particle.p, 1e-3)
        assert fast == (merged, len(particles))


@pytest.mark.parametrize(
    "p, accepted",
    [
        ('"0.5"', 0.5),
        ('" 0.25 "', 0.25),
        ("true", 1.0),
        ("1", 1.0),
        ("0", 1e-3),
        ("1.5", None),
        ("NaN", None),
        ('"abc"', None),
        ("null", None),
    ],
)
def test_lax_numbers_go_through_the_validator(p, accepted):
    red_blue = '"object1": {"color": "red", "shape": "square"}, "object2": {"color": "blue", "shape": "circle"}'
    green_blue = '"object1": {"color": "green", "shape": "star"}, "object2": {"color": "blue", "shape": "circle"}'
    text = '{"particles": [{' + red_blue + ', "p": ' + p + "}, {" + green_blue + ', "p": 0.5}]}'
    got = parse_goal_particles(text, OBJECTS)
    assert got == reference(text)
    if accepted is None:
        assert not got.ok and got.reason.startswith("schema: particles.0.p")
    else:
        assert got.ok and math.isclose(got.probs[0], accepted / (accepted + 0.5))


def test_well_formed_output_takes_the_fast_path():
    text = (
        '{"particles": [{"object1": {"color": "red", "shape": "square"}, "object2": {"color": "blue", '
        '"shape": "circle"}, "p": 0.7, "why": "near"}, {"object2": {"shape": "star", "color": "green"}, '
        '"object1": {"color": "red", "shape": "square"}, "p": 1}]}'
    )
    pairs = _object_index(tuple(OBJECTS))[1]
    assert _plain_match(text, pairs, None, 1e-3) == ({(0, 1): 0.7, (0, 2): 1.0}, 2)
    assert _plain_match(text, pairs, 1, 1e-3) is None  # too many: the validator path says why
    assert parse_goal_particles(text, OBJECTS, 1).reason == "2 particles, asked for 1"
    assert parse_goal_particles(text, OBJECTS, 3).reason == "2 particles, asked for 3"
    assert _plain_match(text.replace('"red"', '"Red"'), pairs, None, 1e-3) is None  # normalised match
    assert parse_goal_particles(text.replace('"red"', '"Red"'), OBJECTS).hypotheses == ((0, 1), (0, 2))


def test_zero_probabilities_without_floor_are_a_failure():
    text = (
        '{"particles": [{"object1": {"color": "red", "shape": "square"}, '
        '"object2": {"color": "blue", "shape": "circle"}, "p": 0}]}'
    )
    result = parse_goal_particles(text, OBJECTS, p_floor=0.0)
    assert not result.ok and result.reason == "probabilities sum to 0"
