# pl.dynamic dimensions in a @pl.jit function: its annotations may name
# them and compute with them (M * 2), but its body can use one as a value
# only when a parameter has it as a dimension of its own ([M, 8]): PyPTO's
# jit specializer binds it from that tensor, and reports any other as an
# undefined variable.
#! func: kernel
#! ranks: 2
import pypto.language as pl

M = pl.dynamic("M")


@pl.jit.incore
def kernel(
    x: pl.Tensor[[M * 2, 8], pl.FP32],
    y: pl.Out[pl.Tensor[[M * 2, 8], pl.FP32]],
):
    for i in pl.range(M):  ### "^E0244 M is a pl.dynamic dimension no parameter of this @pl.jit function has as a dimension of its own, so its body cannot use it as a value$"
        t = pl.load(x, [i, 0], [1, 8])
        y = pl.store(t, [i, 0], y)
    return y
