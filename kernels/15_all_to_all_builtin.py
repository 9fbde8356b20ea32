#! entry: all_to_all_builtin
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
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
SIZE = 64


@pl.jit.incore
def all_to_all_step(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    """AI cores: one builtin call, then copy my inbox out row by row."""
    ctx = pld.get_comm_ctx(inbox)
    nranks = pld.nranks(ctx)

    inbox = pld.tensor.all_to_all(x, inbox, arrived)
    for s in pl.range(nranks):
        row = pl.load(inbox, [s, 0], [1, SIZE])
        y = pl.store(row, [s, 0], y)
    return y


@pl.jit
def all_to_all_step_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    return all_to_all_step(x, y, inbox, arrived)


@pl.jit.host
def all_to_all_builtin(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] inbox window and an [NR, 1] signal window."""
    inbox_buf = pld.alloc_window_buffer(pld.world_size() * SIZE * pl.FP32.get_byte())
    arrived_buf = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [NR, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [NR, 1], dtype=pl.INT32)
        all_to_all_step_dev(x[r], y[r], inbox, arrived, device=r)


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
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = all_to_all_builtin.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = x.transpose(0, 1)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
