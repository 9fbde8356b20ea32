#! entry: rma_host
#! ranks: 2 3 4
"""Remote access and signals, every form.

Each rank pushes its slice into row ``me`` of every rank's board with put
(sub-region form, peer == me included) and accumulates it into rank 0's
``acc`` with an atomic put; after a hand-rolled barrier it reads the board,
pulls the sum back with get, copies a row of its own board with get at
peer == me, and mails its slice to its left neighbour with remote_store.
Signal cells are also written with Set and with a negative AtomicAdd and
waited on with Eq. A second dispatch loop reads what the first left in the
windows.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8
S = 16


@pl.jit.incore
def exchange(
    x: pl.Tensor[[1, S], pl.FP32],
    gathered: pl.Out[pl.Tensor[[NR, S], pl.FP32]],
    summed: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    echo: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mailed: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    cells: pl.Out[pl.Tensor[[1, 4], pl.INT32]],
    board: pld.DistributedTensor[[MAX_RANKS, S], pl.FP32],
    acc: pld.DistributedTensor[[1, S], pl.FP32],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
    flag: pld.DistributedTensor[[1, 4], pl.INT32],
):
    ctx = pld.get_comm_ctx(board)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    left = (me + n - 1) % n
    right = (me + 1) % n
    for p in pl.range(n):
        pld.tensor.put(board, p, x, [me, 0], [0, 0], [1, S])
    pld.tensor.put(acc, 0, x, atomic=pld.AtomicType.Add)
    mine = pl.load(x, [0, 0], [1, S])
    pld.tile.remote_store(mine, mail, left, [0, 0])
    for p in pl.range(n):
        pld.system.notify(sig, p, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for s in pl.range(n):
        pld.system.wait(sig, [s, 0], 1, cmp=pld.WaitCmp.Ge)
    for s in pl.range(n):
        row = pl.load(board, [s, 0], [1, S])
        gathered = pl.store(row, [s, 0], gathered)
    pld.tensor.get(summed, 0, acc)
    pld.tensor.get(echo, me, board, [0, 0], [right, 0], [1, S])
    got = pl.load(mail, [0, 0], [1, S])
    mailed = pl.store(got, [0, 0], mailed)
    pld.system.notify(flag, right, [0, 0], me + 10, op=pld.NotifyOp.Set)
    pld.system.wait(flag, [0, 0], left + 10, cmp=pld.WaitCmp.Eq)
    pld.system.notify(flag, me, [0, 1], -5, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(flag, [0, 1], -5, cmp=pld.WaitCmp.Eq)
    for c in pl.range(2):
        pl.write(cells, [0, c], pl.read(flag, [0, c]))
    pl.write(cells, [0, 2], pl.read(sig, [left, 0]))
    return gathered


@pl.jit
def exchange_dev(
    x: pl.Tensor[[1, S], pl.FP32],
    gathered: pl.Out[pl.Tensor[[NR, S], pl.FP32]],
    summed: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    echo: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    mailed: pl.Out[pl.Tensor[[1, S], pl.FP32]],
    cells: pl.Out[pl.Tensor[[1, 4], pl.INT32]],
    board: pld.DistributedTensor[[MAX_RANKS, S], pl.FP32],
    acc: pld.DistributedTensor[[1, S], pl.FP32],
    mail: pld.DistributedTensor[[1, S], pl.FP32],
    sig: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
    flag: pld.DistributedTensor[[1, 4], pl.INT32],
):
    return exchange(x, gathered, summed, echo, mailed, cells, board, acc, mail, sig, flag)


@pl.jit.incore
def collect(total: pl.Out[pl.Tensor[[1, S], pl.FP32]], acc: pld.DistributedTensor[[1, S], pl.FP32]):
    sum_row = pld.tile.remote_load(acc, 0, [0, 0], [1, S])
    total = pl.store(pl.add(sum_row, sum_row), [0, 0], total)
    return total


@pl.jit
def collect_dev(total: pl.Out[pl.Tensor[[1, S], pl.FP32]], acc: pld.DistributedTensor[[1, S], pl.FP32]):
    return collect(total, acc)


@pl.jit.host
def rma_host(
    x: pl.Tensor[[NR, 1, S], pl.FP32],
    gathered: pl.Out[pl.Tensor[[NR, NR, S], pl.FP32]],
    summed: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    echo: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    mailed: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
    cells: pl.Out[pl.Tensor[[NR, 1, 4], pl.INT32]],
    total: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]],
):
    board_buf = pld.alloc_window_buffer([MAX_RANKS, S], dtype=pl.FP32)
    acc_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    mail_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    flag_buf = pld.alloc_window_buffer([1, 4], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        board = pld.window(board_buf, [MAX_RANKS, S], dtype=pl.FP32)
        acc = pld.window(acc_buf, [1, S], dtype=pl.FP32)
        mail = pld.window(mail_buf, [1, S], dtype=pl.FP32)
        sig = pld.window(sig_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        flag = pld.window(flag_buf, [1, 4], dtype=pl.INT32)
        exchange_dev(x[r], gathered[r], summed[r], echo[r], mailed[r], cells[r], board, acc, mail, sig, flag, device=r)
    for r in pl.range(pld.world_size()):
        acc_view = pld.window(acc_buf, [1, S], dtype=pl.FP32)
        collect_dev(total[r], acc_view, device=r)
