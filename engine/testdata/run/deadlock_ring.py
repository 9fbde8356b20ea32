#! entry: pass_the_token
#! ranks: 4
#! golden: none: every rank waits for its left neighbour before it notifies its right one, so nobody starts

"""A ring that never starts: the classic hand-off written in the wrong order.

Each rank is meant to hear from its left neighbour and then tell its right
neighbour. Written as wait-then-notify on every rank, no rank ever notifies
first, so the run can only end in a deadlock. Swap the two calls on rank 0
(notify first) and the token goes round.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def relay(
    y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    token: pld.DistributedTensor[[1, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(token))
    n = pld.nranks(pld.get_comm_ctx(token))
    right = (me + 1) % n
    pld.system.wait(token, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.system.notify(token, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    return y


@pl.jit
def relay_on_device(
    y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    token: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return relay(y, token)


@pl.jit.host
def pass_the_token(y: pl.Out[pl.Tensor[[NR, 1, 8], pl.FP32]]):
    token_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        token = pld.window(token_buf, [1, 1], dtype=pl.INT32)
        relay_on_device(y[r], token, device=r)
