# Window buffers: where alloc_window_buffer may appear, its two forms, views,
# dead allocs, and host indexing.
#! entry: driver
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

ROWS = 4


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[ROWS, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[ROWS, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([ROWS, 1], dtype=pl.INT32)
    shaped = pld.alloc_window_buffer([ROWS, 1])  ### "^E0218 pld.alloc_window_buffer of a shape needs dtype=: pld.alloc_window_buffer\(\[ROWS, 1\], dtype=pl.FP32\)$"
    counted = pld.alloc_window_buffer(16, dtype=pl.INT32)  ### "^E0218 pld.alloc_window_buffer of a byte count takes no dtype=$"
    named = pld.alloc_window_buffer(16, name="sig")  ### "^E0218 name= is not allowed in pld.alloc_window_buffer$"
    zero = pld.alloc_window_buffer([ROWS, 0], dtype=pl.INT32)  ### "^E0218 pld.alloc_window_buffer size dimension 1 is 0, want > 0$"
    direct = pld.window(pld.alloc_window_buffer(16), [ROWS, 1], dtype=pl.INT32)  ### "^E0219 pld.alloc_window_buffer must be assigned straight to a name"
    for r in pl.range(pld.world_size()):
        fresh = pld.alloc_window_buffer(16)  ### "^E0219 pld.alloc_window_buffer inside a loop would allocate fresh again on every iteration$"
        flags = pld.window(flags_buf, [ROWS, 1], dtype=pl.INT32)
        wide = pld.window(flags_buf, [ROWS, 2], dtype=pl.INT32)  ### "^E0223 view \[4, 2\] INT32 needs 32 bytes, but flags_buf has 16$"
        bad = pld.window(out, [ROWS, 1], dtype=pl.INT32)  ### "^E0222 pld.window buf is pl.Tensor \[4, 1, 8\] INT32, want the buffer returned by pld.alloc_window_buffer$"
        wrapper(out[r], flags, device=r)
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
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    flags_buf = pld.alloc_window_buffer(16)  ### "^E0220 window buffer name flags_buf is already used at line \d+$"
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [4, 1], dtype=pl.INT32)
        wrapper(out[r], flags, device=r)
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
):
    return out


@pl.jit
def wrapper(out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]):
    return kernel(out)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[2, 1, 8], pl.INT32]]):
    for r in pl.range(pld.world_size()):
        wrapper(out[r], device=r)  ### "^W0307 out\[r\] reaches row 3, but out has 2 rows \(shape \[2, 1, 8\]\)$"
---
#! func: kernel
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit.incore
def kernel(
    inp: pl.Tensor[[4, 1, 8], pl.INT32],
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
):
    row = inp[0]  ### "^E0224 tensor indexing is host-only, got it in InCore kernel \"kernel\"$"
    buf = pld.alloc_window_buffer(64)  ### "^E0101 pld.alloc_window_buffer\(\) is host-only, got it in InCore kernel \"kernel\"$"
    return out
---
#! entry: driver
# Dead allocs are judged only once the rest of the program checks.
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
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    unused_buf = pld.alloc_window_buffer(64)  ### "^E0221 dead alloc: unused_buf is never viewed with pld.window$"
    idle_buf = pld.alloc_window_buffer(64)  ### "^E0221 dead alloc: no view of idle_buf reaches a device= dispatch$"
    idle = pld.window(idle_buf, [4, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [4, 1], dtype=pl.INT32)
        wrapper(out[r], flags, device=r)
---
# PyPTO's @pl.jit window shapes are constants: a pl.dynamic extent lowers to
# tensor.dim, which the distributed codegen refuses; pld.world_size() has no
# inferred metadata yet.
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[NR, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([8, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [NR, 1], dtype=pl.INT32)  ### "^E0231 pld.window shape dimension 0 is the pl.dynamic dimension NR: a @pl.jit host cannot size a window from it"
        wrapper(out[r], flags, device=r)
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
def driver(out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [pld.world_size(), 1], dtype=pl.INT32)  ### "^E0232 pld.window shape dimension 0 is pld.world_size\(\), computed when the program runs"
        wrapper(out[r], flags, device=r)
---
# A @pl.jit host sizes no buffer from a pl.dynamic dimension either, plain
# or computed, in either form of pld.alloc_window_buffer (tensor.dim again);
# a computed window extent has no inferred metadata (the @pl.program form
# takes all three: ok/computed_window.py).
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([NR, 1], dtype=pl.INT32)  ### "^E0231 pld.alloc_window_buffer size dimension 0 is NR, computed from a pl.dynamic dimension: a @pl.jit host cannot size a buffer from it \(DistributedCodegen does not support op 'tensor.dim'\)$"
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [1, 1], dtype=pl.INT32)
        wrapper(out[r], flags, device=r)
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer((NR % 3) * 4)  ### "^E0231 pld.alloc_window_buffer size is \(NR % 3\) \* 4, computed from a pl.dynamic dimension"
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [1, 1], dtype=pl.INT32)
        wrapper(out[r], flags, device=r)
---
#! entry: driver
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")


@pl.jit.incore
def kernel(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[NR % 3, 1], pl.INT32],
):
    return out


@pl.jit
def wrapper(
    out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    flags: pld.DistributedTensor[[NR % 3, 1], pl.INT32],
):
    return kernel(out, flags)


@pl.jit.host
def driver(out: pl.Out[pl.Tensor[[NR, 1, 8], pl.INT32]]):
    flags_buf = pld.alloc_window_buffer([8, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flags_buf, [NR % 3, 1], dtype=pl.INT32)  ### "^E0232 pld.window shape dimension 0 is NR % 3, computed when the program runs"
        wrapper(out[r], flags, device=r)
---
# Window buffer names are unique across a whole @pl.program, whichever host
# orchestrator is the entry.
#! entry: Two.first
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Two:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
        flags: pld.DistributedTensor[[4, 1], pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.INT32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def wrapper(
        self,
        out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
        flags: pld.DistributedTensor[[4, 1], pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.INT32]:
        return self.kernel(out, flags)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def first(self, out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]) -> pl.Tensor[[4, 1, 8], pl.INT32]:
        flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            flags = pld.window(flags_buf, [4, 1], dtype=pl.INT32)
            self.wrapper(out[r], flags, device=r)
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def second(self, out: pl.Out[pl.Tensor[[4, 1, 8], pl.INT32]]) -> pl.Tensor[[4, 1, 8], pl.INT32]:
        flags_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)  ### "^E0220 window buffer name flags_buf is already declared in this program, by host orchestrator first at line \d+"
        for r in pl.range(pld.world_size()):
            flags = pld.window(flags_buf, [4, 1], dtype=pl.INT32)
            self.wrapper(out[r], flags, device=r)
        return out
