# A dynamic rank count: the signal window is [NR, 1] with NR bound at run
# time, sized in bytes from pld.world_size(); the kernel stages its row,
# barriers, and reads its right neighbour's row.
#! entry: exchange
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
COLS = 32


@pl.jit.incore
def neighbour(
    mine: pl.Tensor[[1, COLS], pl.FP32],
    got: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[1, COLS], pl.FP32],
    flags: pld.DistributedTensor[[NR, 1], pl.INT32],
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
    flags: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    return neighbour(mine, got, stage, flags)


@pl.jit.host
def exchange(
    mine: pl.Tensor[[NR, 1, COLS], pl.FP32],
    got: pl.Out[pl.Tensor[[NR, 1, COLS], pl.FP32]],
):
    stage_mem = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
    flag_mem = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_mem, [1, COLS], dtype=pl.FP32)
        flags = pld.window(flag_mem, [NR, 1], dtype=pl.INT32)
        forward(mine[r], got[r], stage, flags, device=r)
