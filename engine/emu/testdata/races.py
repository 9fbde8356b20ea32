#! entry: mailbox_store
#! entry: mailbox_put
#! entry: crowded_slot
#! entry: pile_up
#! entry: shared_rows
#! ranks: 2 3 4 8
"""Races for the race detector, each with its repair.

Every host orchestrator takes a scalar ``fenced``: 1 runs the program with
the notify/wait that orders its accesses, 0 without it, which leaves a
race for the detector to report.

- mailbox_store: each rank remote_stores its slice into its right
  neighbour's mailbox, which then reads its own mailbox locally.
- mailbox_put: the same with put; the handshake is a notify after the put
  and a wait before the read.
- crowded_slot: every rank remote_stores into the same slot of rank 0.
  Fenced, they take turns (a token passed along the ranks); unfenced, the
  stores collide.
- pile_up: every rank adds its slice into rank 0's sum with an atomic put
  (concurrent adds never race each other); rank 0 reads the sum, after a
  barrier when fenced.
- shared_rows: every rank stores into an unsliced host tensor: its own row
  when fenced, row 0 when not.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8
S = 16


@pl.jit.incore
def post_store(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    ctx = pld.get_comm_ctx(mail)
    me = pld.rank(ctx)
    right = (me + 1) % pld.nranks(ctx)
    mine = pl.load(x, [0, 0], [1, S])
    pld.tile.remote_store(mine, mail, right, [0, 0])
    if fenced == 1:
        pld.system.notify(sig, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    got = pl.load(mail, [0, 0], [1, S])
    y = pl.store(got, [0, 0], y)
    return y


@pl.jit
def post_store_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    return post_store(x, y, mail, sig, fenced)


@pl.jit.host
def mailbox_store(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    fenced: pl.Scalar[pl.INDEX],
):
    mail_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        mail = pld.window(mail_buf, [1, S], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
        post_store_dev(x[r], y[r], mail, sig, fenced, device=r)


@pl.jit.incore
def post_put(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    ctx = pld.get_comm_ctx(mail)
    me = pld.rank(ctx)
    right = (me + 1) % pld.nranks(ctx)
    pld.tensor.put(mail, right, x)
    if fenced == 1:
        pld.system.notify(sig, right, [0, 0], 1, op=pld.NotifyOp.Set)
        pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Eq)
    got = pl.load(mail, [0, 0], [1, S])
    y = pl.store(got, [0, 0], y)
    return y


@pl.jit
def post_put_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    return post_put(x, y, mail, sig, fenced)


@pl.jit.host
def mailbox_put(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    fenced: pl.Scalar[pl.INDEX],
):
    mail_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        mail = pld.window(mail_buf, [1, S], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
        post_put_dev(x[r], y[r], mail, sig, fenced, device=r)


@pl.jit.incore
def take_turns(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    slot: pld.DistributedTensor[[1, S], pl.FP32],
    token: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    if fenced == 1:
        if me > 0:
            pld.system.wait(token, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    mine = pl.load(x, [0, 0], [1, S])
    pld.tile.remote_store(mine, slot, 0, [0, 0])
    if fenced == 1:
        if me + 1 < n:
            pld.system.notify(token, me + 1, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    return y


@pl.jit
def take_turns_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    slot: pld.DistributedTensor[[1, S], pl.FP32],
    token: pld.DistributedTensor[[1, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    return take_turns(x, y, slot, token, fenced)


@pl.jit.host
def crowded_slot(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    fenced: pl.Scalar[pl.INDEX],
):
    slot_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    token_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, S], dtype=pl.FP32)
        token = pld.window(token_buf, [1, 1], dtype=pl.INT32)
        take_turns_dev(x[r], y[r], slot, token, fenced, device=r)


@pl.jit.incore
def add_in(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    total: pld.DistributedTensor[[1, S], pl.FP32],
    done: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    ctx = pld.get_comm_ctx(total)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    pld.tensor.put(total, 0, x, atomic=pld.AtomicType.Add)
    if fenced == 1:
        pld.system.notify(done, 0, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me == 0:
        if fenced == 1:
            for s in pl.range(n):
                pld.system.wait(done, [s, 0], 1, cmp=pld.WaitCmp.Ge)
        got = pl.load(total, [0, 0], [1, S])
        y = pl.store(got, [0, 0], y)
    return y


@pl.jit
def add_in_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    total: pld.DistributedTensor[[1, S], pl.FP32],
    done: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
    fenced: pl.Scalar[pl.INDEX],
):
    return add_in(x, y, total, done, fenced)


@pl.jit.host
def pile_up(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    fenced: pl.Scalar[pl.INDEX],
):
    total_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    done_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        total = pld.window(total_buf, [1, S], dtype=pl.FP32)
        done = pld.window(done_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        add_in_dev(x[r], y[r], total, done, fenced, device=r)


@pl.jit.incore
def fill_row(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, S], pl.FP32]],
    part: pld.DistributedTensor[[1, S], pl.FP32],
    fenced: pl.Scalar[pl.INDEX],
):
    me = pld.rank(pld.get_comm_ctx(part))
    mine = pl.load(x, [0, 0], [1, S])
    if fenced == 1:
        y = pl.store(mine, [me, 0], y)
    else:
        y = pl.store(mine, [0, 0], y)
    return y


@pl.jit
def fill_row_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, S], pl.FP32]],
    part: pld.DistributedTensor[[1, S], pl.FP32],
    fenced: pl.Scalar[pl.INDEX],
):
    return fill_row(x, y, part, fenced)


@pl.jit.host
def shared_rows(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, S], pl.FP32]],
    fenced: pl.Scalar[pl.INDEX],
):
    part_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, S], dtype=pl.FP32)
        y = fill_row_dev(x[r], y, part, fenced, device=r)
