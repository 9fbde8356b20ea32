#! entry: h
#! ranks: 2

"""A DSL parameter cannot have a default, annotated or not.

PyPTO rejects `def h(x=1)` under a DSL decorator: every argument of a
device function is passed explicitly. The workbench once evaluated the
missing annotation of such a parameter and crashed; it must say this.
"""

import pypto.language as pl


@pl.jit.host
def h(x=1):  ### "E0112 parameter x has a default"
    pass
