#! entry: mark_next
#! ranks: 2

"""Signals live in windows: notify's target must be a pld.DistributedTensor.

The learner passed a slice of an ordinary host tensor. Only a window view,
from pld.alloc_window_buffer and pld.window on the host, has a copy on every
rank that another rank can bump.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2


@pl.jit.incore
def mark(
    marks: pl.Tensor[[N_RANKS, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    nxt = (me + 1) % N_RANKS
    pld.system.notify(marks, nxt, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)  ### "DistributedTensor"
    return marks


@pl.jit
def mark_dev(
    marks: pl.Tensor[[N_RANKS, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    return mark(marks, me)


@pl.jit.host
def mark_next(marks: pl.Tensor[[N_RANKS, N_RANKS, 1], pl.INT32]):
    for r in pl.range(pld.world_size()):
        mark_dev(marks[r], r, device=r)
