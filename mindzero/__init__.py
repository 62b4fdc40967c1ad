"""mindzero: online mental reasoning — infer what a person wants and believes from what they do."""

__version__ = "0.1.0"
