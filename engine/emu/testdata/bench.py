#! entry: build_bench_mesh(8, 1048576, 1048576).mesh_host
#! entry: build_bench_mesh(8, 1048576, 4096).mesh_host
#! entry: build_bench_barrier(256).barrier_host
#! entry: build_bench_ring(8, 1024).ring_host
#! ranks: 8
"""The emulator's benchmark workloads.

build_bench_mesh(nr, size, width): a mesh all-reduce of ``size`` FP32 per
rank, staged into a window, a hand-rolled barrier, then every rank sums its
own slice and every peer's, ``width`` elements (one tile) at a time.

build_bench_barrier(nr): a hand-rolled barrier and nothing else: each rank
bumps its cell in every peer's signal window and waits for all of its own.

build_bench_ring(nr, size): step 10's ring all-reduce of ``size`` FP32 per
rank, with one signal cell per round (only the left neighbour writes a
rank's row): 2(nr-1) rounds of a wait, a remote_load and an add of
``size // nr`` floats, and a notify to the right.

build_bench_host(nr, size, width): the HOST all-reduce: every rank stages
its slice into a window, the host calls pld.tensor.allreduce on it, every
rank copies the sum out, ``width`` elements at a time.
"""

import pypto.language as pl
import pypto.language.distributed as pld


def build_bench_mesh(nr: int, size: int, width: int):
    """Mesh all-reduce of size floats per rank in tiles of width floats."""
    if size % width != 0:
        raise ValueError(f"width {width} must divide size {size}")
    chunks = size // width

    @pl.program
    class BenchMesh:
        @pl.function(type=pl.FunctionType.InCore)
        def mesh_step(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            ready: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            ctx = pld.get_comm_ctx(data)
            me = pld.rank(ctx)
            for c in pl.range(chunks):
                piece = pl.load(x, [0, c * width], [1, width])
                data = pl.store(piece, [0, c * width], data)
            for p in pl.range(nr):
                if p != me:
                    pld.system.notify(ready, p, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(nr):
                if p != me:
                    pld.system.wait(ready, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            for c in pl.range(chunks):
                acc = pl.load(data, [0, c * width], [1, width])
                for p in pl.range(nr):
                    if p != me:
                        acc = pl.add(acc, pld.tile.remote_load(data, p, [0, c * width], [1, width]))
                y = pl.store(acc, [0, c * width], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def mesh_dev(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            ready: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            return self.mesh_step(x, y, data, ready)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def mesh_host(
            self,
            x: pl.Tensor[[nr, 1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, size], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, size], pl.FP32]:
            data_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            ready_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, size], dtype=pl.FP32)
                ready = pld.window(ready_buf, [nr, 1], dtype=pl.INT32)
                self.mesh_dev(x[r], y[r], data, ready, device=r)
            return y

    return BenchMesh


def build_bench_barrier(nr: int):
    """A hand-rolled barrier across nr ranks."""

    @pl.program
    class BenchBarrier:
        @pl.function(type=pl.FunctionType.InCore)
        def arrive(self, ready: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]]):
            ctx = pld.get_comm_ctx(ready)
            me = pld.rank(ctx)
            for p in pl.range(nr):
                if p != me:
                    pld.system.notify(ready, p, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(nr):
                if p != me:
                    pld.system.wait(ready, [p, 0], 1, cmp=pld.WaitCmp.Ge)

        @pl.function(type=pl.FunctionType.Orchestration)
        def arrive_dev(self, ready: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]]):
            self.arrive(ready)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def barrier_host(self):
            ready_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                ready = pld.window(ready_buf, [nr, 1], dtype=pl.INT32)
                self.arrive_dev(ready, device=r)

    return BenchBarrier


def build_bench_ring(nr: int, size: int):
    """Ring all-reduce of size floats per rank across nr ranks."""
    if size % nr != 0:
        raise ValueError(f"{nr} ranks must divide size {size}")
    chunk = size // nr
    rounds = 2 * (nr - 1)

    @pl.program
    class BenchRing:
        @pl.function(type=pl.FunctionType.InCore)
        def ring_step(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[rounds, 1], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            ctx = pld.get_comm_ctx(work)
            me = pld.rank(ctx)
            left = (me + nr - 1) % nr
            right = (me + 1) % nr
            mine = pl.load(x, [0, 0], [1, size])
            work = pl.store(mine, [0, 0], work)
            pld.system.notify(turn, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for s in pl.range(nr - 1):
                k = (me + 2 * nr - s - 2) % nr
                pld.system.wait(turn, [s, 0], 1, cmp=pld.WaitCmp.Ge)
                incoming = pld.tile.remote_load(work, left, [0, k * chunk], [1, chunk])
                acc = pl.load(work, [0, k * chunk], [1, chunk])
                acc = pl.add(acc, incoming)
                work = pl.store(acc, [0, k * chunk], work)
                pld.system.notify(turn, right, [s + 1, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for s in pl.range(nr - 1):
                k = (me + nr - s - 1) % nr
                row = nr - 1 + s
                pld.system.wait(turn, [row, 0], 1, cmp=pld.WaitCmp.Ge)
                finished = pld.tile.remote_load(work, left, [0, k * chunk], [1, chunk])
                work = pl.store(finished, [0, k * chunk], work)
                if s < nr - 2:
                    pld.system.notify(turn, right, [row + 1, 0], 1, op=pld.NotifyOp.AtomicAdd)
            total = pl.load(work, [0, 0], [1, size])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def ring_dev(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[rounds, 1], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            return self.ring_step(x, y, work, turn)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def ring_host(
            self,
            x: pl.Tensor[[nr, 1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, size], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, size], pl.FP32]:
            work_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            turn_buf = pld.alloc_window_buffer([rounds, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                work = pld.window(work_buf, [1, size], dtype=pl.FP32)
                turn = pld.window(turn_buf, [rounds, 1], dtype=pl.INT32)
                self.ring_dev(x[r], y[r], work, turn, device=r)
            return y

    return BenchRing


def build_bench_host(nr: int, size: int, width: int):
    """HOST all-reduce of size floats per rank, staged in tiles of width floats."""
    if size % width != 0:
        raise ValueError(f"width {width} must divide size {size}")
    chunks = size // width

    @pl.program
    class BenchHost:
        @pl.function(type=pl.FunctionType.InCore)
        def publish(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
        ) -> pld.DistributedTensor[[1, size], pl.FP32]:
            for c in pl.range(chunks):
                piece = pl.load(x, [0, c * width], [1, width])
                part = pl.store(piece, [0, c * width], part)
            return part

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self,
            part: pld.DistributedTensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            for c in pl.range(chunks):
                piece = pl.load(part, [0, c * width], [1, width])
                y = pl.store(piece, [0, c * width], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def publish_dev(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
        ) -> pld.DistributedTensor[[1, size], pl.FP32]:
            return self.publish(x, part)

        @pl.function(type=pl.FunctionType.Orchestration)
        def consume_dev(
            self,
            part: pld.DistributedTensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            return self.consume(part, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_host(
            self,
            x: pl.Tensor[[nr, 1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, size], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, size], pl.FP32]:
            part_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                part = pld.window(part_buf, [1, size], dtype=pl.FP32)
                self.publish_dev(x[r], part, device=r)
            # A fresh view of each window for every use: PyPTO's InOut use
            # discipline (E0233) refuses a view read after a call wrote it.
            part = pld.window(part_buf, [1, size], dtype=pl.FP32)
            arrived = pld.window(arrived_buf, [nr], dtype=pl.INT32)
            part = pld.tensor.allreduce(part, arrived, op=pld.ReduceOp.Sum)
            for r in pl.range(pld.world_size()):
                part = pld.window(part_buf, [1, size], dtype=pl.FP32)
                self.consume_dev(part, y[r], device=r)
            return y

    return BenchHost
