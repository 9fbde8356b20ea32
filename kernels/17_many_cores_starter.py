#! starter: the HOST all-reduce call: how many cores, and a signal with a lane per core
#! entry: build_many_cores({P}).with_lanes
#! ranks: 2 3 4 8

"""Step 17 starter - the all-reduce called from the host, on many cores. Your copy to edit.

The host entry publishes every rank's ``x`` into the ``data`` window and
copies the window back out to ``y``; in between, one call of the builtin
all-reduce, made by the host itself, must leave ``y[r] = x[0] + ... +
x[P-1]`` on every rank. You choose how many AIV cores per rank share the
1152-float payload (``core_num``) and give the signal one row per rank and
a column (a lane) per core. As shipped the entry has neither the call nor
its signal, so every rank gets back its own ``x``. Fill in the gaps marked TODO(you),
then run ``workbench step 17 --check FILE``. The lesson is
tutorials/17-many-cores.md.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

N = 1152
LANES = 4
LANE_CORES = 3


def build_many_cores(nr: int):
    """Return the HOST many-core all-reduce programs for ``nr`` ranks."""

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
            # TODO(you): the all-reduce below needs a signal window: one row
            #   per rank and at least one column (a lane) per core it runs
            #   on. A spare column is fine, one too few is refused.
            # Placeholder: no signal yet (an allocation nobody uses is refused).
            # ---- end of TODO ----
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, N], dtype=pl.FP32)
                self.publish_dev(x[r], data, device=r)
            data = pld.window(data_buf, [1, N], dtype=pl.FP32)
            # TODO(you): `data` must end summed over the ranks, by one HOST
            #   builtin call on your signal, spread over LANE_CORES cores
            #   per rank.
            # Placeholder: no all-reduce; `data` keeps each rank's own x.
            # ---- end of TODO ----
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
