# A program with no HOST level: two chip orchestrations and their kernels,
# as PyPTO compiles into a single-chip program. Each orchestration is an
# entry of its own and runs on one chip; neither is the default.
#! entry: Blend.blend
#! ranks: 1
import pypto.language as pl

ROWS = 8
COLS = 32


@pl.program
class Blend:
    @pl.function(type=pl.FunctionType.InCore)
    def mix(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        w: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        tx = pl.load(x, [0, 0], [ROWS, COLS])
        tw = pl.load(w, [0, 0], [ROWS, COLS])
        return pl.store(pl.add(pl.mul(tx, tw), tx), [0, 0], out)

    @pl.function(type=pl.FunctionType.InCore)
    def gap(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        w: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        tx = pl.load(x, [0, 0], [ROWS, COLS])
        tw = pl.load(w, [0, 0], [ROWS, COLS])
        return pl.store(pl.sub(tw, tx), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def blend(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        w: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        blended = self.mix(x, w, out)
        return blended

    @pl.function(type=pl.FunctionType.Orchestration)
    def distance(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        w: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        d = self.gap(x, w, out)
        return d
