#! entry: sum_all
#! ranks: 2

"""Inside a kernel the all-reduce needs a signal window you pass in.

Only the host orchestrator can have the compiler allocate one for it; a
kernel cannot allocate windows. Pass an [NR, 1] INT32 window for
mode="mesh".
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def sum_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
):
    acc = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], acc)
    acc = pld.tensor.allreduce(acc, op=pld.ReduceOp.Sum)  ### "E0250 .*needs an explicit signal"
    y = pl.store(pl.load(acc, [0, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit
def sum_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
):
    return sum_kernel(x, y, acc)


@pl.jit.host
def sum_all(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
        sum_dev(x[r], y[r], acc, device=r)
