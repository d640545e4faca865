"""zero-pipeline: AlphaZero-style self-play for connection games."""

__version__ = "0.1.0"
