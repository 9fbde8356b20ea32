#! entry: all_to_all_push
#! entry: all_to_all_pull
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, r, j] for every rank r, source s and column j (FP32, exact copy), for both entries

"""Step 15 - all-to-all, by hand, two ways.

Every rank has a different chunk for every rank: row ``d`` of rank ``r``'s
input is meant for rank ``d``. Afterwards row ``s`` of rank ``r``'s output
is what rank ``s`` meant for ``r``: ``y[r][s] = x[s][r]``. Seen from
above, the whole exchange transposes the first two dimensions.

* ``all_to_all_push``: for every destination ``d`` (myself included), put
  row ``d`` of my input into row ``me`` of rank ``d``'s ``inbox`` with
  ``pld.tensor.put`` in its region form: destination offsets, source
  offsets, shape. Barrier. Row ``s`` of my inbox is now rank ``s``'s chunk
  for me; copy the inbox out.
* ``all_to_all_pull``: stage my whole input in my ``outbox``, barrier, then
  for every source ``s`` get row ``me`` of rank ``s``'s outbox straight into
  row ``s`` of my output with ``pld.tensor.get``.

In both, the rank sends or fetches starting from itself and walks round the
ring, ``(me + k) % nranks``, so not everybody hits rank 0 first.

Keep the input and the window apart. The push version reads from ``x`` and
writes into ``inbox``; had it used one window for both, a peer's push could
overwrite a row this rank had not sent yet.
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


@pl.jit.incore
def a2a_push_kernel(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: put row d into rank d's inbox row `me`, barrier, copy the inbox out."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    for k in pl.range(nranks):
        dest = (me + k) % nranks
        pld.tensor.put(inbox, dest, x, [me, 0], [dest, 0], [1, SIZE])

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    for s in pl.range(nranks):
        row = pl.load(inbox, [s, 0], [1, SIZE])
        y = pl.store(row, [s, 0], y)
    return y


@pl.jit.incore
def a2a_pull_kernel(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage all rows, barrier, get row `me` from every rank's outbox."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    for d in pl.range(nranks):
        row = pl.load(x, [d, 0], [1, SIZE])
        outbox = pl.store(row, [d, 0], outbox)

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    for k in pl.range(nranks):
        src = (me + k) % nranks
        pld.tensor.get(y, src, outbox, [src, 0], [me, 0], [1, SIZE])
    return y


@pl.jit
def a2a_push_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return a2a_push_kernel(x, y, inbox, arrived)


@pl.jit
def a2a_pull_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return a2a_pull_kernel(x, y, outbox, arrived)


@pl.jit.host
def all_to_all_push(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] inbox and an [NR, 1] signal window."""
    inbox_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        a2a_push_dev(x[r], y[r], inbox, arrived, device=r)


@pl.jit.host
def all_to_all_pull(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] outbox and an [NR, 1] signal window."""
    outbox_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        a2a_pull_dev(x[r], y[r], outbox, arrived, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Swap the sender and receiver dimensions."""
    return x.transpose(0, 1).contiguous()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 15: hand-rolled all-to-all")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="push", choices=["push", "pull"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    host_fn = all_to_all_push if opts.mode == "push" else all_to_all_pull
    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, nr, SIZE)
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
