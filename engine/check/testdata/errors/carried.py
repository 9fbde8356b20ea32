# Loop-carried values: one init value and one yielded value per name.
#! func: kernel
#! ranks: 2
import pypto.language as pl

SIZE = 64


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    for i, (a, b) in pl.range(0, SIZE, 32, init_values=(y,)):  ### "^E0411 pl.range has 1 init_values for 2 loop-carried names$"
        pass
    for i, (a,) in pl.range(0, SIZE, 32, init_values=(y,)):
        t = pl.load(x, [0, i], [1, 32])
        a = pl.store(t, [0, i], a)
        out = pl.yield_(a, a)  ### "^E0411 pl.yield_ gives 2 values for 1 loop-carried names$"
    n = pl.min(3, 4)
    m = pl.max(x, 4)  ### "^E0\d+ pl.max"
    return y
---
import pypto.language as pl

ROWS = 4


@pl.jit.incore
def kernel(
    x: pl.Tensor[[ROWS, 8], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, 8], pl.FP32]],
):
    for i in pl.parallel(ROWS):  ### "^W0303 pl.parallel runs its iterations one after another"
        t = pl.load(x, [i, 0], [1, 8])
        y = pl.store(t, [i, 0], y)
    for i in pl.unroll(ROWS):
        t = pl.load(x, [i, 0], [1, 8])
        y = pl.store(t, [i, 0], y)
    return y
---
import pypto.language as pl

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, NR * 8.0], pl.FP32],  ### "^E0240 pl.Tensor shape dimension 1 is \(NR \* 8.0\): arithmetic on a pl.dynamic dimension takes ints and other dimensions, got the float 8.0$"
):
    pass
