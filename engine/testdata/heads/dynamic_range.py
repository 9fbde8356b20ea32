# Upstream HEAD's dynamic dimensions as numbers: a kernel loops over
# pl.range(NR) over the rows of its [NR, SIZE] input, and copies them through
# a window that a @pl.jit host must size with constants (MAX_RANKS rows).
#! entry: host_orch
#! ranks: 2 4
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8


@pl.jit.incore
def copy_rows(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32],
):
    for row in pl.range(NR):
        t = pl.load(x, [row, 0], [1, SIZE])
        stage = pl.store(t, [row, 0], stage)
    for row in pl.range(NR):
        u = pl.load(stage, [row, 0], [1, SIZE])
        y = pl.store(u, [row, 0], y)
    return y


@pl.jit
def per_rank(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32],
):
    return copy_rows(x, y, stage)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    stage_buf = pld.alloc_window_buffer(MAX_RANKS * SIZE * pl.FP32.get_byte())
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        per_rank(x[r], y[r], stage, device=r)
