"""The one place the version of bandsim is written (pyproject.toml reads it)."""
__version__ = "0.2.0"
