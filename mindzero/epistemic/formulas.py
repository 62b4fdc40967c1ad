"""The epistemic language L(P, A): p | ⊤ | ¬φ | φ ∧ ψ | φ ∨ ψ | B_i φ (DEL-ToM §4.2.1).

Formulas are small frozen dataclasses so they hash, compare and print predictably; event models use
them as pre- and postconditions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Top:
    """⊤: the precondition of events that can always happen."""

    def __str__(self) -> str:
        return "⊤"


@dataclass(frozen=True)
class Atom:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Not:
    sub: Formula

    def __str__(self) -> str:
        return f"¬{self.sub}"


@dataclass(frozen=True)
class And:
    subs: tuple[Formula, ...]

    def __str__(self) -> str:
        return "(" + " ∧ ".join(map(str, self.subs)) + ")" if self.subs else "⊤"


@dataclass(frozen=True)
class Or:
    subs: tuple[Formula, ...]

    def __str__(self) -> str:
        return "(" + " ∨ ".join(map(str, self.subs)) + ")" if self.subs else "⊥"


@dataclass(frozen=True)
class B:
    """B_agent φ: φ holds in every world the agent considers possible."""

    agent: str
    sub: Formula

    def __str__(self) -> str:
        return f"B_{self.agent} {self.sub}"


Formula = Top | Atom | Not | And | Or | B

TOP = Top()


def conj(*subs: Formula) -> Formula:
    """Conjunction that flattens to a single formula when given one conjunct."""
    return subs[0] if len(subs) == 1 else And(tuple(subs))


def believes_chain(chain: tuple[str, ...], phi: Formula) -> Formula:
    """B_{a1} B_{a2} ... B_{ak} φ — 'a1 thinks a2 thinks ... φ'; the empty chain is φ itself."""
    for agent in reversed(chain):
        phi = B(agent, phi)
    return phi


def literals(post: Formula) -> tuple[frozenset[str], frozenset[str]]:
    """Split a postcondition into (atoms made true, atoms made false).

    Definition 3 reads postconditions as conjunctions of literals; anything else is rejected so an
    event never has an ambiguous effect on the valuation.
    """
    if isinstance(post, Top):
        return frozenset(), frozenset()
    if isinstance(post, Atom):
        return frozenset({post.name}), frozenset()
    if isinstance(post, Not) and isinstance(post.sub, Atom):
        return frozenset(), frozenset({post.sub.name})
    if isinstance(post, And):
        pos: set[str] = set()
        neg: set[str] = set()
        for sub in post.subs:
            p, n = literals(sub)
            pos |= p
            neg |= n
        if pos & neg:
            raise ValueError(f"contradictory postcondition: {post}")
        return frozenset(pos), frozenset(neg)
    raise ValueError(f"postcondition must be a conjunction of literals, got {post}")
