# A STAND-IN for PyPTO's pypto.language.distributed, for PLD Workbench's tests; it is not PyPTO.
"""Permissive placeholders, as in the stand-in pypto.language."""

from pypto.language import _Any


def __getattr__(name):
    return _Any("pld." + name)
