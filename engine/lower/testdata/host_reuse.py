#! entry: build_host_reuse({P}).barrier_orch
#! entry: build_host_reuse({P}).mesh_orch
#! entry: build_host_reuse({P}).lanes_orch
#! entry: build_host_reuse({P}).ring_orch
#! entry: build_host_reuse({P}).bcast_orch
#! entry: build_host_reuse({P}).scatter_orch
#! entry: build_host_reuse({P}).gather_orch
#! entry: build_host_reuse({P}).swap_orch
#! entry: build_host_reuse({P}).swapv_orch
#! ranks: 2 3 4
#! golden: every entry: tally[r] == 0 everywhere (INT32, exact): the signal is back at zero
#! golden: barrier_orch: y[r] == x[r]; bcast_orch: y[r] == x[ROOT]; gather_orch: y[r, s] == x[s]; swap_orch, swapv_orch: y[r, s] == x[s, r]
#! golden: mesh_orch, lanes_orch, ring_orch: y[r] == P**3 * (sum over q of x[q]) (four calls on one window)
#! golden: scatter_orch: row r of y[r] == x[r, r] + 4 * (sum over q != r of x[q, r]); the other rows of y[r] == x[r]

"""One signal window for every call of a HOST builtin.

Each host orchestrator stages its data, calls one HOST builtin twice back
to back and twice more inside a loop, all on one signal window, then copies
the data and the signal out. The builtins end with the self-clearing
epilogue of upstream HEAD (commit 9533ae36b), so every call starts from a
zero signal and the copied signal is all zero. Without the epilogue the
second call's waits would pass on the first call's credits. (The host
joins every rank at the end of each dispatch loop, a builtin's own
included, so the calls in the loop are ordered as the ones before it are;
the loop is here because HEAD allows an explicit signal there.)
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 96
ROOT = 1


def build_host_reuse(nr: int):
    """Each HOST builtin, four times on one signal, for ``nr`` ranks."""
    ring_rows = 2 * (nr - 1) + 1

    @pl.program
    class HostReuse:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            win = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], win)
            return win

        @pl.function(type=pl.FunctionType.InCore)
        def fill_rows(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[nr, SIZE], pl.FP32]:
            win = pl.store(pl.load(x, [0, 0], [nr, SIZE]), [0, 0], win)
            return win

        @pl.function(type=pl.FunctionType.InCore)
        def drain(
            self,
            win: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return pl.store(pl.load(win, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def drain_rows(
            self,
            win: pld.DistributedTensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return pl.store(pl.load(win, [0, 0], [nr, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def tally_cells(
            self,
            sig: pld.DistributedTensor[[nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[nr], pl.INT32]],
        ) -> pl.Tensor[[nr], pl.INT32]:
            for k in pl.range(nr):
                pl.write(tally, [k], pl.read(sig, [k]))
            return tally

        @pl.function(type=pl.FunctionType.InCore)
        def tally_grid(
            self,
            sig: pld.DistributedTensor[[ring_rows, nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[ring_rows, nr], pl.INT32]],
        ) -> pl.Tensor[[ring_rows, nr], pl.INT32]:
            for i in pl.range(ring_rows):
                for k in pl.range(nr):
                    pl.write(tally, [i, k], pl.read(sig, [i, k]))
            return tally

        @pl.function(type=pl.FunctionType.InCore)
        def tally_lanes(
            self,
            sig: pld.DistributedTensor[[nr, 2], pl.INT32],
            tally: pl.Out[pl.Tensor[[nr, 2], pl.INT32]],
        ) -> pl.Tensor[[nr, 2], pl.INT32]:
            for i in pl.range(nr):
                for k in pl.range(2):
                    pl.write(tally, [i, k], pl.read(sig, [i, k]))
            return tally

        @pl.function(type=pl.FunctionType.InCore)
        def one_each(
            self,
            counts: pl.InOut[pld.DistributedTensor[[nr], pl.INT32]],
        ) -> pld.DistributedTensor[[nr], pl.INT32]:
            for k in pl.range(nr):
                pl.write(counts, [k], 1)
            return counts

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_one_each(
            self,
            counts: pl.InOut[pld.DistributedTensor[[nr], pl.INT32]],
        ) -> pld.DistributedTensor[[nr], pl.INT32]:
            return self.one_each(counts)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_fill(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            return self.fill(x, win)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_fill_rows(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[nr, SIZE], pl.FP32]:
            return self.fill_rows(x, win)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_drain(
            self,
            win: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.drain(win, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_drain_rows(
            self,
            win: pld.DistributedTensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return self.drain_rows(win, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_tally_cells(
            self,
            sig: pld.DistributedTensor[[nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[nr], pl.INT32]],
        ) -> pl.Tensor[[nr], pl.INT32]:
            return self.tally_cells(sig, tally)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_tally_grid(
            self,
            sig: pld.DistributedTensor[[ring_rows, nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[ring_rows, nr], pl.INT32]],
        ) -> pl.Tensor[[ring_rows, nr], pl.INT32]:
            return self.tally_grid(sig, tally)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_tally_lanes(
            self,
            sig: pld.DistributedTensor[[nr, 2], pl.INT32],
            tally: pl.Out[pl.Tensor[[nr, 2], pl.INT32]],
        ) -> pl.Tensor[[nr, 2], pl.INT32]:
            return self.tally_lanes(sig, tally)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def barrier_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
            sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
            sig = pld.tensor.barrier(sig)
            sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
            sig = pld.tensor.barrier(sig)
            for i in pl.range(2):
                sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
                sig = pld.tensor.barrier(sig)
            for r in pl.range(pld.world_size()):
                self.dev_drain(box, y[r], device=r)
                cells = pld.window(sig_buf, [nr], dtype=pl.INT32)
                self.dev_tally_cells(cells, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def mesh_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            mesh_box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            mesh_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(mesh_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(mesh_box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(mesh_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum)
            box = pld.window(mesh_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum)
            for i in pl.range(2):
                box = pld.window(mesh_box_buf, [1, SIZE], dtype=pl.FP32)
                box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum)
            for r in pl.range(pld.world_size()):
                self.dev_drain(box, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def lanes_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr, 2], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            lanes_box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            lanes_sig_buf = pld.alloc_window_buffer([nr, 2], dtype=pl.INT32)
            sig = pld.window(lanes_sig_buf, [nr, 2], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(lanes_box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(lanes_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, core_num=2)
            box = pld.window(lanes_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, core_num=2)
            for i in pl.range(2):
                box = pld.window(lanes_box_buf, [1, SIZE], dtype=pl.FP32)
                box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, core_num=2)
            for r in pl.range(pld.world_size()):
                self.dev_drain(box, y[r], device=r)
                self.dev_tally_lanes(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def ring_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, ring_rows, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            ring_box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            ring_sig_buf = pld.alloc_window_buffer([ring_rows, nr], dtype=pl.INT32)
            sig = pld.window(ring_sig_buf, [ring_rows, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(ring_box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(ring_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, mode="ring")
            box = pld.window(ring_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, mode="ring")
            for i in pl.range(2):
                box = pld.window(ring_box_buf, [1, SIZE], dtype=pl.FP32)
                box = pld.tensor.allreduce(box, sig, op=pld.ReduceOp.Sum, mode="ring")
            for r in pl.range(pld.world_size()):
                self.dev_drain(box, y[r], device=r)
                self.dev_tally_grid(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def bcast_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            bcast_box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            bcast_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(bcast_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(bcast_box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(bcast_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.broadcast(box, sig, root=ROOT)
            box = pld.window(bcast_box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.broadcast(box, sig, root=ROOT)
            for i in pl.range(2):
                box = pld.window(bcast_box_buf, [1, SIZE], dtype=pl.FP32)
                box = pld.tensor.broadcast(box, sig, root=ROOT)
            for r in pl.range(pld.world_size()):
                self.dev_drain(box, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def scatter_orch(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            scatter_rows_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            scatter_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(scatter_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
                self.dev_fill_rows(x[r], rows, device=r)
            rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
            rows = pld.tensor.reduce_scatter(rows, sig, op=pld.ReduceOp.Sum)
            rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
            rows = pld.tensor.reduce_scatter(rows, sig, op=pld.ReduceOp.Sum)
            for i in pl.range(2):
                rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
                rows = pld.tensor.reduce_scatter(rows, sig, op=pld.ReduceOp.Sum)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(rows, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def gather_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            gather_one_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            gather_rows_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            gather_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            rows = pld.window(gather_rows_buf, [nr, SIZE], dtype=pl.FP32)
            sig = pld.window(gather_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                one = pld.window(gather_one_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], one, device=r)
            one = pld.window(gather_one_buf, [1, SIZE], dtype=pl.FP32)
            rows = pld.window(gather_rows_buf, [nr, SIZE], dtype=pl.FP32)
            rows = pld.tensor.allgather(one, rows, sig)
            rows = pld.window(gather_rows_buf, [nr, SIZE], dtype=pl.FP32)
            rows = pld.tensor.allgather(one, rows, sig)
            for i in pl.range(2):
                rows = pld.window(gather_rows_buf, [nr, SIZE], dtype=pl.FP32)
                rows = pld.tensor.allgather(one, rows, sig)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(rows, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def swap_orch(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            swap_out_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            swap_in_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            swap_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            inbox = pld.window(swap_in_buf, [nr, SIZE], dtype=pl.FP32)
            sig = pld.window(swap_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                outbox = pld.window(swap_out_buf, [nr, SIZE], dtype=pl.FP32)
                self.dev_fill_rows(x[r], outbox, device=r)
            outbox = pld.window(swap_out_buf, [nr, SIZE], dtype=pl.FP32)
            inbox = pld.window(swap_in_buf, [nr, SIZE], dtype=pl.FP32)
            inbox = pld.tensor.all_to_all(outbox, inbox, sig)
            inbox = pld.window(swap_in_buf, [nr, SIZE], dtype=pl.FP32)
            inbox = pld.tensor.all_to_all(outbox, inbox, sig)
            for i in pl.range(2):
                inbox = pld.window(swap_in_buf, [nr, SIZE], dtype=pl.FP32)
                inbox = pld.tensor.all_to_all(outbox, inbox, sig)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(inbox, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def swapv_orch(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            swapv_out_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            swapv_in_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            swapv_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            swapv_counts_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            swapv_recv_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            inbox = pld.window(swapv_in_buf, [nr, SIZE], dtype=pl.FP32)
            sig = pld.window(swapv_sig_buf, [nr], dtype=pl.INT32)
            recv = pld.window(swapv_recv_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                outbox = pld.window(swapv_out_buf, [nr, SIZE], dtype=pl.FP32)
                self.dev_fill_rows(x[r], outbox, device=r)
                counts = pld.window(swapv_counts_buf, [nr], dtype=pl.INT32)
                self.dev_one_each(counts, device=r)
            outbox = pld.window(swapv_out_buf, [nr, SIZE], dtype=pl.FP32)
            counts = pld.window(swapv_counts_buf, [nr], dtype=pl.INT32)
            inbox = pld.window(swapv_in_buf, [nr, SIZE], dtype=pl.FP32)
            inbox = pld.tensor.all_to_all_v(outbox, inbox, sig, counts, recv)
            inbox = pld.window(swapv_in_buf, [nr, SIZE], dtype=pl.FP32)
            inbox = pld.tensor.all_to_all_v(outbox, inbox, sig, counts, recv)
            for i in pl.range(2):
                inbox = pld.window(swapv_in_buf, [nr, SIZE], dtype=pl.FP32)
                inbox = pld.tensor.all_to_all_v(outbox, inbox, sig, counts, recv)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(inbox, y[r], device=r)
                self.dev_tally_cells(sig, tally[r], device=r)
            return y

    return HostReuse
