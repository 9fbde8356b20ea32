#! starter: the handshake of both kernels: the put or get that moves the slice, the notify that rings a doorbell, the wait on your own
#! entry: pass_by_put
#! entry: pass_by_get
#! ranks: 2 3 4 8

"""Step 06 starter - put and get. Your copy to edit.

Both entries must pass each rank's slice to its right neighbour,
``y[r] = x[(r - 1) mod P]``: ``pass_by_put`` with the sender copying into
the neighbour's ``inbox`` (``pld.tensor.put``), ``pass_by_get`` with the
receiver copying out of the neighbour's ``outbox`` (``pld.tensor.get``).
Either way a one-cell doorbell window, ``bell``, tells the other side when
the data is there. As shipped no data moves and no bell rings: each rank
ends up with its own slice. Fill in the gaps marked TODO(you), then run
``workbench step 6 --check FILE``. The lesson is tutorials/06-put-get.md.
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
def put_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """AI cores: put into the right inbox, ring its bell, wait for mine."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    # TODO(you): your slice must land in your right neighbour's inbox,
    #   pushed by you in one operation, and the neighbour must not read
    #   its inbox before your data is there. The `bell` window is how it
    #   learns that. Your own inbox fills the same way, from your left.
    #   (Add the signal and its wait together, or the run hangs.)
    # Placeholder: your own slice goes into your own inbox; no bell.
    inbox = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], inbox)
    # ---- end of TODO ----
    delivered = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(delivered, [0, 0], y)
    return y


@pl.jit.incore
def get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """AI cores: stage, ring my reader's bell, wait for mine, get."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)
    # TODO(you): the same exchange, pulled: `y` must end as your left
    #   neighbour's staged outbox, fetched by you in one operation, and
    #   not before the neighbour has staged it. Who has to tell whom?
    #   (Add the signal and its wait together, or the run hangs.)
    # Placeholder: your own slice goes straight to `y`.
    y = pl.store(mine, [0, 0], y)
    # ---- end of TODO ----
    return y


@pl.jit
def put_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return put_kernel(x, y, inbox, bell)


@pl.jit
def get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return get_kernel(x, y, outbox, bell)


@pl.jit.host
def pass_by_put(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an inbox window and a one-cell doorbell."""
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        put_dev(x[r], y[r], inbox, bell, device=r)


@pl.jit.host
def pass_by_get(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an outbox window and a one-cell doorbell."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        get_dev(x[r], y[r], outbox, bell, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Every rank holds its left neighbour's slice."""
    return torch.roll(x, shifts=1, dims=0)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 06: pass slices right with put or get")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="put", choices=["put", "get"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    host_fn = pass_by_put if opts.mode == "put" else pass_by_get
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
