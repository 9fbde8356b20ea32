#! entry: arrive_all
#! ranks: 2

"""notify has no default operation: op= must say AtomicAdd or Set."""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2


@pl.jit.incore
def arrive(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.system.notify(flags, peer, [me, 0], 1)  ### "op="
    for src in pl.range(N_RANKS):
        if src != me:
            pld.system.wait(flags, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    for row in pl.range(N_RANKS):
        pl.write(tally, [row, 0], pl.read(flags, [row, 0]))
    return tally


@pl.jit
def arrive_dev(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return arrive(tally, flags)


@pl.jit.host
def arrive_all(tally: pl.Out[pl.Tensor[[N_RANKS, N_RANKS, 1], pl.INT32]]):
    flag_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flag_buf, [N_RANKS, 1], dtype=pl.INT32)
        arrive_dev(tally[r], flags, device=r)
