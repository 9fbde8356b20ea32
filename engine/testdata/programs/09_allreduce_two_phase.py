#! entry: build_two_phase_allreduce({P}).two_phase_sum
#! ranks: 2 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""All-reduce, second version: reduce-scatter, then all-gather.

The 64-float slice is cut into ``nr`` chunks of ``chunk = SIZE // nr`` floats
and rank ``r`` is made responsible for chunk ``r``:

1. reduce-scatter: rank r adds up chunk r from every rank's window and
   writes the sum back into chunk r of its own window;
2. all-gather: every rank copies each finished chunk c from rank c.

Each rank reads only ``(nr - 1) / nr`` of a slice per phase instead of whole
slices. Writing the reduced chunk back into the same window is safe: during
reduce-scatter the other ranks read chunk q of this window (their own
index), never chunk r.

Two barriers, each on its own signal row of a ``[2, nr]`` window: row 0
before the reduce-scatter reads, row 1 before the all-gather reads. With one
row the second wait would pass on the first barrier's counts. The factory
refuses rank counts that do not divide SIZE.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_two_phase_allreduce(nr: int):
    """Return the two-phase all-reduce program for ``nr`` ranks (nr must divide SIZE)."""
    if SIZE % nr != 0:
        raise ValueError(f"SIZE={SIZE} does not split into equal chunks for this rank count, got {nr}")
    chunk = SIZE // nr

    @pl.program
    class TwoPhaseSum:
        @pl.function(type=pl.FunctionType.InCore)
        def split_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage, barrier, reduce my chunk, barrier, gather all chunks."""
            ctx = pld.get_comm_ctx(work)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)
            mine_at = me * chunk

            whole = pl.load(x, [0, 0], [1, SIZE])
            work = pl.store(whole, [0, 0], work)

            # Barrier on row 0: everyone has staged.
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(phase, peer, [0, me], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(phase, [0, src], 1, cmp=pld.WaitCmp.Ge)

            # Reduce-scatter: the sum of chunk `me` over all ranks.
            acc = pl.load(work, [0, mine_at], [1, chunk])
            for peer in pl.range(nranks):
                if peer != me:
                    piece = pld.tile.remote_load(work, peer, [0, mine_at], [1, chunk])
                    acc = pl.add(acc, piece)
            work = pl.store(acc, [0, mine_at], work)

            # Barrier on row 1: every chunk is reduced.
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(phase, peer, [1, me], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(phase, [1, src], 1, cmp=pld.WaitCmp.Ge)

            # All-gather: chunk c comes from its owner, rank c (myself included).
            for c in pl.range(nranks):
                done = pld.tile.remote_load(work, c, [0, c * chunk], [1, chunk])
                y = pl.store(done, [0, c * chunk], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_orch(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.split_step(x, y, work, phase)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def two_phase_sum(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one data window (256 B) and a [2, nr] signal window."""
            work_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
            phase_buf = pld.alloc_window_buffer([2, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                work = pld.window(work_buf, [1, SIZE], dtype=pl.FP32)
                phase = pld.window(phase_buf, [2, nr], dtype=pl.INT32)
                self.dev_orch(x[r], y[r], work, phase, device=r)
            return y

    return TwoPhaseSum


def golden(x: torch.Tensor) -> torch.Tensor:
    """Every rank ends with the sum over ranks."""
    return x.sum(dim=0, keepdim=True).repeat(x.shape[0], 1, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description="two-phase all-reduce (reduce-scatter + all-gather)")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help=f"device ids; their count must divide {SIZE}")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_two_phase_allreduce(nr)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros_like(x)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = golden(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
