# Level rules: which operations run where, and how the levels call each other.
#! func: probe
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def probe(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    n = pld.world_size()  ### "^E0101 pld.world_size\(\) is host-only, got it in InCore kernel \"probe\"$"
    return out
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld

WIDTH = 32


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[1, WIDTH], pl.FP32],
    out: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
):
    count = pld.world_size()  ### "E0101 pld.world_size\(\) is host-only, got it in InCore kernel \"kernel\""
    t = pl.load(inp, [0, 0], [1, WIDTH])
    out = pl.store(t, [0, 0], out)
    return out


@pl.jit
def wrapper(
    inp: pl.Tensor[[1, WIDTH], pl.FP32],
    out: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
):
    return kernel(inp, out)


@pl.jit.host
def driver(
    inp: pl.Tensor[[4, 1, WIDTH], pl.FP32],
    out: pl.Out[pl.Tensor[[4, 1, WIDTH], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        wrapper(inp[r], out[r], device=r)
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return out


@pl.jit
def wrapper(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return kernel(out)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        view = pld.window(buf, [4, 1], dtype=pl.INT32)
        ctx = pld.get_comm_ctx(view)
        me = pld.rank(ctx)  ### "E0101 pld.rank\(\) is InCore-only, got it in host orchestrator \"driver\""
        kernel(out[r], device=r)  ### "E0105 host orchestrator \"driver\" dispatches InCore kernel \"kernel\" directly"
        wrapper(out[r])  ### "E0106 host dispatch of orchestration function \"wrapper\" has no device="
        wrapper(out[r], device=5)  ### "E0107 device=5 is not a rank of this 4-rank program \(ranks 0..3\)"
        wrapper(out[r], device=r + 0)  ### "^E0107 device=r \+ 0 is an expression: PyPTO's host codegen takes device= as a constant rank or a variable$"
        wrapper(out[r], device=r)
    for q in pl.range(2):
        wrapper(out[q], device=q)
    for q in pl.range(0, 4, 2):  ### "E0248 device=q is the variable of a pl.range with step 2: PyPTO infers the devices of a dispatch from a unit-step range$"
        wrapper(out[q], device=q)
    wrapper(out[0], device=0)
---
# A host that allocates a window buffer dispatches only with device= PyPTO
# can infer devices from (MaterializeCommDomainScopes): a while-loop
# counter is not one, even where it passes no window (ok/while_device.py
# has the same loop in a host with no buffer).
#! entry: Loose.host
import pypto.language as pl
import pypto.language.distributed as pld

W = 16


@pl.program
class Loose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        t = pl.load(x, [0, 0], [1, W])
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        return self.k(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[4, 1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
    ) -> pl.Tensor[[4, 1, W], pl.FP32]:
        buf = pld.alloc_window_buffer(W * pl.FP32.get_byte())
        q = 0
        while q < 4:
            box = pld.window(buf, [1, W], dtype=pl.FP32)
            self.chip(x[q], y[q], box, device=q)  ### "^E0107 device=q is neither a constant rank nor the variable of a pl.range, and this host allocates window buffers \(buf, line 117\): PyPTO infers the devices of each buffer from the host's device= values$"
            q = q + 1
        return y
---
# Nor is a name bound to a pl.range variable (d = r): PyPTO infers devices
# from the loop variable itself.
#! entry: Loose.host
import pypto.language as pl
import pypto.language.distributed as pld

W = 16


@pl.program
class Loose:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        t = pl.load(x, [0, 0], [1, W])
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        return self.k(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[4, 1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
    ) -> pl.Tensor[[4, 1, W], pl.FP32]:
        buf = pld.alloc_window_buffer(W * pl.FP32.get_byte())
        for r in pl.range(4):
            d = r
            box = pld.window(buf, [1, W], dtype=pl.FP32)
            self.chip(x[r], y[r], box, device=d)  ### "^E0107 device=d is neither a constant rank nor the variable of a pl.range, and this host allocates window buffers \(buf, line 160\): PyPTO infers the devices of each buffer from the host's device= values$"
        return y
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def helper(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return out


@pl.jit.incore
def kernel(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return helper(out)  ### "E0109 InCore kernel \"kernel\" cannot call InCore kernel \"helper\""


@pl.jit
def wrapper(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return kernel(out, device=0)  ### "E0104 device= on a call of InCore kernel \"kernel\""


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    for r in pl.range(pld.world_size()):
        wrapper(out[r], device=r)
---
#! entry: kernel
import pypto.language as pl


@pl.jit.incore
def kernel(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):  ### "E0412 entry kernel is an InCore kernel, want the host orchestrator"
    return out
