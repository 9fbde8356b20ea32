# A STAND-IN for PyPTO, written for PLD Workbench's tests; it is not PyPTO.
"""Where the stand-in says its PTO assembler is.

Upstream's module of this name (python/pypto/backend/_ptoas_locate.py at
e2d0f78ae) looks under $PTOAS_ROOT, else on PATH, and returns None when
there is no executable ptoas; the workbench's Detect calls its
find_ptoas_binary. The stand-in needs no assembler, so it names one unless
the test sets PLD_STANDIN_PTOAS to "" to play a PyPTO that has none.
"""

import os


def find_ptoas_binary():
    return os.environ.get("PLD_STANDIN_PTOAS", "/standin/ptoas") or None
