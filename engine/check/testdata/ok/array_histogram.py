# A histogram kept in an on-core array, and a row sum turned into a row:
# counts[b] is how many of idx's 16 entries fall in bucket idx % 4, and
# sums[0, i] is the sum of row i of x (pl.tile.row_sum gives an [8, 1]
# column, pl.tile.reshape makes it [1, 8]).
#! entry: Histogram.host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

BUCKETS = 4
N = 16


@pl.program
class Histogram:
    @pl.function(type=pl.FunctionType.InCore)
    def tally(
        self,
        idx: pl.Tensor[[1, N], pl.INT32],
        x: pl.Tensor[[8, 8], pl.FP32],
        counts: pl.Out[pl.Tensor[[1, BUCKETS], pl.INT32]],
        sums: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, BUCKETS], pl.INT32], pl.Tensor[[1, 8], pl.FP32]]:
        hist = pl.array.create(BUCKETS, pl.INT32)
        for b in pl.range(BUCKETS):
            hist[b] = 0
        for i in pl.range(N):
            v = pl.read(idx, [0, i])
            b = v % BUCKETS
            hist[b] = hist[b] + 1
        for b in pl.range(BUCKETS):
            pl.write(counts, [0, b], pl.array.get_element(hist, b))
        rows = pl.load(x, [0, 0], [8, 8])
        scratch = pl.tile.create([8, 8], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        col: pl.Tile[[8, 1], pl.FP32] = pl.tile.row_sum(rows, scratch)
        line = pl.tile.reshape(col, [1, 8])
        sums = pl.store(line, [0, 0], sums)
        return counts, sums

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        idx: pl.Tensor[[1, N], pl.INT32],
        x: pl.Tensor[[8, 8], pl.FP32],
        counts: pl.Out[pl.Tensor[[1, BUCKETS], pl.INT32]],
        sums: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, BUCKETS], pl.INT32], pl.Tensor[[1, 8], pl.FP32]]:
        return self.tally(idx, x, counts, sums)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        idx: pl.Tensor[[2, 1, N], pl.INT32],
        x: pl.Tensor[[2, 8, 8], pl.FP32],
        counts: pl.Out[pl.Tensor[[2, 1, BUCKETS], pl.INT32]],
        sums: pl.Out[pl.Tensor[[2, 1, 8], pl.FP32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(idx[r], x[r], counts[r], sums[r], device=r)
