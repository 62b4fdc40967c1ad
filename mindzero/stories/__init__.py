"""Hi-ToM-style theory-of-mind stories labelled by the DEL engine (see docs/stories.md).

``events`` parses and renders story lines, ``semantics`` compiles them to event models and answers
belief questions, ``generator`` writes stories with per-line labels, ``traces`` renders and checks
DEL-ToM reasoning traces, ``hitom`` evaluates on the official release, ``export`` writes JSONL and
Hugging Face datasets.
"""
