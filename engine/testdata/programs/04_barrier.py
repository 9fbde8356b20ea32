#! entry: tally_add
#! entry: tally_set
#! ranks: 2
#! golden: tally[r, i, 0] == 0 when i == r, else 1 (INT32, exact), for both entries

"""A barrier made by hand from signals, and the tally it leaves behind.

Each rank owns one row of a ``[N_RANKS, 1]`` INT32 signal window. To arrive,
a rank bumps its own row, ``[me, 0]``, in every other rank's copy; then
it waits until every other rank's row in its own copy has been bumped. No
data moves, yet afterwards every rank knows all the others got this far.

``tally_add`` arrives with ``NotifyOp.AtomicAdd`` and waits with
``WaitCmp.Ge``, the pairing that also works when many ranks share a cell.
``tally_set`` arrives with ``NotifyOp.Set`` and waits with ``WaitCmp.Eq``:
fine here because every cell has exactly one writer.

The kernels then copy the signal column to the output one cell at a time
with ``pl.read``/``pl.write``. A tile load would not do: a ``[2, 1]`` INT32
tile is an 8-byte column, below the 32-byte tile alignment. The copy shows a
1 for every peer and a 0 in the rank's own row, which it never bumps.

The counters only grow, so this signal window serves one rendezvous; a
second barrier on it would pass at once.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N_RANKS = 2


@pl.jit.incore
def arrive_by_add(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    """AI core: AtomicAdd/Ge barrier, then surface the signal column."""
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)

    # Arrive everywhere first, then wait: a rank that stopped to wait before
    # its last notify would hold up the peers it had not notified yet.
    for other in pl.range(N_RANKS):
        if other != me:
            pld.system.notify(flags, other, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for other in pl.range(N_RANKS):
        if other != me:
            pld.system.wait(flags, [other, 0], 1, cmp=pld.WaitCmp.Ge)

    for row in pl.range(N_RANKS):
        seen = pl.read(flags, [row, 0])
        pl.write(tally, [row, 0], seen)
    return tally


@pl.jit.incore
def arrive_by_set(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    """AI core: Set/Eq barrier on single-writer cells, then the same copy."""
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)

    for other in pl.range(N_RANKS):
        if other != me:
            pld.system.notify(
                flags,
                peer=other,
                offsets=[me, 0],
                value=1,
                op=pld.NotifyOp.Set,
            )
    for other in pl.range(N_RANKS):
        if other != me:
            pld.system.wait(
                flags,
                offsets=[other, 0],
                expected=1,
                cmp=pld.WaitCmp.Eq,
            )

    for row in pl.range(N_RANKS):
        pl.write(tally, [row, 0], pl.read(flags, [row, 0]))
    return tally


@pl.jit
def dev_add(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return arrive_by_add(tally, flags)


@pl.jit
def dev_set(
    tally: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
    flags: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return arrive_by_set(tally, flags)


@pl.jit.host
def tally_add(
    tally: pl.Out[pl.Tensor[[N_RANKS, N_RANKS, 1], pl.INT32]],
):
    """Host: one [N_RANKS, 1] INT32 signal window (8 bytes), no input tensor."""
    flag_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flag_buf, [N_RANKS, 1], dtype=pl.INT32)
        dev_add(tally[r], flags, device=r)


@pl.jit.host
def tally_set(
    tally: pl.Out[pl.Tensor[[N_RANKS, N_RANKS, 1], pl.INT32]],
):
    """Host: as tally_add, dispatching the Set/Eq variant."""
    flag_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flag_buf, [N_RANKS, 1], dtype=pl.INT32)
        dev_set(tally[r], flags, device=r)


def golden(n: int) -> torch.Tensor:
    """All ones, except a zero where a rank would have signalled itself."""
    want = torch.ones((n, n, 1), dtype=torch.int32)
    for r in range(n):
        want[r, r, 0] = 0
    return want


def main() -> int:
    ap = argparse.ArgumentParser(description="hand-rolled barrier and its signal tally")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--notify", default="add", choices=["add", "set"], help="AtomicAdd/Ge or Set/Eq")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"need {N_RANKS} device ids, got {ids}")

    host_fn = tally_set if opts.notify == "set" else tally_add
    tally = torch.zeros((N_RANKS, N_RANKS, 1), dtype=torch.int32)

    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(tally, config=cfg)
    if opts.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0
    compiled(tally, config=cfg)

    want = golden(N_RANKS)
    assert torch.equal(tally, want), f"tally {tally.tolist()} != {want.tolist()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
