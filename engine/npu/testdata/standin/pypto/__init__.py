# A STAND-IN for PyPTO, written for PLD Workbench's tests; it is not PyPTO.
"""The stand-in pypto package.

It has the module paths and names an exported script's driver uses (checked
against upstream hw-native-sys/pypto at e2d0f78ae by engine/npu's tests) and
does no compiling at all: it records every compile and run call as a JSON
line in $PLD_STANDIN_LOG, writes the outputs a test hands it
($PLD_STANDIN_OUTPUTS, a JSON object from argument position to flat values)
into the output tensors, and, when the run config asks for the chip
swimlane, writes per-rank records in the runtime's on-disk format. See
runtime/__init__.py for the format's source.
"""

__version__ = "0.0.0+standin"

from . import ir, language, runtime  # noqa: E402,F401
