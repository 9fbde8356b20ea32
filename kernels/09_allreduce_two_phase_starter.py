#! starter: the reduce-scatter of chunk me, barrier B on its own signal row, and the all-gather of every chunk from its owner
#! entry: build_two_phase_allreduce({P}).two_phase
#! ranks: 2 4 8

"""Step 09 starter - all-reduce in two phases. Your copy to edit.

Every rank must leave with the element-wise sum of all the ranks' slices,
``y[r] = x[0] + ... + x[P-1]``, with the work shared out: the slice is cut
into ``nr`` chunks and rank ``c`` owns chunk ``c``. After staging and
barrier A (both given), each rank reduces its own chunk over all ranks and
writes the sum back into its window (reduce-scatter); after barrier B,
each rank fetches every chunk from its owner (all-gather). As shipped the
reduce-scatter adds nothing and the all-gather reads the rank's own window,
so ``y == x``. Fill in the gaps marked TODO(you), then run
``workbench step 9 --check FILE``. The lesson is
tutorials/09-allreduce-two-phase.md.

The program is built by a factory, ``build_two_phase_allreduce(nr)``, so
``nr`` and ``chunk = SIZE // nr`` are plain numbers inside it.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_two_phase_allreduce(nr: int):
    """Return the reduce-scatter + all-gather program for ``nr`` ranks."""
    if SIZE % nr != 0:
        raise ValueError(f"two-phase all-reduce splits SIZE={SIZE} into equal chunks; {nr} ranks do not divide it")
    chunk = SIZE // nr

    @pl.program
    class TwoPhase:
        @pl.function(type=pl.FunctionType.InCore)
        def two_phase_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage, barrier A, reduce my chunk, barrier B, gather."""
            ctx = pld.get_comm_ctx(data)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)
            mine_at = me * chunk

            mine = pl.load(x, [0, 0], [1, SIZE])
            data = pl.store(mine, [0, 0], data)

            # Barrier A, row 0: everyone has staged.
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(phase, peer, [0, me], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(phase, [0, src], 1, cmp=pld.WaitCmp.Ge)

            # Reduce-scatter: the sum of chunk `me` over all ranks.
            acc = pl.load(data, [0, mine_at], [1, chunk])
            # TODO(you): this rank owns chunk `me`; `acc` must end as that
            #   chunk summed over every rank. Where is each peer's piece of
            #   it?
            # Placeholder: `acc` stays this rank's own chunk.
            # ---- end of TODO ----
            data = pl.store(acc, [0, mine_at], data)

            # TODO(you): every rank must leave with every reduced chunk in
            #   `y`. Nobody may read a chunk before its owner has finished
            #   reducing it, and barrier A's cells cannot tell you that:
            #   they already hold what barrier A put there.
            # Placeholder: no barrier B, and each chunk read from your own
            # window.
            for c in pl.range(nranks):
                done = pl.load(data, [0, c * chunk], [1, chunk])
                y = pl.store(done, [0, c * chunk], y)
            # ---- end of TODO ----
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def two_phase_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.two_phase_step(x, y, data, phase)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def two_phase(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one data window, one [2, nr] signal window."""
            data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            phase_buf = pld.alloc_window_buffer([2, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                phase = pld.window(phase_buf, [2, nr], dtype=pl.INT32)
                self.two_phase_dev(x[r], y[r], data, phase, device=r)
            return y

    return TwoPhase


def expected(x: torch.Tensor) -> torch.Tensor:
    """The sum over ranks, on every rank."""
    return x.sum(dim=0, keepdim=True).expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 09: reduce-scatter + all-gather all-reduce")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help=f"comma-separated device ids; their count must divide {SIZE}")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_two_phase_allreduce(nr)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = expected(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
