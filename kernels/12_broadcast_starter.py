#! starter: the broadcast protocol: the root's notify to every other rank, the others' wait, and everyone's remote_load of the root's box
#! entry: broadcast_hand
#! ranks: 2 3 4 8

"""Step 12 starter - broadcast by hand. Your copy to edit.

Every rank must leave with the root's slice, ``y[r] = x[ROOT]``; the other
ranks' inputs are ignored. The root (rank 1, passed in as ``root``) stages
its slice in its copy of the ``box`` window. Then it has to tell the other
ranks the box is full, they have to wait for that, and every rank, the
root included, has to copy the root's box into its output. As shipped
nobody signals and every rank reads its own box: the root gets its slice,
the others get zeros. Fill in the gaps marked TODO(you), then run
``workbench step 12 --check FILE``. The lesson is tutorials/12-broadcast.md.

Write it by hand with notify, wait and remote_load; the builtin
``pld.tensor.broadcast`` is the lesson's reveal.
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
        # TODO(you): the root must tell every receiver that its box is
        #   full. How little signalling is enough, when only one rank has
        #   anything to say?
        # Placeholder: no notify.
        # ---- end of TODO ----
    # TODO(you): no receiver may read the root's box before the root has
    #   said it is full. (Fill this gap together with the one above: a
    #   receiver that waits for a signal nobody sends hangs.)
    # Placeholder: no wait.
    # ---- end of TODO ----

    # TODO(you): every rank, the root included, must end with the ROOT's
    #   box, not its own.
    # Placeholder: every rank reads its own box.
    copy = pl.load(box, [0, 0], [1, SIZE])
    # ---- end of TODO ----
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
