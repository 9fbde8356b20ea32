# Whatever names the program imports the DSL under, operations resolve to
# their canonical paths.
#! entry: go
#! ranks: 2
import pypto.language as P
import pypto.language.distributed as D
from pypto.language.distributed import system as sysops
from pypto.language.distributed import tile as rma


@P.jit.incore
def ping(
    y: P.Out[P.Tensor[[2, 1], P.INT32]],
    cells: D.DistributedTensor[[2, 1], P.INT32],
):
    ctx = D.get_comm_ctx(cells)
    me = D.rank(ctx)
    other = 1 - me
    sysops.notify(cells, other, [me, 0], 1, op=D.NotifyOp.AtomicAdd)
    sysops.wait(cells, [other, 0], 1, cmp=D.WaitCmp.Ge)
    v = P.read(cells, [other, 0])
    P.write(y, [other, 0], v)
    return y


@P.jit
def relay(
    y: P.Out[P.Tensor[[2, 1], P.INT32]],
    cells: D.DistributedTensor[[2, 1], P.INT32],
):
    return ping(y, cells)


@P.jit.host
def go(y: P.Out[P.Tensor[[2, 2, 1], P.INT32]]):
    cells_mem = D.alloc_window_buffer([2, 1], dtype=P.INT32)
    for r in P.range(D.world_size()):
        cells = D.window(cells_mem, [2, 1], dtype=P.INT32)
        relay(y[r], cells, device=r)
