# A STAND-IN for PyPTO, written for PLD Workbench's tests; it is not PyPTO.
"""The stand-in's pypto.backend: only the assembler lookup Detect asks."""
