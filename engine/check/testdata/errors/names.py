# Operation names: the three-segment rule, wrong namespaces, misspellings,
# and names of the program.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    pld.notify(flags, 0, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)  ### "^E0103 pld.notify is not an operation: notify needs its full path pld.system.notify$"
    return out
---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.tensor.rank(ctx)  ### "^E0103 pld.tensor.rank does not exist: rank is pld.rank$"
    pld.wait(flags, [me, 0], 1, cmp=pld.WaitCmp.Ge)  ### "E0103 pld.wait is not an operation: wait needs its full path pld.system.wait"
    pld.tensor.notify(flags, 0, [0, 0], 1, op=pld.NotifyOp.Set)  ### "E0103 pld.tensor.notify does not exist: notify is pld.system.notify"
    t = pl.lod(out, [0, 0], [1, 8])  ### "^E0102 unknown operation pl.lod; did you mean pl.load\?$"
    u = pl.exp(t)  ### "^E0114 pl.exp is not supported by the workbench$"
    v = pl.frobnicate(t)  ### "^E0102 unknown operation pl.frobnicate$"
    return out
---
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 16


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, WIDTH], pl.FP32],
    out: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
):
    t = pl.load(inp, [0, 0], [1, WIDHT])  ### "^E0403 undefined name WIDHT$"
    out = pl.store(t, [0, 0], out)
    u = pl.add(t, t)
    return out
---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    if me == 0:
        first = pl.read(flags, [0, 0])
    pl.write(out, [0, 0], first)  ### "^E0404 first may be undefined here: it is assigned only inside an if or a loop$"
    for i in pl.range(4):
        last = pl.read(flags, [i, 0])
    pl.write(out, [0, 1], last)  ### "^E0404 last may be undefined here"
    return out
