# pl.array's rules and the row-sum and reshape tile ops, from PyPTO's type
# deduction (array_ops/memory.cpp, tile_ops/reduction.cpp, transform.cpp).
#! func: kernel
#! ranks: 2
import pypto.language as pl


@pl.jit.incore
def kernel(
    x: pl.Tensor[[8, 8], pl.FP32],
    y: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
):
    floats = pl.array.create(4, pl.FP32)  ### "^E0241 pl.array.create dtype is FP32, want an integer dtype or BOOL$"
    empty = pl.array.create(0, pl.INT32)  ### "^E0241 pl.array.create extent is 0, want > 0$"
    slots = pl.array.create(4, pl.INT8)
    wide = pl.cast(pl.read(x, [0, 0]), pl.INT32)
    slots[1] = wide  ### "^E0241 pl.array.update_element value is INT32 scalar, want INT8 elements of pl.array \[4\] INT8$"
    slots[2] = 3
    t = pl.load(x, [0, 0], [8, 8])
    half = pl.tile.create([8, 16], dtype=pl.FP16)
    s = pl.tile.row_sum(t, half)  ### "^E0242 pl.tile.row_sum tmp_tile is tile \[8, 16\] FP16, want the input's dtype FP32$"
    small = pl.tile.create([4, 8], dtype=pl.FP32)
    s2 = pl.tile.row_sum(t, small)  ### "^E0242 pl.tile.row_sum tmp_tile \[4, 8\] is smaller than the input \[8, 8\] in dimension 0$"
    r = pl.tile.reshape(t, [4, 8])  ### "^E0243 pl.tile.reshape of tile \[8, 8\] FP32 into \[4, 8\]: 64 elements cannot become 32$"
    v = slots[x]  ### "^E0205 pl.array.get_element index is"
    flags = pl.array.create(2, pl.BOOL)
    flags[0] = pl.read(x, [0, 0]) > 1.0
    typed: pl.Array[4, pl.INT32] = pl.array.create(4, pl.INT32)
    typed[0] = 2.5  ### "^E0241 pl.array.update_element value is FP32 scalar, want INT32 elements of pl.array \[4\] INT32$"
    typed[1] = t  ### "^E0205 pl.array.update_element value is tile \[8, 8\] FP32, want a scalar$"
    typed[2] = typed[0] + 1
    return pl.store(t, [0, 0], y)
---
# A pl.Array parameter: PyPTO compiles an orchestration function that fills
# an array and passes it to a kernel, but does not yet carry its values to
# the core (W0310); the emulator passes them (engine/emu TestArrayParam).
#! entry: ArrayParam.host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class ArrayParam:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(
        self,
        x: pl.Tensor[[4, 8], pl.FP32],
        rows: pl.Array[2, pl.INT32],
        out: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
    ) -> pl.Tensor[[2, 8], pl.FP32]:
        first = pl.load(x, [rows[0], 0], [1, 8])
        out = pl.store(first, [0, 0], out)
        second = pl.load(x, [rows[1], 0], [1, 8])
        out = pl.store(second, [1, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def pick_dev(
        self,
        x: pl.Tensor[[4, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
    ) -> pl.Tensor[[2, 8], pl.FP32]:
        rows = pl.array.create(2, pl.INT32)
        rows[0] = 3
        rows[1] = 1
        return self.pick(x, rows, out)  ### "^W0310 orchestration function \"pick_dev\" passes pl.Array rows to InCore kernel \"pick\", which PyPTO compiles but cannot yet hand to the kernel$"

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[2, 4, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 2, 8], pl.FP32]]) -> pl.Tensor[[2, 2, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            o = self.pick_dev(x[r], out[r], device=r)
        return out
