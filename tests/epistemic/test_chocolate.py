"""The paper's Mary/Alice chocolate example (DEL-ToM Figure 2) and the product-update definition."""

from __future__ import annotations

import random

import pytest

from mindzero.epistemic import (
    TOP,
    Action,
    And,
    Atom,
    B,
    EpistemicModel,
    EventModel,
    Not,
    Or,
    PointedModel,
    PreconditionFailed,
    believes_chain,
    contract,
    generated_submodel,
    holds,
    product_update,
    update,
)

AGENTS = ("Mary", "Alice")
TABLE, CUPBOARD = Atom("table"), Atom("cupboard")


def state4() -> PointedModel:
    """State 4: both present, chocolate on the table, R_M = R_A = {(w4, w4)}."""
    m = EpistemicModel.build(
        AGENTS, {"w4": {"table"}}, {"Mary": {("w4", "w4")}, "Alice": {("w4", "w4")}}, atoms=["cupboard"]
    )
    return PointedModel(m, 0)


def mary_exits() -> Action:
    """Action 5: pre ⊤, post table; everybody sees Mary leave."""
    return Action(EventModel(("e5",), (TOP,), (TABLE,), {}), 0)


def alice_moves_unseen_by_mary() -> Action:
    """Action 6: Alice moves the chocolate; Mary (absent) thinks nothing happened (event 'skip')."""
    em = EventModel(
        events=("e6", "skip"),
        pre=(TOP, TOP),
        post=(And((CUPBOARD, Not(TABLE))), TOP),
        relations={"Alice": ((0,), (1,)), "Mary": ((1,), (1,))},
    )
    return Action(em, 0)


def test_chocolate_example_nested_belief() -> None:
    s = update(update(state4(), mary_exits()), alice_moves_unseen_by_mary())
    assert s.holds(CUPBOARD) and not s.holds(TABLE)
    assert s.holds(B("Alice", CUPBOARD))
    assert s.holds(B("Mary", TABLE)) and not s.holds(B("Mary", CUPBOARD))
    # "Mary believes that Alice believes the chocolate is on the table."
    assert s.holds(B("Mary", B("Alice", TABLE)))
    assert not s.holds(B("Alice", B("Mary", CUPBOARD)))
    assert s.holds(B("Alice", B("Mary", TABLE)))
    assert s.holds(believes_chain(("Alice", "Mary", "Alice"), TABLE))


def test_full_product_matches_definition_3() -> None:
    m = product_update(update(state4(), mary_exits()).model, alice_moves_unseen_by_mary().model)
    assert m.n_worlds == 2
    w6 = m.labels.index(((("w4", "e5")), "e6"))
    skip = m.labels.index(((("w4", "e5")), "skip"))
    assert m.true_atoms(w6) == {"cupboard"}
    assert m.true_atoms(skip) == {"table"}  # post ⊤ keeps the old valuation
    assert m.successors("Mary", w6) == (skip,)
    assert m.successors("Alice", w6) == (w6,)


def test_precondition_failure_raises() -> None:
    em = EventModel(("e",), (CUPBOARD,), (TOP,), {})
    with pytest.raises(PreconditionFailed):
        update(state4(), Action(em, 0))


def test_product_update_drops_pairs_whose_precondition_fails() -> None:
    em = EventModel(("only_if_table", "only_if_cupboard"), (TABLE, CUPBOARD), (TOP, TOP), {})
    m = product_update(state4().model, em)
    assert [lab[1] for lab in m.labels] == ["only_if_table"]


def test_postcondition_must_be_literals() -> None:
    em = EventModel(("e",), (TOP,), (Or((TABLE, CUPBOARD)),), {})
    with pytest.raises(ValueError):
        update(state4(), Action(em, 0))


def _random_formula(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.3:
        return Atom(rng.choice("pq"))
    k = rng.randrange(4)
    if k == 0:
        return Not(_random_formula(rng, depth - 1))
    if k == 1:
        return And((_random_formula(rng, depth - 1), _random_formula(rng, depth - 1)))
    if k == 2:
        return Or((_random_formula(rng, depth - 1), _random_formula(rng, depth - 1)))
    return B(rng.choice("ab"), _random_formula(rng, depth - 1))


def _random_model(rng: random.Random) -> EpistemicModel:
    n = rng.randint(1, 5)
    worlds = {i: {p for p in "pq" if rng.random() < 0.5} for i in range(n)}
    rels = {a: {(w, v) for w in range(n) for v in range(n) if rng.random() < 0.4} for a in "ab"}
    return EpistemicModel.build(("a", "b"), worlds, rels, atoms=["p", "q"])


def _random_event_model(rng: random.Random) -> EventModel:
    k = rng.randint(1, 3)
    pre = tuple(TOP if rng.random() < 0.5 else _random_formula(rng, 2) for _ in range(k))
    post = tuple(rng.choice([TOP, Atom("p"), Not(Atom("q")), And((Atom("q"), Not(Atom("p"))))]) for _ in range(k))
    rels = {a: tuple(tuple(f for f in range(k) if rng.random() < 0.5) for _ in range(k)) for a in "ab"}
    return EventModel(tuple(range(k)), pre, post, rels)


def test_lazy_pointed_update_agrees_with_full_product_on_random_models() -> None:
    """update() = product_update + generated submodel + contraction, checked on random formulas."""
    rng = random.Random(0)
    checked = 0
    for _ in range(300):
        m, em = _random_model(rng), _random_event_model(rng)
        w, e = rng.randrange(m.n_worlds), rng.randrange(len(em.events))
        if not holds(m, w, em.pre[e]):
            continue
        full = product_update(m, em)
        w_full = full.labels.index((m.label(w), e))
        lazy = update(PointedModel(m, w), Action(em, e))
        sub = contract(generated_submodel(full, w_full))
        assert lazy.model.n_worlds == sub.model.n_worlds <= full.n_worlds
        for _ in range(10):
            phi = _random_formula(rng, 4)
            assert holds(full, w_full, phi) == lazy.holds(phi) == sub.holds(phi)
            checked += 1
    assert checked > 1000


def test_contraction_merges_bisimilar_worlds_and_keeps_truth() -> None:
    # w1 and w2 are copies (same atoms, same successors): one world after contraction.
    m = EpistemicModel.build(
        AGENTS,
        {"w0": {"table"}, "w1": {"cupboard"}, "w2": {"cupboard"}},
        {"Mary": {("w0", "w1"), ("w0", "w2"), ("w1", "w1"), ("w2", "w2")}, "Alice": {("w0", "w0")}},
    )
    small = contract(PointedModel(m, 0))
    assert small.model.n_worlds == 2
    for phi in (B("Mary", CUPBOARD), B("Alice", TABLE), B("Mary", B("Mary", Not(TABLE))), Or((TABLE, CUPBOARD))):
        assert small.holds(phi) == holds(m, 0, phi)
    # Unreachable worlds disappear from the generated submodel.
    assert generated_submodel(m, 1).model.n_worlds == 1


def test_update_minimises_unless_asked_not_to() -> None:
    m = EpistemicModel.build(
        AGENTS,
        {"w0": {"table"}, "w1": {"cupboard"}, "w2": {"cupboard"}},
        {"Mary": {("w0", "w1"), ("w0", "w2"), ("w1", "w1"), ("w2", "w2")}, "Alice": {("w0", "w0")}},
    )
    look = Action(EventModel(("look",), (TOP,), (TOP,), {}), 0)
    assert update(PointedModel(m, 0), look, minimise=False).model.n_worlds == 3
    assert update(PointedModel(m, 0), look).model.n_worlds == 2
