# PyPTO keeps one variable per name ("Cannot reassign 'x' with a different
# type"): a @pl.program method cannot rebind a name to a value of another
# type anywhere, its top level included.
#! entry: Prog.host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
        t = pl.load(x, [0, 0], [2, 8])  ### "^E0249 cannot rebind t to tile \[2, 8\] FP32: it is tile \[1, 8\] FP32, and a @pl.program method keeps one variable, of one type, per name$"
        out = pl.store(pl.load(x, [1, 0], [1, 8]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.kernel(x, out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]) -> pl.Tensor[[4, 1, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            out_r = self.dev(x[r], out[r], device=r)
        return out
---
# A tensor parameter rebound to a tile, and an INT32 scalar to the INDEX
# sum with a literal: each is a new type for the name.
#! entry: Prog.host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        flags: pld.DistributedTensor[[4, 1], pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        ctx = pld.get_comm_ctx(flags)
        me = pld.rank(ctx)
        me = me + 1  ### "^E0249 cannot rebind me to INDEX scalar: it is INT32 scalar"
        x = pl.load(x, [0, 0], [1, 8])  ### "^E0249 cannot rebind x to tile \[1, 8\] FP32: it is pl.Tensor \[2, 8\] FP32"
        out = pl.store(x, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        flags: pld.DistributedTensor[[4, 1], pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.kernel(x, out, flags)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]) -> pl.Tensor[[4, 1, 8], pl.FP32]:
        flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            flags = pld.window(flags_buf, [4, 1], dtype=pl.INT32)
            out_r = self.dev(x[r], out[r], flags, device=r)
        return out
---
# A window view rebound to the dispatch's result, a plain pl.Tensor: the
# view's name keeps its pld.DistributedTensor type.
#! entry: Prog.host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        src: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
        src = pl.store(t, [0, 0], src)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(
        self,
        x: pl.Tensor[[2, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        src: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.kernel(x, out, src)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]) -> pl.Tensor[[4, 1, 8], pl.FP32]:
        src_buf = pld.alloc_window_buffer([1, 8], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            src = pld.window(src_buf, [1, 8], dtype=pl.FP32)
            src = self.dev(x[r], out[r], src, device=r)  ### "^E0249 cannot rebind src to pl.Tensor \[1, 8\] FP32: it is pld.DistributedTensor \[1, 8\] FP32"
        return out
---
# @pl.jit renames a rebinding where the name was first assigned (so the
# top-level rebindings of t below are new variables), but not a name first
# bound inside a loop that has ended.
#! entry: host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    t = pl.load(x, [0, 0], [1, 8])
    t = pl.load(x, [0, 0], [2, 8])
    t = pl.load(x, [0, 0], [1, 8])
    for i in pl.range(2):
        u = pl.load(x, [0, 0], [1, 8])
        out = pl.store(u, [0, 0], out)
    u = pl.load(x, [0, 0], [2, 8])  ### "^E0249 cannot rebind u to tile \[2, 8\] FP32: it was bound inside an if or loop above, to tile \[1, 8\] FP32, and @pl.jit gives a name a new variable only where it was first assigned$"
    out = pl.store(t, [0, 0], out)
    return out


@pl.jit
def dev(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    return kernel(x, out)


@pl.jit.host
def host(x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        dev(x[r], out[r], device=r)
---
# Two sibling loops: the second loop's u is the first loop's variable, not
# a new one; nor is a pl.range loop variable ever renamed.
#! entry: host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    for i in pl.range(2):
        u = pl.load(x, [0, 0], [1, 8])
        out = pl.store(u, [0, 0], out)
    for j in pl.range(2):
        u = pl.load(x, [0, 0], [2, 8])  ### "^E0249 cannot rebind u to tile \[2, 8\] FP32: it was bound inside an if or loop above"
        out = pl.store(pl.load(x, [1, 0], [1, 8]), [0, 0], out)
    i = pl.load(x, [0, 0], [1, 8])  ### "^E0249 cannot rebind i to tile \[1, 8\] FP32: it is a pl.range loop variable, INDEX scalar$"
    out = pl.store(i, [0, 0], out)
    return out


@pl.jit
def dev(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    return kernel(x, out)


@pl.jit.host
def host(x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        dev(x[r], out[r], device=r)
---
# An augmented assignment is no PyPTO statement at all ("Unsupported
# statement type: AugAssign"); the rest is checked as x = x + y.
#! entry: host
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    k = 0
    k += 1  ### "^E0401 k \+= ... is not a PyPTO statement: its parser takes no augmented assignment$"
    t = pl.load(x, [k, 0], [1, 8])
    out = pl.store(t, [0, 0], out)
    return out


@pl.jit
def dev(x: pl.Tensor[[2, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]):
    return kernel(x, out)


@pl.jit.host
def host(x: pl.Tensor[[4, 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        dev(x[r], out[r], device=r)
