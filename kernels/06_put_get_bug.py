#! entry: pass_by_put
#! ranks: 2 3 4 8
#! golden: pass_by_put: y[r] == x[(r - 1) mod P] for every rank r (FP32, exact copy)
#! bug: race read at line 50 (what rank \d+ put|before rank \d+'s put) at line 47

"""Step 06's classic bug: the doorbell rung before the put.

This is 06_put_get.py's ``pass_by_put`` with its two sending lines swapped.
The learner rings the right neighbour's doorbell first ("data is coming")
and then puts the slice into its inbox. But a notify means "it is there",
not "it is on its way": the neighbour's wait returns as soon as the bell
rings, and its load of the inbox may run before the put has landed.

The race detector names the pair at every rank count: the neighbour's load
of its inbox and my put into it, with no notify/wait after the put to
order them. On hardware the reader would get zeros or last run's data some
of the time. The fix is the solution's order: put, then notify; wait, then
read.
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
    """AI cores: ring the right bell, then put; wait for mine, read."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    pld.system.notify(bell, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)  # the bug: too early
    pld.tensor.put(inbox, peer=right, src=x, atomic=pld.AtomicType.None_)

    pld.system.wait(bell, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    delivered = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(delivered, [0, 0], y)
    return y


@pl.jit
def put_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return put_kernel(x, y, inbox, bell)


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


def main() -> int:
    ap = argparse.ArgumentParser(description="step 06's bug: notify before put")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = pass_by_put.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    ok = torch.equal(y, torch.roll(x, shifts=1, dims=0))
    print("OK" if ok else "wrong: a rank read its inbox before the put landed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
