#! entry: build_two_phase_allreduce({P}).two_phase
#! ranks: 2 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 09 - all-reduce, version 2: reduce-scatter, then all-gather.

In the mesh every rank summed the whole slice. Here the work is shared out:
cut the slice into ``nr`` chunks and make rank ``c`` responsible for chunk
``c``.

1. stage my slice in my copy of the ``data`` window, then barrier A;
2. reduce-scatter: add up chunk ``me`` from every rank (my own copy plus a
   ``remote_load`` from each peer) and write the sum back over chunk ``me``
   of my own window;
3. barrier B;
4. all-gather: fetch chunk ``c`` from its owner, rank ``c``, for every
   ``c`` (my own included), into the matching place of my output.

Writing the sum back into ``data`` in step 2 is safe, and worth seeing why:
during the reduce-scatter, peers read chunk ``p`` of my window for their own
``p != me``, never chunk ``me``. Nobody reads what I overwrite until barrier
B, which is exactly when it must be final.

Each phase moves ``(nr - 1)`` chunks of ``SIZE / nr`` floats per rank, so
the total is ``2 * (nr - 1) / nr * SIZE`` instead of the mesh's
``(nr - 1) * SIZE``, for one extra barrier.

The two barriers need separate signal cells. Reusing one would let barrier
B pass on barrier A's counts, and the all-gather would read half-reduced
chunks. The signal window is ``[2, nr]``: row = which barrier, column = the
rank that arrives.

The chunk width ``SIZE // nr`` has to be a shape constant, and window and
tile shapes must be known when the program is built, so the program is made
by a factory: ``build_two_phase_allreduce(nr)`` returns a ``@pl.program``
class in which ``nr`` and ``chunk`` are plain numbers. The factory refuses
rank counts that do not divide ``SIZE``. At 64 floats that allows 2, 4, 8 (and
16, whose 16-byte chunks are too narrow for a hardware tile).
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

            # Barrier B, row 1: every chunk is reduced.
            for peer in pl.range(nranks):
                if peer != me:
                    pld.system.notify(phase, peer, [1, me], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nranks):
                if src != me:
                    pld.system.wait(phase, [1, src], 1, cmp=pld.WaitCmp.Ge)

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
