#! entry: build_many_cores({P}).with_lanes
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: compile_error ^line 91: E0259 core_num=64 exceeds the 48 AIV cores of platform 910B

"""Step 17's classic bug: more cores than the chip has.

This is 17_many_cores.py with ``LANE_CORES`` raised from 3 to 64, and
``LANES`` with it, so that the signal still has a lane per core. The
learner reads "the blocks of a rank share the tiles" as "more cores,
faster" and asks for 64.

But ``core_num`` counts AIV cores of one device, and the 910B profile has
48 of them; a HOST all-reduce cannot be spread over cores that do not
exist. The checker refuses the program before it runs, with error E0259
on the call, at every rank count (PyPTO refuses it too, when it lowers
the call). The fix is a ``core_num`` between 1 and 48; with only five
tiles of payload, more than five cores buys nothing.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

N = 1152
LANES = 64
LANE_CORES = 64  # the bug: the 910B has 48 AIV cores per device


def build_many_cores(nr: int):
    """Return the HOST many-core all-reduce on an explicit lane signal, for ``nr`` ranks."""

    @pl.program
    class ManyCores:
        @pl.function(type=pl.FunctionType.InCore)
        def publish(
            self,
            x: pl.Tensor[[1, N], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, N], pl.FP32]],
        ) -> pld.DistributedTensor[[1, N], pl.FP32]:
            """AI core: copy my input into my copy of the window."""
            mine = pl.load(x, [0, 0], [1, N])
            data = pl.store(mine, [0, 0], data)
            return data

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self,
            data: pld.DistributedTensor[[1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
        ) -> pl.Tensor[[1, N], pl.FP32]:
            """AI core: copy the reduced window to my output."""
            total = pl.load(data, [0, 0], [1, N])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def publish_dev(
            self,
            x: pl.Tensor[[1, N], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, N], pl.FP32]],
        ) -> pld.DistributedTensor[[1, N], pl.FP32]:
            return self.publish(x, data)

        @pl.function(type=pl.FunctionType.Orchestration)
        def consume_dev(
            self,
            data: pld.DistributedTensor[[1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
        ) -> pl.Tensor[[1, N], pl.FP32]:
            return self.consume(data, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def with_lanes(
            self,
            x: pl.Tensor[[nr, 1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, N], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, N], pl.FP32]:
            """Host: publish, a 3-core all-reduce on an explicit [nr, 4] signal, consume."""
            data_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            lanes_buf = pld.alloc_window_buffer([nr, LANES], dtype=pl.INT32)
            lanes = pld.window(lanes_buf, [nr, LANES], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, N], dtype=pl.FP32)
                self.publish_dev(x[r], data, device=r)
            data = pld.window(data_buf, [1, N], dtype=pl.FP32)
            data = pld.tensor.allreduce(data, lanes, op=pld.ReduceOp.Sum, core_num=LANE_CORES)
            for r in pl.range(pld.world_size()):
                self.consume_dev(data, y[r], device=r)
            return y

    return ManyCores


def main() -> int:
    ap = argparse.ArgumentParser(description="step 17: the HOST all-reduce on several AIV cores per rank")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_many_cores(nr)
    x = torch.randn(nr, 1, N)
    y = torch.zeros(nr, 1, N)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled.with_lanes(x, y)

    want = x.sum(dim=0, keepdim=True).expand_as(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
