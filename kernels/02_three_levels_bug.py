#! entry: three_levels
#! ranks: 2 3 4 8
#! golden: y[r] == x[r] * (r + 1) for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: compile_error ^line 65: E0105 host orchestrator "three_levels" dispatches InCore kernel "scale_kernel" directly

"""Step 02's classic bug: the host dispatches the InCore kernel directly.

This is 02_three_levels.py with one name changed in the host loop: the
learner skips the middle level and calls ``scale_kernel(x[r], y[r], r,
device=r)`` from ``@pl.jit.host``, reasoning that the wrapper only
forwards its arguments anyway.

But the host CPU cannot launch an AI-core kernel; it can only hand work to
a device's AICPU, which is what the ``@pl.jit`` wrapper is for. The checker
refuses the program before it runs, with error E0105 on the dispatch, at
every rank count. The fix is the solution's call: dispatch
``scale_device`` and let it call the kernel.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
ROWS = 8
COLS = 16


@pl.jit.incore
def scale_kernel(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    """Level 3, AI cores: y = x * rank + x."""
    tile = pl.load(x, [0, 0], [ROWS, COLS])
    factor = pl.cast(rank, target_type=pl.FP32)
    scaled = pl.mul(tile, factor)
    result = pl.add(scaled, tile)
    y = pl.store(result, [0, 0], y)
    return y


@pl.jit
def scale_device(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    """Level 2, AICPU of one device: pass everything to the kernel."""
    return scale_kernel(x, y, rank)


@pl.jit.host
def three_levels(
    x: pl.Tensor[[NR, ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]],
):
    """Level 1, host CPU: dispatch per rank (the bug: the kernel, not the wrapper)."""
    for r in pl.range(pld.world_size()):
        scale_kernel(x[r], y[r], r, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Rank r's block times r + 1."""
    factors = torch.arange(1, x.shape[0] + 1, dtype=x.dtype).reshape(-1, 1, 1)
    return x * factors


def main() -> int:
    ap = argparse.ArgumentParser(description="step 02: host, device wrapper and kernel")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, ROWS, COLS)
    y = torch.zeros(nr, ROWS, COLS)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = three_levels.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
