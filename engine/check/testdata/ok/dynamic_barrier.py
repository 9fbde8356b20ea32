# A dynamic rank count: the host tensors are [NR, ...] with NR bound at run
# time; the signal window, whose shape a @pl.jit host must give as a
# constant, has MAX_RANKS rows of which a run uses P. The kernel stages its
# row, barriers, and reads its right neighbour's row.
#! entry: exchange
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
MAX_RANKS = 8
COLS = 32


@pl.jit.incore
def neighbour(
    mine: pl.Tensor[[1, COLS], pl.FP32],
    got: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[1, COLS], pl.FP32],
    flags: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    t = pl.load(mine, [0, 0], [1, COLS])
    stage = pl.store(t, [0, 0], stage)
    flags = pld.tensor.barrier(flags)
    right = (me + 1) % n
    far = pld.remote_load(stage, right, [0, 0], [1, COLS])
    got = pl.store(far, [0, 0], got)
    return got


@pl.jit
def forward(
    mine: pl.Tensor[[1, COLS], pl.FP32],
    got: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[1, COLS], pl.FP32],
    flags: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
):
    return neighbour(mine, got, stage, flags)


@pl.jit.host
def exchange(
    mine: pl.Tensor[[NR, 1, COLS], pl.FP32],
    got: pl.Out[pl.Tensor[[NR, 1, COLS], pl.FP32]],
):
    stage_mem = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    flag_mem = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_mem, [1, COLS], dtype=pl.FP32)
        flags = pld.window(flag_mem, [MAX_RANKS, 1], dtype=pl.INT32)
        forward(mine[r], got[r], stage, flags, device=r)
