#! entry: build_pipeline({P}).pipeline
#! ranks: 2 3 4 8
#! golden: scaled[r] == (sum over k of x[k]) * w[ROOT] for every rank r (FP32, allclose rtol 1e-5 atol 1e-5), ROOT = 1
#! golden: table[r, s] == x[s] + w[ROOT] for every rank r and source s (FP32, exact); the other ranks' w never reach an output
#! bug: wrong_data ^scaled: \d+ of \d+ elements wrong: scaled\[0, 0, 0\] got -?0, want

"""Step 16's classic bug: the all-reduce runs on a window nobody staged.

This is 16_putting_it_together.py with the two lines that copy ``x`` into
``sum_box`` left out. The learner sees ``pld.tensor.allreduce`` take a
window and return the sum, and forgets that the builtin only reduces what
is already in the window: it never reads ``x``.

Every rank's window still holds the zeros it started with, so the sum is
zero and ``scaled`` comes out all zeros, while ``table`` (the all-gather
reads ``x`` itself) stays right. The run is clean; the check reports wrong
data in ``scaled`` at every rank count. The fix is the solution's
``pl.store(pl.load(x, ...), [0, 0], sum_box)`` before the all-reduce.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64
ROOT = 1


def build_pipeline(nr: int):
    """Return the broadcast + all-reduce + all-gather pipeline for ``nr`` ranks."""

    @pl.program
    class Pipeline:
        @pl.function(type=pl.FunctionType.InCore)
        def blend_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            w_in: pl.Tensor[[1, SIZE], pl.FP32],
            scaled: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            table: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            w_box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sum_box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            rows: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig_w: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_sum: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_rows: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            """AI cores: broadcast the weights, all-reduce x, all-gather x."""
            me = pld.rank(pld.get_comm_ctx(w_box))

            # 1. The root's weights, everywhere.
            if me == ROOT:
                weights = pl.load(w_in, [0, 0], [1, SIZE])
                w_box = pl.store(weights, [0, 0], w_box)
            w_box = pld.tensor.broadcast(w_box, sig_w, root=ROOT)
            w = pl.load(w_box, [0, 0], [1, SIZE])

            # 2. The sum over ranks, scaled by the weights.
            sum_box = pld.tensor.allreduce(sum_box, sig_sum, op=pld.ReduceOp.Sum, mode="mesh")
            total = pl.load(sum_box, [0, 0], [1, SIZE])
            scaled = pl.store(pl.mul(total, w), [0, 0], scaled)

            # 3. Every rank's x, in rank order, shifted by the weights.
            rows = pld.tensor.allgather(x, rows, sig_rows)
            for s in pl.range(nr):
                row = pl.load(rows, [s, 0], [1, SIZE])
                table = pl.store(pl.add(row, w), [s, 0], table)
            return table

        @pl.function(type=pl.FunctionType.Orchestration)
        def blend_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            w_in: pl.Tensor[[1, SIZE], pl.FP32],
            scaled: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            table: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            w_box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sum_box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            rows: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig_w: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_sum: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_rows: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SIZE], pl.FP32]:
            return self.blend_step(x, w_in, scaled, table, w_box, sum_box, rows, sig_w, sig_sum, sig_rows)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def pipeline(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            w: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            scaled: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            table: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, nr, SIZE], pl.FP32]:
            """Host: three data windows and three signal windows, one each per collective."""
            w_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sum_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            rows_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            sig_w_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            sig_sum_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            sig_rows_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                w_box = pld.window(w_buf, [1, SIZE], dtype=pl.FP32)
                sum_box = pld.window(sum_buf, [1, SIZE], dtype=pl.FP32)
                rows = pld.window(rows_buf, [nr, SIZE], dtype=pl.FP32)
                sig_w = pld.window(sig_w_buf, [nr, 1], dtype=pl.INT32)
                sig_sum = pld.window(sig_sum_buf, [nr, 1], dtype=pl.INT32)
                sig_rows = pld.window(sig_rows_buf, [nr, 1], dtype=pl.INT32)
                self.blend_dev(x[r], w[r], scaled[r], table[r], w_box, sum_box, rows, sig_w, sig_sum, sig_rows, device=r)
            return table

    return Pipeline


def main() -> int:
    ap = argparse.ArgumentParser(description="step 16: broadcast, all-reduce and all-gather in one kernel")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids (the root is rank {ROOT}), got {ids}")
    nr = len(ids)

    program = build_pipeline(nr)
    x = torch.randn(nr, 1, SIZE)
    w = torch.randn(nr, 1, SIZE)
    scaled = torch.zeros(nr, 1, SIZE)
    table = torch.zeros(nr, nr, SIZE)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, w, scaled, table)

    root_w = w[ROOT : ROOT + 1]
    want_scaled = (x.sum(dim=0, keepdim=True) * root_w).expand_as(x)
    want_table = (x.reshape(1, nr, SIZE) + root_w).expand(nr, nr, SIZE)
    assert torch.allclose(scaled, want_scaled, rtol=1e-5, atol=1e-5), f"P={nr}: scaled off by {(scaled - want_scaled).abs().max().item()}"
    assert torch.equal(table, want_table), f"P={nr}: table off by {(table - want_table).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
