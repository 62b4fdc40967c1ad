"""Dynamic Epistemic Logic: epistemic models, event models, product update (DEL-ToM §4.2.1)."""

from mindzero.epistemic.formulas import TOP, And, Atom, B, Formula, Not, Or, Top, believes_chain, conj
from mindzero.epistemic.models import (
    Action,
    EpistemicModel,
    EventModel,
    PointedModel,
    PreconditionFailed,
    contract,
    generated_submodel,
    holds,
    product_update,
    public_event,
    reachable,
    update,
)

__all__ = [
    "TOP",
    "Action",
    "And",
    "Atom",
    "B",
    "EpistemicModel",
    "EventModel",
    "Formula",
    "Not",
    "Or",
    "PointedModel",
    "PreconditionFailed",
    "Top",
    "believes_chain",
    "conj",
    "contract",
    "generated_submodel",
    "holds",
    "product_update",
    "public_event",
    "reachable",
    "update",
]
