# Statements and expressions a DSL body may not contain, and how names are
# rebound.
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
    while me < 3:
        pass
    for i in range(4):  ### "^E0411 Python's range\(\) is not a DSL loop$"
        pass
    for i in [0, 1]:  ### "^E0411 a DSL for loop iterates over pl.range\(...\), got \[0, 1\]$"
        pass
    for i in pl.range(0, 4, 0):  ### "^E0230 pl.range step is 0$"
        pass
    for i in pl.range(4, init_values=[0]):  ### "^E0230 pl.range argument init_values= is not supported$"
        pass
    a, b = me, me  ### "^E0407 tuple unpacking is not allowed in a DSL function$"
    x = pld.system.notify(flags, 0, [me, 0], 1, op=pld.NotifyOp.Set)  ### "^E0414 pld.system.notify returns no value to assign to x$"
    lst = [1, 2]  ### "^E0406 cannot assign a list of 2 elements to lst"
    dt = pl.FP32  ### "^E0406 cannot assign pl.FP32 \(a DataType\) to DSL variable dt"
    y = {1: 2}  ### "^E0402 a dict is not allowed in a DSL function$"
    v = pl.read(flags, [0, 0])
    for j in pl.range(4):
        v = pl.load(out, [0, 0], [1, 8])  ### "^E0408 v was INT32 scalar before this loop, now tile \[1, 8\] INT32$"
    if me == 0:
        return out  ### "^E0409 return inside an if or a loop$"
    return out
    me = me + 1  ### "^E0409 statement after return is never reached$"
---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
) -> pl.Tensor[[1, 8], pl.INT32]:
    return flags  ### "^E0226 InCore kernel \"kernel\" returns pld.DistributedTensor \[4, 1\] INT32, want pl.Tensor \[1, 8\] INT32$"
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(
    out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]],
    plain: pl.Tensor[[4, 1], pl.INT32],
):
    for r in pl.range(pld.world_size()):
        wrapper(out[r], plain, device=r)  ### "^E0225 argument flags of wrapper is pl.Tensor \[4, 1\] INT32, want pld.DistributedTensor \[4, 1\] INT32$"
---
#! func: kernel
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    rank: pl.Out[pl.Scalar[pl.INT32]],  ### "^E0227 pl.Out\[INT32\]: a scalar is passed by value and cannot be an output$"
    count,  ### "^E0112 parameter count has no type annotation$"
    width: int,  ### "^E0227 Python int is not a DSL type"
    shape: pl.Tensor[[0, 8], pl.INT32],  ### "^E0227 pl.Tensor shape dimension 0 is 0, want > 0$"
):
    return out
---
#! func: kernel
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, 8], pl.FP32],
    out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
):
    t = pl.load(inp, [0, 0], [1, 8])
    t = pl.add(t, missing_scale)  ### "^E0403 undefined name missing_scale$"
    t = pl.mul(t, t)
    out = pl.store(t, [0, 0], out)
    return out
---
#! func: kernel
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, SIZE], pl.FP32],
    flags: pld.DistributedTensor[[4, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    t = pl.load(inp, [0, 0], [1, SIZE // 0])  ### "^E0405 ZeroDivisionError: integer division or modulo by zero$"
    low = min(me, 3)  ### "^E0110 min runs at compile time and cannot take INT32 scalar$"
    top = min(SIZE, 8)
    u = pl.load(inp, [0, 0], [1, top])
    return inp
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit
def wrapper(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return wrapper(out)  ### "^E0111 orchestration function \"wrapper\" calls itself \(directly or through another function\)$"


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    for r in pl.range(pld.world_size()):
        wrapper(out[r], device=r)
---
#! entry: driver
# One dynamic dimension has one extent per call.
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    a: pld.DistributedTensor[[NR, 1], pl.INT32],
    b: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    return a


@pl.jit
def wrapper(
    a: pld.DistributedTensor[[NR, 1], pl.INT32],
    b: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    return kernel(a, b)


@pl.jit.host
def driver():
    a_mem = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    b_mem = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        a = pld.window(a_mem, [4, 1], dtype=pl.INT32)
        b = pld.window(b_mem, [2, 1], dtype=pl.INT32)
        wrapper(a, a, device=r)
        wrapper(a, b, device=r)  ### "^E0225 argument b of wrapper binds NR to 2, but a bound it to 4$"
