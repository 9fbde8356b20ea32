#! entry: broadcast_hand
#! ranks: 2 3 4 8
#! golden: y[r] == x[ROOT] for every rank r, ROOT = 1 (FP32, exact copy); the other ranks' inputs never reach an output

"""Step 12 - broadcast, by hand.

One rank, the root, has a slice; afterwards every rank has a copy of it.
The other ranks' inputs are ignored.

1. the root stages its slice in its copy of the ``box`` window;
2. the root notifies every other rank: "the box is full";
3. every rank other than the root waits for that notify;
4. every rank, the root included, copies the root's box into its output
   with ``pld.tile.remote_load`` (reading your own rank is allowed).

Only one rank has anything to announce, so a full barrier (everyone
notifying everyone, as in step 04) is more than a broadcast needs: one
notify per receiver from the root is enough. The signal window is a single
INT32 cell per rank, ``[1, 1]``, written only by the root.

The root is rank 1, not rank 0, so a kernel that quietly assumes "the root
is rank 0" shows its mistake. It reaches the kernel as an INT32 scalar
argument, after the tensors. (The builtin ``pld.tensor.broadcast`` wants
``root=`` as a plain Python integer instead.)
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

    copy = pld.tile.remote_load(box, root, [0, 0], [1, SIZE])
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
    ap = argparse.ArgumentParser(description="step 12: hand-rolled broadcast from rank 1")
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
