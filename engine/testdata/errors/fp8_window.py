#! entry: copy_all
#! ranks: 2

"""An FP8 window: refused where the host allocates it.

PyPTO's distributed runtime has no device type for FP8 elements, so the
program cannot run there; the workbench says so at check time instead of
failing when the run starts.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def copy(
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
):
    t = pl.load(stage, [0, 0], [1, SIZE])
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def copy_dev(
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
):
    return copy(y, stage)


@pl.jit.host
def copy_all(y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP8E4M3FN)  ### "^E0228 dtype=FP8E4M3FN: PyPTO's distributed runtime has no device type for FP8 elements$"
    for r in pl.range(N_RANKS):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        copy_dev(y[r], stage, device=r)
