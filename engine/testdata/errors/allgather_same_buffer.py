#! entry: gather_all
#! ranks: 2

"""allgather reads from one tensor and fills another; they cannot be the same.

Inside a kernel the source is this rank's plain input slice (x here) and the
target is the [nr, SIZE] window. Passing the window twice would overwrite
rows that are still being sent.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def gather(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, N_RANKS * SIZE], pl.FP32]],
    rows: pl.InOut[pld.DistributedTensor[[N_RANKS, SIZE], pl.FP32]],
    sig: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    rows = pld.tensor.allgather(rows, rows, sig)  ### "same|distinct|alias|plain"
    for k in pl.range(N_RANKS):
        y = pl.store(pl.load(rows, [k, 0], [1, SIZE]), [0, k * SIZE], y)
    return y


@pl.jit
def gather_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, N_RANKS * SIZE], pl.FP32]],
    rows: pl.InOut[pld.DistributedTensor[[N_RANKS, SIZE], pl.FP32]],
    sig: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    return gather(x, y, rows, sig)


@pl.jit.host
def gather_all(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, N_RANKS * SIZE], pl.FP32]],
):
    rows_buf = pld.alloc_window_buffer([N_RANKS, SIZE], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        rows = pld.window(rows_buf, [N_RANKS, SIZE], dtype=pl.FP32)
        sig = pld.window(sig_buf, [N_RANKS, 1], dtype=pl.INT32)
        gather_dev(x[r], y[r], rows, sig, device=r)
