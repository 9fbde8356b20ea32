#! starter: the all-gather phase of blend_step: collect every rank's x into rows, in rank order, with the builtin
#! entry: build_pipeline({P}).pipeline
#! ranks: 2 3 4 8

"""Step 16 starter - three builtins in one kernel. Your copy to edit.

The pipeline must broadcast the root's (rank 1's) weights ``w``, all-reduce
``x`` into ``scaled = sum * w``, and all-gather ``x`` into
``table[s] = x[s] + w``. The broadcast and the all-reduce are done; the
all-gather is not. As shipped each rank puts only its own ``x`` into its
``rows`` window, so every table row but the rank's own is just ``w``.
Fill in the gap marked TODO(you), then run
``workbench step 16 --check FILE``. The lesson is
tutorials/16-putting-it-together.md.
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
            mine = pl.load(x, [0, 0], [1, SIZE])
            sum_box = pl.store(mine, [0, 0], sum_box)
            sum_box = pld.tensor.allreduce(sum_box, sig_sum, op=pld.ReduceOp.Sum, mode="mesh")
            total = pl.load(sum_box, [0, 0], [1, SIZE])
            scaled = pl.store(pl.mul(total, w), [0, 0], scaled)

            # 3. Every rank's x, in rank order, shifted by the weights.
            # TODO(you): `rows` must end with every rank's x, row s from
            #   rank s, in one builtin call with a signal window of its own
            #   (one is already made for it). Builtins give the updated
            #   window back.
            # Placeholder: only your own x, in your own row.
            rows = pl.store(mine, [me, 0], rows)
            # ---- end of TODO ----
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
