#! entry: build_allgather({P}).allgather_builtin
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, 0, j] for every rank r, source s and column j: every rank gets all slices in rank order (FP32, exact copy)

"""Step 13, revealed - all-gather as one call.

    gather = pld.tensor.allgather(x, gather, arrived)

does what ``13_allgather_hand.py`` wrote out: push my slice into row ``me``
of every rank's ``gather`` window (my own included), then a barrier. When
the call returns, row ``s`` of my copy is rank ``s``'s slice, and the
kernel only copies the window out.

The three operands play different parts:

* the source ``x`` is my plain input tensor, ``[1, SIZE]`` - not a tile and
  not a window. Called inside a kernel the builtin reads it directly;
* the target ``gather`` is an ``[NR, SIZE]`` window, one row per rank;
* ``arrived`` is the usual ``[NR, 1]`` INT32 signal.

Source and target must be different tensors. Were they the same, a peer's
push could land on the row I am still sending from; the checker refuses
it.

In the lowered IR the push is a ``pld.tensor.put`` per destination,
followed by the credit barrier and its clean-up.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_allgather(nr: int):
    """Return the program for ``nr`` ranks: window shapes are numbers when it is built."""

    @pl.program
    class AllGather:
        @pl.function(type=pl.FunctionType.InCore)
        def allgather_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            """AI cores: one builtin call, then copy every row of my window out."""
            ctx = pld.get_comm_ctx(gather)
            nranks = pld.nranks(ctx)

            gather = pld.tensor.allgather(x, gather, arrived)
            for s in pl.range(nranks):
                row = pl.load(gather, [s, 0], [1, SIZE])
                y = pl.store(row, [s, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def allgather_step_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            return self.allgather_step(x, y, gather, arrived)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def allgather_builtin(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
        ):
            """Host: an [nr, SIZE] gather window and an [nr, 1] signal window."""
            gather_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                gather = pld.window(gather_buf, [nr, SIZE], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.allgather_step_dev(x[r], y[r], gather, arrived, device=r)

    return AllGather


def main() -> int:
    ap = argparse.ArgumentParser(description="step 13 revealed: pld.tensor.allgather")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, nr, SIZE)
    compiled = ir.compile(
        build_allgather(nr),
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = x.reshape(1, nr, SIZE).expand(nr, nr, SIZE)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
