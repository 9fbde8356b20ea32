#! entry: scatter_max
#! ranks: 2

"""pld.tensor.reduce_scatter only sums: op must be pld.ReduceOp.Sum.

For a maximum, all-reduce with op=pld.ReduceOp.Max and keep your own chunk.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def scatter(
    x: pl.Tensor[[1, N_RANKS * SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[N_RANKS, SIZE], pl.FP32]],
    sig: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    me = pld.rank(pld.get_comm_ctx(stage))
    for c in pl.range(N_RANKS):
        stage = pl.store(pl.load(x, [0, c * SIZE], [1, SIZE]), [c, 0], stage)
    stage = pld.tensor.reduce_scatter(stage, sig, op=pld.ReduceOp.Max)  ### "sum"
    y = pl.store(pl.load(stage, [me, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit
def scatter_dev(
    x: pl.Tensor[[1, N_RANKS * SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[N_RANKS, SIZE], pl.FP32]],
    sig: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    return scatter(x, y, stage, sig)


@pl.jit.host
def scatter_max(
    x: pl.Tensor[[N_RANKS, 1, N_RANKS * SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    stage_buf = pld.alloc_window_buffer([N_RANKS, SIZE], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [N_RANKS, SIZE], dtype=pl.FP32)
        sig = pld.window(sig_buf, [N_RANKS, 1], dtype=pl.INT32)
        scatter_dev(x[r], y[r], stage, sig, device=r)
