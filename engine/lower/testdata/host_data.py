#! entry: build_host_data({P}).bcast_orch
#! entry: build_host_data({P}).gather_orch
#! entry: build_host_data({P}).scatter_orch
#! entry: build_host_data({P}).swap_orch
#! ranks: 2 3 4
#! golden: bcast_orch: y[r, 0, j] == x[ROOT, 0, j] (FP32, exact copy)
#! golden: gather_orch: y[r, s, j] == x[s, 0, j] (FP32, exact copy)
#! golden: scatter_orch: y[r, r, j] == sum over q of x[q, r, j]; y[r, s, j] == x[r, s, j] for s != r (HEAD's HOST builtin reduces row r only)
#! golden: swap_orch: y[r, s, j] == x[s, r, j] (FP32, exact copy)

"""The data-moving collectives called by the host orchestrator.

Each host orchestrator stages every rank's input into a window with one
dispatch, calls one builtin itself, and copies the window out with a second
dispatch. Every operand is its own window buffer and every call its own
rank-1 signal (host_reuse.py shares one signal among many calls).
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
ROOT = 1


def build_host_data(nr: int):
    """HOST broadcast, allgather, reduce_scatter and all_to_all for ``nr`` ranks."""

    @pl.program
    class HostData:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            t = pl.load(x, [0, 0], [1, SIZE])
            win = pl.store(t, [0, 0], win)
            return win

        @pl.function(type=pl.FunctionType.InCore)
        def fill_rows(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            win: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[nr, SIZE], pl.FP32]:
            t = pl.load(x, [0, 0], [nr, SIZE])
            win = pl.store(t, [0, 0], win)
            return win

        @pl.function(type=pl.FunctionType.InCore)
        def drain(
            self,
            win: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            t = pl.load(win, [0, 0], [1, SIZE])
            return pl.store(t, [0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def drain_rows(
            self,
            win: pld.DistributedTensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            t = pl.load(win, [0, 0], [nr, SIZE])
            return pl.store(t, [0, 0], y)

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
        def dev_drain_met(
            self,
            win: pld.DistributedTensor[[1, SIZE], pl.FP32],
            met: pld.DistributedTensor[[nr], pl.INT32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            # met is a view of the HOST barrier's signal buffer: handing it
            # to the ranks' dispatch gives the barrier its comm domain
            # (PyPTO's MaterializeCommDomainScopes refuses a barrier
            # without one).
            return self.drain(win, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_drain_rows(
            self,
            win: pld.DistributedTensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return self.drain_rows(win, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def bcast_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            done_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
            done = pld.window(done_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
                self.dev_fill(x[r], box, device=r)
            box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
            box = pld.tensor.broadcast(box, sig, root=ROOT)
            done = pld.tensor.barrier(done)
            for r in pl.range(pld.world_size()):
                met = pld.window(done_buf, [nr], dtype=pl.INT32)
                self.dev_drain_met(box, met, y[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def gather_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
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
            rows = pld.tensor.allgather(one, rows, sig)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(rows, y[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def scatter_orch(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            scatter_rows_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            scatter_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(scatter_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
                self.dev_fill_rows(x[r], rows, device=r)
            rows = pld.window(scatter_rows_buf, [nr, SIZE], dtype=pl.FP32)
            rows = pld.tensor.reduce_scatter(rows, sig, op=pld.ReduceOp.Sum)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(rows, y[r], device=r)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def swap_orch(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
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
            inbox = pld.tensor.all_to_all(outbox, inbox, sig)
            for r in pl.range(pld.world_size()):
                self.dev_drain_rows(inbox, y[r], device=r)
            return y

    return HostData
