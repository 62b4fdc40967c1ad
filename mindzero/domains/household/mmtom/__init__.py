"""MMToM-QA on the Household domain: the text reader, the inverse-planning answerer and our own
MMToM-style question generator (docs/mmtom.md)."""
