# notify and wait: required keyword-only arguments, window targets, offsets.
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
    pld.system.notify(flags, 0, [me, 0], 1)  ### "^E0204 pld.system.notify needs op=: pld.NotifyOp.AtomicAdd or pld.NotifyOp.Set$"
    return out
---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    plain: pl.Tensor[[4, 1], pl.INT32],
):
    pld.system.notify(plain, 1, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)  ### "^E0206 pld.system.notify target is pl.Tensor \[4, 1\] INT32, want a pld.DistributedTensor$"
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
    pld.system.wait(flags, [me], 1, cmp=pld.WaitCmp.Ge)  ### "^E0208 pld.system.wait offsets has 1 index, want 2 \(one per dimension of signal \[4, 1\]\)$"
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
    pld.system.wait(flags, [me, 0], 1)  ### "^E0204 pld.system.wait needs cmp=: pld.WaitCmp.Eq or pld.WaitCmp.Ge$"
    pld.system.notify(flags, 1, [me, 0], 1, op=pld.WaitCmp.Ge)  ### "^E0207 op=pld.WaitCmp.Ge is not a pld.NotifyOp: want AtomicAdd or Set$"
    pld.system.notify(flags, 1, [me, 0], 1, 2, op=pld.NotifyOp.Set)  ### "^E0201 pld.system.notify takes 4 positional arguments, got 5$"
    pld.system.notify(flags, 1, [me, 0], op=pld.NotifyOp.Set)  ### "^E0202 pld.system.notify is missing argument value$"
    pld.system.notify(flags, 1, [me, 0], 1, op=pld.NotifyOp.Set, cmp=pld.WaitCmp.Ge)  ### "^E0203 pld.system.notify has no parameter cmp$"
    pld.system.notify(flags, 1.5, [me, 0], 1, op=pld.NotifyOp.Set)  ### "^E0205 pld.system.notify peer is the float 1.5, want an integer scalar$"
    pld.system.notify(flags, 1, [me, 4], 1, op=pld.NotifyOp.Set)  ### "^E0211 pld.system.notify touches region \[\?:\?, 4:5\] of target \[4, 1\], which is outside it$"
    pld.system.wait(ctx, [me, 0], 1, cmp=pld.WaitCmp.Ge)  ### "^E0205 pld.system.wait signal is a comm context, want a pld.DistributedTensor$"
    return out
