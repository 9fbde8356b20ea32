#! entry: build_two_phase_allreduce({P}).two_phase
#! ranks: 2 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: race read at line 86 (before rank \d+'s store|what rank \d+ stored) at line 74

"""Step 09's classic bug: both barriers on signal row 0.

This is 09_allreduce_two_phase.py with barrier B copied from barrier A
without changing its row: it notifies ``[0, me]`` and waits on ``[0, src]
>= 1``, the same cells barrier A already filled. So barrier B waits for
nothing. By the time a rank reaches it every peer has already added its 1
to row 0, and the rank runs straight into the all-gather, where it can read
a peer's chunk before that peer has written its reduced sum over it.

Under the fair schedule the ranks happen to move in step and the answer is
right, which is why the check also runs the adversarial schedule: there the
writes are held back as long as the synchronisation allows, and the race
detector names the all-gather's remote load and the reduce-scatter's store
that nothing orders. The fix is the solution's: give each barrier its own
row, ``[1, me]`` and ``[1, src]`` for barrier B (or count on to ``>= 2``
on row 0).
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
            for peer in pl.range(nranks):
                if peer != me:
                    part = pld.tile.remote_load(data, peer, [0, mine_at], [1, chunk])
                    acc = pl.add(acc, part)
            data = pl.store(acc, [0, mine_at], data)

            # Barrier B, copied from A. The bug: still row 0, already counted.
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(phase, peer, [0, me], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(phase, [0, src], 1, cmp=pld.WaitCmp.Ge)

            # All-gather: chunk c comes from its owner, rank c.
            for c in pl.range(nranks):
                done = pld.tile.remote_load(data, c, [0, c * chunk], [1, chunk])
                y = pl.store(done, [0, c * chunk], y)
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
    ap = argparse.ArgumentParser(description="step 09's bug: both barriers on signal row 0")
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
