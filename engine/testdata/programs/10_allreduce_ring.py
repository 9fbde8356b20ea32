#! entry: build_ring_allreduce({P}).ring_sum
#! ranks: 2 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""All-reduce, third version: a ring where each rank only talks to neighbours.

The slice is cut into ``nr`` chunks and the ranks form a ring; every round a
rank reads one chunk from its left neighbour. In reduce-scatter round ``s``
rank ``me`` adds the left neighbour's chunk ``(me - s - 1) mod nr`` into its
own copy of that chunk; after ``nr - 1`` rounds rank ``me`` holds the full sum
of chunk ``me + 1``. In all-gather round ``s`` it copies the finished chunk
``(me - s) mod nr`` from the left neighbour. That is ``2 * (nr - 1)`` rounds
moving ``SIZE / nr`` floats each.

Synchronisation is a neighbour handshake, one signal row per round: after
writing what the right neighbour will read next, notify it on the next row;
before reading from the left neighbour, wait for its notify on this row. The
``[2 * (nr - 1), nr]`` window starts zeroed and every cell is written once, so
AtomicAdd(1)/Ge(1) needs no reset. The last all-gather round notifies nobody:
its row would be one past the end.

The chunk stride reaches the kernel as an INDEX scalar argument, after all the
tensors; the tile shapes use the factory constant ``chunk``.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_ring_allreduce(nr: int):
    """Return the ring all-reduce program for ``nr`` ranks (nr must divide SIZE)."""
    if SIZE % nr != 0:
        raise ValueError(f"ring chunks need SIZE={SIZE} to be a multiple of the rank count, got {nr}")
    total_rounds = 2 * (nr - 1)
    chunk = SIZE // nr

    @pl.program
    class RingSum:
        @pl.function(type=pl.FunctionType.InCore)
        def ring_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            ring: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[total_rounds, nr], pl.INT32]],
            seg: pl.Scalar[pl.INDEX],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage, nr-1 reduce rounds, nr-1 gather rounds, write out."""
            ctx = pld.get_comm_ctx(ring)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)
            left = (me - 1 + nranks) % nranks
            right = (me + 1) % nranks

            for c in pl.range(nranks):
                piece = pl.load(x, [0, c * seg], [1, chunk])
                ring = pl.store(piece, [0, c * seg], ring)
            pld.system.notify(turn, right, [0, me], 1, op=pld.NotifyOp.AtomicAdd)

            # Reduce-scatter.
            for s in pl.range(nranks - 1):
                idx = (me - s - 1 + nranks) % nranks
                pld.system.wait(turn, [s, left], 1, cmp=pld.WaitCmp.Ge)
                incoming = pld.tile.remote_load(ring, left, [0, idx * seg], [1, chunk])
                acc = pl.load(ring, [0, idx * seg], [1, chunk])
                acc = pl.add(acc, incoming)
                ring = pl.store(acc, [0, idx * seg], ring)
                # Chunk idx is what the right neighbour reads in round s + 1.
                pld.system.notify(turn, right, [s + 1, me], 1, op=pld.NotifyOp.AtomicAdd)

            # All-gather; its rows follow the nr - 1 reduce-scatter rows.
            for s in pl.range(nranks - 1):
                idx = (me - s + nranks) % nranks
                row = nranks - 1 + s
                pld.system.wait(turn, [row, left], 1, cmp=pld.WaitCmp.Ge)
                incoming = pld.tile.remote_load(ring, left, [0, idx * seg], [1, chunk])
                ring = pl.store(incoming, [0, idx * seg], ring)
                if s < nranks - 2:
                    pld.system.notify(turn, right, [row + 1, me], 1, op=pld.NotifyOp.AtomicAdd)

            for c in pl.range(nranks):
                piece = pl.load(ring, [0, c * seg], [1, chunk])
                y = pl.store(piece, [0, c * seg], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_orch(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            ring: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            turn: pl.InOut[pld.DistributedTensor[[total_rounds, nr], pl.INT32]],
            seg: pl.Scalar[pl.INDEX],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.ring_step(x, y, ring, turn, seg)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def ring_sum(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: a data window and a [2*(nr-1), nr] signal window."""
            ring_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            turn_buf = pld.alloc_window_buffer([total_rounds, nr], dtype=pl.INT32)
            seg = SIZE // nr
            for r in pl.range(nr):
                ring = pld.window(ring_buf, [1, SIZE], dtype=pl.FP32)
                turn = pld.window(turn_buf, [total_rounds, nr], dtype=pl.INT32)
                self.dev_orch(x[r], y[r], ring, turn, seg, device=r)
            return y

    return RingSum


def golden(x: torch.Tensor) -> torch.Tensor:
    """Every rank ends with the sum over ranks."""
    return x.sum(dim=0, keepdim=True).repeat(x.shape[0], 1, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description="ring all-reduce with neighbour handshakes")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help=f"device ids; their count must divide {SIZE}")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_ring_allreduce(nr)
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
