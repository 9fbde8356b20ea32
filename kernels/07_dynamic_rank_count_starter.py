#! starter: the rank-agnostic peer arithmetic of both kernels: who you send to and who you hear from, half the ring away
#! entry: across_by_put
#! entry: across_by_get
#! ranks: 2 3 4 8

"""Step 07 starter - any number of ranks. Your copy to edit.

The moves and the handshakes are done (they are step 06's); what is
missing is the index arithmetic that makes the kernels work at any rank
count. Each rank exchanges with the rank half the ring away,
``half = nranks // 2`` places: ``across_by_put`` must give
``y[r] = x[(r - P // 2) mod P]`` and ``across_by_get``
``y[r] = x[(r + P // 2) mod P]``. As shipped every peer is the rank itself,
so each rank only talks to itself and keeps its own slice. Fill in the
gaps marked TODO(you), then run ``workbench step 7 --check FILE`` - it
checks at 2, 3, 4 and 8 ranks. The lesson is tutorials/07-any-rank-count.md.
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
def across_put_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: push across the ring, then wait for the push addressed to me."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    half = nranks // 2
    # TODO(you): the two peers, at any rank count: the rank halfway
    #   round the ring ahead of you, which your put goes to, and the one
    #   halfway behind, whose put lands in your inbox. Careful with the
    #   one behind: on the device `%` truncates toward zero, so a
    #   negative left operand gives a negative peer.
    # Placeholder: yourself, both ways.
    to_rank = me
    from_rank = me
    # ---- end of TODO ----

    pld.tensor.put(inbox, peer=to_rank, src=x)
    pld.system.notify(ready, to_rank, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(ready, [from_rank, 0], 1, cmp=pld.WaitCmp.Ge)
    delivered = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(delivered, [0, 0], y)
    return y


@pl.jit.incore
def across_get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, tell my reader, wait for my source, pull across the ring."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    half = nranks // 2
    # TODO(you): the same two peers seen from the reader's end: the one
    #   halfway ahead, whose outbox you get, and the one halfway behind,
    #   which gets yours. The same care with `%`.
    # Placeholder: yourself, both ways.
    source = me
    reader = me
    # ---- end of TODO ----

    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)
    pld.system.notify(ready, reader, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(ready, [source, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(y, peer=source, src=outbox)
    return y


@pl.jit
def across_put_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return across_put_kernel(x, y, inbox, ready)


@pl.jit
def across_get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return across_get_kernel(x, y, outbox, ready)


@pl.jit.host
def across_by_put(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: NR comes from x and y; the signal window grows with it."""
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        across_put_dev(x[r], y[r], inbox, ready, device=r)


@pl.jit.host
def across_by_get(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: as across_by_put, with an outbox instead of an inbox."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        across_get_dev(x[r], y[r], outbox, ready, device=r)


def expected(x: torch.Tensor, pull: bool) -> torch.Tensor:
    """y[r] = x[(r + P // 2) mod P] when pulling, x[(r - P // 2) mod P] when pushing."""
    half = x.shape[0] // 2
    return torch.roll(x, shifts=-half if pull else half, dims=0)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 07: one source for every rank count")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="put", choices=["put", "get"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    pull = opts.mode == "get"
    host_fn = across_by_get if pull else across_by_put
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x, pull)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
