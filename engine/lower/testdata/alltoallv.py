#! entry: build_alltoallv({P}).host_orch
#! ranks: 2 3 4
#! golden: box[r, q*MAX_RECV + i, j] == x[q, r*MAX_RECV + i, j] for every rank r, source q, row i < MAX_RECV and column j (FP32, exact copy)
#! golden: got[r, q, 0] == min(counts[q, r], MAX_RECV) for every rank r and source q (INT32)

"""Variable-size all-to-all: every rank sends each peer up to MAX_RECV rows.

Rank q's input holds, in rows d*MAX_RECV .. (d+1)*MAX_RECV, the block it
sends to rank d, and counts[d] says how many of those rows are meant. The
builtin moves every whole block, so rank d's window receives rank q's block
in rows q*MAX_RECV onwards, and publishes the (capped) count in rank d's
recv window, row q.
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
MAX_RECV = 2


def build_alltoallv(nr: int):
    """all_to_all_v over ``nr`` ranks, MAX_RECV rows per pair."""
    rows = nr * MAX_RECV

    @pl.program
    class AllToAllV:
        @pl.function(type=pl.FunctionType.InCore)
        def swap(
            self,
            x: pl.Tensor[[rows, SIZE], pl.FP32],
            counts: pl.Tensor[[nr], pl.INT32],
            box_out: pl.Out[pl.Tensor[[rows, SIZE], pl.FP32]],
            got: pl.Out[pl.Tensor[[nr, 1], pl.INT32]],
            box: pl.InOut[pld.DistributedTensor[[rows, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            recv: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[rows, SIZE], pl.FP32]:
            box = pld.tensor.all_to_all_v(x, box, sig, counts, recv)
            landed = pl.load(box, [0, 0], [rows, SIZE])
            box_out = pl.store(landed, [0, 0], box_out)
            for q in pl.range(nr):
                pl.write(got, [q, 0], pl.read(recv, [q, 0]))
            return box_out

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[rows, SIZE], pl.FP32],
            counts: pl.Tensor[[nr], pl.INT32],
            box_out: pl.Out[pl.Tensor[[rows, SIZE], pl.FP32]],
            got: pl.Out[pl.Tensor[[nr, 1], pl.INT32]],
            box: pl.InOut[pld.DistributedTensor[[rows, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            recv: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[rows, SIZE], pl.FP32]:
            return self.swap(x, counts, box_out, got, box, sig, recv)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, rows, SIZE], pl.FP32],
            counts: pl.Tensor[[nr, nr], pl.INT32],
            box_out: pl.Out[pl.Tensor[[nr, rows, SIZE], pl.FP32]],
            got: pl.Out[pl.Tensor[[nr, nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, rows, SIZE], pl.FP32]:
            box_buf = pld.alloc_window_buffer([rows, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            recv_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(box_buf, [rows, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                recv = pld.window(recv_buf, [nr, 1], dtype=pl.INT32)
                self.dev(x[r], counts[r], box_out[r], got[r], box, sig, recv, device=r)
            return box_out

    return AllToAllV
