"""Bandit instances built from real data, and the instance files that hold them.

- :func:`load_instance` reads an instance file (Parquet) into an
  :class:`~bandsim.instances.Instance` that every algorithm accepts
  (``bandsim.simulate(..., instance_file=path)`` does this for you).
- :func:`build_mslr` clusters an MSLR-WEB10K / LETOR file into categorical arms
  (Chowdhury & Zhou, Chowdhury & Zhou (2023), Section 7 / Appendix J); needs scikit-learn
  (``pip install 'bandsim[data]'``).
- :func:`build_obd` turns an Open Bandit Dataset log into Bernoulli arms with
  the items' click-through rates.
- :func:`write_instance` writes any per-arm categorical distributions as an
  instance file (atomically).

See docs/data.md.
"""
from .files import DataFormatError, load_instance, read_instance_table, write_instance
from .letor import build_mslr, read_letor
from .obd import SparseDataWarning, build_obd, read_obd

__all__ = ["DataFormatError", "SparseDataWarning", "build_mslr", "build_obd",
           "load_instance", "read_instance_table", "read_letor", "read_obd",
           "write_instance"]
