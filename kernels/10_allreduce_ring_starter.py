#! starter: the work of each ring round: which chunk k, the remote_load from the left neighbour, the add (reduce-scatter) or copy (all-gather) into your own chunk
#! entry: build_ring_allreduce({P}).ring_allreduce
#! ranks: 2 4 8

"""Step 10 starter - the ring all-reduce. Your copy to edit.

Every rank must leave with the element-wise sum of all the ranks' slices,
``y[r] = x[0] + ... + x[P-1]``, talking only to its left neighbour. The
slice is cut into ``nr`` chunks. In reduce-scatter round ``s`` (``s = 0 ..
nr - 2``) a rank takes chunk ``k = (me - s - 2) mod nr`` from its left
neighbour and adds it into its own chunk ``k``; in all-gather round ``s``
it copies the finished chunk ``(me - s - 1) mod nr`` from its left
neighbour over its own. The handshake - one signal row per round, a wait
on the left neighbour before reading and a notify to the right one after
writing - is given. As shipped the rounds move no data, so ``y == x``.
Fill in the gaps marked TODO(you), then run ``workbench step 10 --check
FILE``. The lesson is tutorials/10-allreduce-ring.md.

Keep every index non-negative: ``%`` truncates toward zero on the device,
so add a multiple of ``nranks`` before taking it, as ``left`` does below.
The program is built by a factory, ``build_ring_allreduce(nr)``, so ``nr``,
``chunk = SIZE // nr`` and ``rounds = 2 * (nr - 1)`` are plain numbers.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_ring_allreduce(nr: int):
    """Return the ring all-reduce program for ``nr`` ranks (``nr`` must divide SIZE)."""
    if SIZE % nr != 0:
        raise ValueError(f"the ring splits SIZE={SIZE} into equal chunks; {nr} ranks do not divide it")
    chunk = SIZE // nr
    rounds = 2 * (nr - 1)

    @pl.program
    class Ring:
        @pl.function(type=pl.FunctionType.InCore)
        def ring_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[rounds, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: stage, nr-1 reduce rounds, nr-1 gather rounds, write out."""
            ctx = pld.get_comm_ctx(work)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)
            left = (me + nranks - 1) % nranks
            right = (me + 1) % nranks

            mine = pl.load(x, [0, 0], [1, SIZE])
            work = pl.store(mine, [0, 0], work)
            # Row 0: my staged chunks are ready for my right neighbour.
            pld.system.notify(turn, right, [0, me], 1, op=pld.NotifyOp.AtomicAdd)

            # Reduce-scatter.
            for s in pl.range(nranks - 1):
                pld.system.wait(turn, [s, left], 1, cmp=pld.WaitCmp.Ge)
                # TODO(you): one reduce-scatter round: pick the chunk this
                #   rank works on in round `s` (after the last round it must
                #   own the full sum of chunk `me`), add the left
                #   neighbour's partial sum of it into yours, and leave the
                #   result in `work` for the right neighbour.
                # Placeholder: nothing is added.
                # ---- end of TODO ----
                # The right neighbour reads chunk k next, on row s + 1. After
                # the last round that row is the first all-gather row.
                pld.system.notify(turn, right, [s + 1, me], 1, op=pld.NotifyOp.AtomicAdd)

            # All-gather.
            for s in pl.range(nranks - 1):
                row = nranks - 1 + s
                pld.system.wait(turn, [row, left], 1, cmp=pld.WaitCmp.Ge)
                # TODO(you): one all-gather round: copy the finished chunk
                #   your left neighbour has just completed or received over
                #   your own copy of it. Which chunk is that in round `s`?
                # Placeholder: nothing is copied.
                # ---- end of TODO ----
                if s < nranks - 2:
                    pld.system.notify(turn, right, [row + 1, me], 1, op=pld.NotifyOp.AtomicAdd)

            total = pl.load(work, [0, 0], [1, SIZE])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def ring_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[rounds, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.ring_step(x, y, work, turn)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def ring_allreduce(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: a data window and a [2 * (nr - 1), nr] signal window."""
            work_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            turn_buf = pld.alloc_window_buffer([rounds, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                work = pld.window(work_buf, [1, SIZE], dtype=pl.FP32)
                turn = pld.window(turn_buf, [rounds, nr], dtype=pl.INT32)
                self.ring_dev(x[r], y[r], work, turn, device=r)
            return y

    return Ring


def expected(x: torch.Tensor) -> torch.Tensor:
    """The sum over ranks, on every rank."""
    return x.sum(dim=0, keepdim=True).expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 10: ring all-reduce")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help=f"comma-separated device ids; their count must divide {SIZE}")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_ring_allreduce(nr)
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
