#! entry: broadcast_builtin
#! ranks: 2 3 4 8
#! golden: y[r] == x[ROOT] for every rank r, ROOT = 1 (FP32, exact copy); the other ranks' inputs never reach an output

"""Step 12, revealed - broadcast as one call.

``12_broadcast_hand.py`` had the root fill its box, notify every receiver,
and let everyone ``remote_load`` the root's box. Here the root still fills
its own copy of ``box`` (the builtin does not know where the data comes
from), and then every rank makes the same call:

    box = pld.tensor.broadcast(box, arrived, root=ROOT)

After it returns, every rank's *own* copy of ``box`` holds the root's
slice, so the read-out is a plain local ``pl.load``.

Three differences from the hand-rolled kernel are worth a look in the
lowered IR:

* ``root=`` must be a plain Python integer that the compiler can see, not
  a scalar argument: the root here is the module constant ``ROOT``.
* The builtin synchronises with a full barrier on an ``[NR, 1]`` signal
  (everyone notifies everyone) instead of one flag written by the root.
* It copies with ``pld.tensor.get`` into the local window, then clears its
  signal so the window can serve the next collective.

The root is rank 1, as in the hand-rolled file, and both host functions
take the same tensors, so ``workbench compare`` can run them side by side.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
# A window in a @pl.jit program has a constant shape, so a window with a
# row per rank has MAX_RANKS rows, the most ranks this file runs at; a run
# of P ranks uses the first P.
MAX_RANKS = 8
SIZE = 64
ROOT = 1


@pl.jit.incore
def broadcast_step(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: the root fills its box; one builtin call; read my own box."""
    ctx = pld.get_comm_ctx(box)
    me = pld.rank(ctx)

    if me == ROOT:
        payload = pl.load(x, [0, 0], [1, SIZE])
        box = pl.store(payload, [0, 0], box)
    box = pld.tensor.broadcast(box, arrived, root=ROOT)

    copy = pl.load(box, [0, 0], [1, SIZE])
    y = pl.store(copy, [0, 0], y)
    return y


@pl.jit
def broadcast_step_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return broadcast_step(x, y, box, arrived)


@pl.jit.host
def broadcast_builtin(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte box and one INT32 cell per rank for the builtin's barrier."""
    box_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        broadcast_step_dev(x[r], y[r], box, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 12 revealed: pld.tensor.broadcast from rank 1")
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
    compiled = broadcast_builtin.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = x[ROOT : ROOT + 1].expand_as(x)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
