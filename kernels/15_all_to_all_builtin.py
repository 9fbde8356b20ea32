#! entry: build_all_to_all({P}).all_to_all_builtin
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, r, j] for every rank r, source s and column j (FP32, exact copy)

"""Step 15, revealed - all-to-all as one call.

    inbox = pld.tensor.all_to_all(x, inbox, arrived)

is the push version of ``15_all_to_all_hand.py`` in one line: row ``d`` of
my input goes into row ``me`` of rank ``d``'s ``inbox`` (a ``put`` per
destination, myself included), then a barrier. When the call returns, row
``s`` of my inbox is what rank ``s`` meant for me, and the kernel copies
the inbox out.

As with the all-gather, the source is my plain input tensor ``x``
(``[NR, SIZE]``, one row per destination) and the target is a window of the
same shape. They must be different tensors: with one buffer for both, a
peer's push could overwrite a row I have not sent yet. The checker refuses
the same expression in both places.

Nothing is reduced, so the result is an exact copy and the output can be
compared for equality.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_all_to_all(nr: int):
    """Return the program for ``nr`` ranks: window shapes are numbers when it is built."""

    @pl.program
    class AllToAll:
        @pl.function(type=pl.FunctionType.InCore)
        def all_to_all_step(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            """AI cores: one builtin call, then copy my inbox out row by row."""
            ctx = pld.get_comm_ctx(inbox)
            nranks = pld.nranks(ctx)

            inbox = pld.tensor.all_to_all(x, inbox, arrived)
            for s in pl.range(nranks):
                row = pl.load(inbox, [s, 0], [1, SIZE])
                y = pl.store(row, [s, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def all_to_all_step_dev(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SIZE], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            return self.all_to_all_step(x, y, inbox, arrived)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def all_to_all_builtin(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SIZE], pl.FP32]],
        ):
            """Host: an [nr, SIZE] inbox window and an [nr, 1] signal window."""
            inbox_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                inbox = pld.window(inbox_buf, [nr, SIZE], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.all_to_all_step_dev(x[r], y[r], inbox, arrived, device=r)

    return AllToAll


def main() -> int:
    ap = argparse.ArgumentParser(description="step 15 revealed: pld.tensor.all_to_all")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, nr, SIZE)
    compiled = ir.compile(
        build_all_to_all(nr),
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = x.transpose(0, 1)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
