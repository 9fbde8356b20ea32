# A source dimension of (M % 4) rows holds at most 3, so PyPTO's tile.load
# refuses a 4-row read at compile time ("reads past the end of dimension
# 0"); a read from M rows it cannot disprove, and trusts.
#! entry: Prog.host
import pypto.language as pl
import pypto.language.distributed as pld

M = pl.dynamic("M")


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[M % 4, 8], pl.FP32],
        m: pl.Tensor[[M, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
    ) -> pl.Tensor[[8, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 8])  ### "^E0211 pl.load reads past the end of dimension 0 of tensor \[\(M % 4\), 8\]: offset 0 \+ extent 4, but \(M % 4\) is at most 3$"
        out = pl.store(t, [0, 0], out)
        u = pl.load(m, [0, 0], [8, 8])
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(
        self,
        x: pl.Tensor[[M % 4, 8], pl.FP32],
        m: pl.Tensor[[M, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
    ) -> pl.Tensor[[8, 8], pl.FP32]:
        return self.kernel(x, m, out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[4, M % 4, 8], pl.FP32],
        m: pl.Tensor[[4, M, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[4, 8, 8], pl.FP32]],
    ) -> pl.Tensor[[4, 8, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            o = self.dev(x[r], m[r], out[r], device=r)
        return out
---
# The host reads each pl.dynamic symbol back from a tensor parameter's
# shape; from (M % 4) * 2 rows it cannot (PyPTO: "Cannot recover dynamic
# dimension 'M' for host-orchestration codegen").
#! entry: Prog.host
import pypto.language as pl
import pypto.language.distributed as pld

M = pl.dynamic("M")


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[M % 4 * 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [6, 8])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(self, x: pl.Tensor[[M % 4 * 2, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        return self.kernel(x, out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[4, M % 4 * 2, 8], pl.FP32],  ### "^E0235 the host cannot recover pl.dynamic dimension M from its tensor parameters: x has it only inside \(\(M % 4\) \* 2\)$"
        out: pl.Out[pl.Tensor[[4, 8, 8], pl.FP32]],
    ) -> pl.Tensor[[4, 8, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            o = self.dev(x[r], out[r], device=r)
        return out
---
# pld.tile.remote_load bounds its read the same way (InferWindowReadValidShape):
# offset 3 + 1 row is past a window of NR % 4 rows; offset 2 is not, nor
# is a read whose valid_shape keeps it inside; an offset known only at run
# time is the emulator's to check.
#! func: Pull.pull
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
SIZE = 16


@pl.program
class Pull:
    @pl.function(type=pl.FunctionType.InCore)
    def pull(
        self,
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        data: pl.InOut[pld.DistributedTensor[[NR % 4, SIZE], pl.FP32]],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        me = pld.rank(ctx)
        peer = (me + 1) % pld.nranks(ctx)
        t = pld.tile.remote_load(data, peer, [3, 0], [1, SIZE])  ### "^E0211 pld.tile.remote_load reads past the end of dimension 0 of target \[\(NR % 4\), 16\]: offset 3 \+ extent 1, but \(NR % 4\) is at most 3$"
        u = pld.tile.remote_load(data, peer, [2, 0], [1, SIZE])
        v = pld.tile.remote_load(data, peer, [2, 0], [2, SIZE], valid_shape=[1, SIZE])
        w = pld.tile.remote_load(data, peer, [me, 0], [1, SIZE])
        y = pl.store(u, [0, 0], y)
        return y
