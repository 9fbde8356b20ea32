# while, break and continue where PyPTO compiles them. A @pl.program
# method's while loop carries its names (the parser leaves the loop to
# ConvertToSSA): the kernel adds 1 per rank with one, skips one of four
# iterations with continue, adds 1000 twice in PyPTO's SSA form of a while
# loop (pl.while_ with pl.cond and pl.yield_), and leaves a nested loop
# early with break (a break out of a kernel's outermost loop is E0417). The
# host ends a loop with break.
#! entry: build(2).host
#! ranks: 2
#! pypto: compiles
import pypto.language as pl
import pypto.language.distributed as pld

H = 4
W = 16


def build(nr: int):
    @pl.program
    class LoopControl:
        @pl.function(type=pl.FunctionType.InCore)
        def count(
            self,
            x: pl.Tensor[[H, W], pl.FP32],
            y: pl.Out[pl.Tensor[[H, W], pl.FP32]],
            rank: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[H, W], pl.FP32]:
            t = pl.load(x, [0, 0], [H, W])
            n = 0
            while n < rank:
                t = pl.add(t, 1.0)
                n = n + 1
            for i in pl.range(4):
                if i == 1:
                    continue
                t = pl.add(t, 10.0)
            for (k, u) in pl.while_(init_values=(0, t)):
                pl.cond(k < 2)
                u2 = pl.add(u, 1000.0)
                k2 = k + 1
                k_out, t = pl.yield_(k2, u2)
            for i in pl.range(2):
                for j in pl.range(4):
                    if j > rank:
                        break
                    t = pl.add(t, 100.0)
            return pl.store(t, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(
            self,
            x: pl.Tensor[[H, W], pl.FP32],
            y: pl.Out[pl.Tensor[[H, W], pl.FP32]],
            rank: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[H, W], pl.FP32]:
            return self.count(x, y, rank)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(
            self,
            x: pl.Tensor[[nr, H, W], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, H, W], pl.FP32]],
        ) -> pl.Tensor[[nr, H, W], pl.FP32]:
            for w in pl.range(3):
                if w == 1:
                    break
            for r in pl.range(pld.world_size()):
                self.chip(x[r], y[r], r, device=r)
            return y

    return LoopControl
