#! entry: build_host_allreduce({P}).host_builtin
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[1, 0, 0\] got

"""Step 18's classic bug: the HOST all-reduce inside the dispatch loop.

This is 18_three_ways.py's ``host_builtin`` with the builtin call indented
one level. The learner reads the host orchestrator as "for each rank:
reduce, copy the result out" and puts ``pld.tensor.allreduce`` in the body
of the loop that dispatches ``consume``, so it runs once per rank.

PyPTO accepts this, and so does the checker: the call passes an explicit
signal and a fresh view of the data window each time (a HOST collective's
operands are pld.window views, E0234), and every HOST builtin clears its signal before it returns (upstream
commit 9533ae36b), so one signal may serve a call in a loop. (Without the
signal it is refused, E0260: the signal the compiler synthesizes is one
allocation, not one per iteration.) Nothing hangs and nothing races. The
numbers are wrong: each call reduces what the previous call left in the
window, so rank r copies out P**r times the sum, and only rank 0 is right.
The fix is the solution's layout: one loop publishes every slice, one call
reduces, one loop copies the result out.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 512


def build_host_allreduce(nr: int):
    """Return the host-builtin all-reduce for ``nr`` ranks, with its call in the loop."""

    @pl.program
    class HostAllreduce:
        @pl.function(type=pl.FunctionType.InCore)
        def publish(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            """AI cores: copy my slice into the window, nothing else."""
            mine = pl.load(x, [0, 0], [1, SIZE])
            part = pl.store(mine, [0, 0], part)
            return part

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self,
            part: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: copy the window to my output."""
            total = pl.load(part, [0, 0], [1, SIZE])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def publish_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            return self.publish(x, part)

        @pl.function(type=pl.FunctionType.Orchestration)
        def consume_dev(
            self,
            part: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.consume(part, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_builtin(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: publish, then reduce and consume per rank (the bug)."""
            host_part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            host_arrived_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            arrived = pld.window(host_arrived_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                part = pld.window(host_part_buf, [1, SIZE], dtype=pl.FP32)
                self.publish_dev(x[r], part, device=r)
            for r in pl.range(pld.world_size()):
                part = pld.window(host_part_buf, [1, SIZE], dtype=pl.FP32)
                part = pld.tensor.allreduce(part, arrived, op=pld.ReduceOp.Sum)  # the bug: once per rank
                self.consume_dev(part, y[r], device=r)
            return y

    return HostAllreduce


def main() -> int:
    ap = argparse.ArgumentParser(description="step 18's bug: the host all-reduce inside a loop")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(
        build_host_allreduce(nr),
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    compiled.host_builtin(x, y)
    ok = torch.allclose(y, x.sum(dim=0, keepdim=True).expand_as(x), rtol=1e-5, atol=1e-5)
    print("OK" if ok else "wrong sums")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
