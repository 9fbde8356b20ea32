# A tile's type is its shape, dtype, memory space and valid shape (PyPTO's
# TileView): a @pl.program method cannot rebind a tile name to a tile in
# another memory space (pl.move, pl.load(target_memory=)) or with another
# valid shape; an elementwise result keeps its left operand's, and a
# valid_shape equal to the tile's shape is no view.
#! entry: Loops.host_orch
#! ranks: 1
import pypto.language as pl


@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def add(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 16])
        tb = pl.load(a, [0, 0], [16, 16], valid_shape=[8, 16])
        ta = pl.add(ta, tb)
        ta = pl.move(ta, target_memory=pl.Mem.Vec)
        tc = pl.load(a, [0, 0], [16, 16], valid_shape=[16, 16])
        ta = pl.add(ta, tc)
        ta = pl.move(ta, target_memory=pl.Mem.Mat)  ### "^E0249 cannot rebind ta to tile \[16, 16\] FP32 in Mat: it is tile \[16, 16\] FP32,"
        return pl.store(ta, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        k = 0
        pass
        return self.add(a, f, k)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        pass
        out_f: pl.Tensor[[16, 16], pl.FP32] = self.chip_orch(a, f)
        return out_f
---
import pypto.language as pl


@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def add(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 16])
        tb = pl.load(a, [0, 0], [16, 16], valid_shape=[8, 16])
        ta = pl.add(tb, ta)  ### "^E0249 cannot rebind ta to tile \[16, 16\] FP32 \(valid \[8, 16\]\): it is tile \[16, 16\] FP32,"
        return pl.store(ta, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        k = 0
        pass
        return self.add(a, f, k)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        pass
        out_f: pl.Tensor[[16, 16], pl.FP32] = self.chip_orch(a, f)
        return out_f
---
import pypto.language as pl


@pl.program
class Loops:
    @pl.function(type=pl.FunctionType.InCore)
    def add(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 16])
        n = rank + 1
        ta = pl.load(a, [0, 0], [16, 16], valid_shape=[n, 16])  ### "^E0249 cannot rebind ta to tile \[16, 16\] FP32 \(valid \[\?, 16\]\)"
        return pl.store(ta, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        k = 0
        pass
        return self.add(a, f, k)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        pass
        out_f: pl.Tensor[[16, 16], pl.FP32] = self.chip_orch(a, f)
        return out_f
