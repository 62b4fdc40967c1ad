"""Domain-free reasoners (LLM proposers and answerers, verifier-guided belief search): they work
through :class:`~mindzero.domains.base.Domain` and import no particular domain; a domain's own
reasoners (exact Bayes, SMC, baselines) live in its package, ``mindzero/domains/<name>/``."""
