# A name rebound to a value of another type: the loop variable that reuses a
# parameter's name, assignments over parameters, and the uses after them.
# Each is an error at the later use, never a silently dropped statement.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    src: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    for src in pl.range(4):
        if src != me:
            pld.system.wait(flags, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    t = pld.tile.remote_load(src, 0, [0, 0], [1, 8])  ### "^E0408 src is the INDEX scalar loop variable of line 18 here, no longer the pld.DistributedTensor \[1, 8\] FP32 it was before that loop$"
    t2 = pld.tile.remote_load(src, 1, [0, 0], [1, 8])
    out = pl.store(t2, [0, 0], out)
    return out
---
# The loop variable shadowing a plain tensor, used inside an if after it.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    for x in pl.range(4):
        pld.system.notify(flags, x, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me == 0:
        t = pl.load(x, [0, 0], [1, 8])  ### "^E0408 x is the INDEX scalar loop variable of line 41 here"
        out = pl.store(t, [0, 0], out)
    return out
---
# A top-level assignment over a parameter rebinds it, as in Python; the later
# use sees the new type.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    x = pld.rank(ctx)
    t = pl.load(x, [0, 0], [1, 8])  ### "^E0205 pl.load tensor is INT32 scalar"
    out = pl.store(t, [0, 0], out)
    return out
---
# An assignment over a parameter inside a loop is the E0408 of the body.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    for i in pl.range(4):
        x = pld.rank(ctx)  ### "^E0408 x was pl.Tensor \[1, 8\] FP32 before this loop, now INT32 scalar$"
    t = pl.load(x, [0, 0], [1, 8])
    out = pl.store(t, [0, 0], out)
    return out
---
# A name bound only inside an if, then rebound to another type in a loop:
# PyPTO's @pl.jit renames a rebinding only where the name was first bound.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    if me == 0:
        t = pl.load(x, [0, 0], [1, 8])
    for i in pl.range(4):
        t = me  ### "^E0249 cannot rebind t to INT32 scalar: it was bound inside an if or loop above, to tile \[1, 8\] FP32"
    out = pl.store(t, [0, 0], out)
    return out
---
# with is not a DSL statement; its target is never bound, so later uses are
# undefined names, not dropped statements.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    with open("f") as x:  ### "^E0401 with is not allowed in a DSL function$"
        pass
    t = pl.load(x, [0, 0], [1, 8])
    out = pl.store(t, [0, 0], out)
    return out
---
# The loop variable of an inner loop shadows a window bound outside the
# outer loop: that is the E0408 of the loop body, reported at the loop
# variable; the later use is a follow-on.
#! func: kernel
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    src: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    for round in pl.range(2):
        for src in pl.range(4):  ### "^E0408 src was pld.DistributedTensor \[1, 8\] FP32 before this loop, now INDEX scalar$"
            if src != me:
                pld.system.wait(flags, [src, 0], round + 1, cmp=pld.WaitCmp.Ge)
    t = pld.tile.remote_load(src, 0, [0, 0], [1, 8])
    out = pl.store(t, [0, 0], out)
    return out
