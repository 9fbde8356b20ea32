# A single-chip program with no HOST level, in the @pl.jit form: one chip
# orchestration and its kernel. The orchestration is the default entry and
# runs on one chip, on tensors the caller passes.
#! entry: axpy
#! ranks: 1
import pypto.language as pl

N = 64


@pl.jit.incore
def axpy_kernel(
    x: pl.Tensor[[4, N], pl.FP32],
    y: pl.Tensor[[4, N], pl.FP32],
    z: pl.Out[pl.Tensor[[4, N], pl.FP32]],
):
    tx = pl.load(x, [0, 0], [4, N])
    ty = pl.load(y, [0, 0], [4, N])
    return pl.store(pl.add(pl.add(tx, tx), ty), [0, 0], z)


@pl.jit
def axpy(
    x: pl.Tensor[[4, N], pl.FP32],
    y: pl.Tensor[[4, N], pl.FP32],
    z: pl.Out[pl.Tensor[[4, N], pl.FP32]],
):
    out = axpy_kernel(x, y, z)
    return out
