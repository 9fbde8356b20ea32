#! entry: broadcast_hand
#! ranks: 2 3 4 8
#! golden: y[r] == x[ROOT] for every rank r, ROOT = 1 (FP32, exact copy); the other ranks' inputs never reach an output
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[0, 0, 0\] got 0, want

"""Step 12's classic bug: every rank copies its own box.

This is 12_broadcast_hand.py with one word changed in the final copy: the
peer of the ``remote_load`` is ``me`` instead of ``root``. It reads well
("load the box into y") and it runs cleanly: the root still fills its box
and rings everyone, every non-root still waits for the ring, and nothing
races, because each rank reads only its own window.

But only the root's box was ever filled. Every other rank copies its own,
which still holds the zeros a window starts with, so the check reports
wrong data: all ``(P - 1) * SIZE`` elements outside the root's row are 0.
The root itself is right, which is why printing rank 1's output alone
proves nothing. The fix is the solution's ``remote_load(box, root, ...)``:
the data lives in the root's window, so that is the window to read.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
SIZE = 64
ROOT = 1


@pl.jit.incore
def broadcast_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    full: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    root: pl.Scalar[pl.INT32],
):
    """AI cores: the root fills its box and says so; everyone copies the root's box."""
    ctx = pld.get_comm_ctx(box)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    if me == root:
        payload = pl.load(x, [0, 0], [1, SIZE])
        box = pl.store(payload, [0, 0], box)
        for peer in pl.range(nranks):
            if peer != me:
                pld.system.notify(full, peer, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me != root:
        pld.system.wait(full, [0, 0], 1, cmp=pld.WaitCmp.Ge)

    copy = pld.tile.remote_load(box, me, [0, 0], [1, SIZE])  # the bug: my box, not the root's
    y = pl.store(copy, [0, 0], y)
    return y


@pl.jit
def broadcast_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    full: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    root: pl.Scalar[pl.INT32],
):
    return broadcast_kernel(x, y, box, full, root)


@pl.jit.host
def broadcast_hand(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte box and a one-cell flag, sized in bytes."""
    box_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
    full_buf = pld.alloc_window_buffer(pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
        full = pld.window(full_buf, [1, 1], dtype=pl.INT32)
        broadcast_dev(x[r], y[r], box, full, ROOT, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """The root's slice on every rank."""
    return x[ROOT : ROOT + 1].expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 12's bug: every rank copies its own box")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids (the root is rank {ROOT}), got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = broadcast_hand.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
