#! entry: three_levels
#! ranks: 2 3 4 8
#! golden: y[r] == x[r] * (r + 1) for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 02 - the three-level programming model.

A distributed PyPTO program is written at three levels, and each runs on a
different processor:

=====================  ==========================  ==============================
decorator              runs on                     does
=====================  ==========================  ==============================
``@pl.jit.host``       the host CPU, once          walks the ranks, dispatches
``@pl.jit``            the AICPU of each device    forwards to the kernel
``@pl.jit.incore``     the AI cores of each device the arithmetic
=====================  ==========================  ==============================

The rank number is born in the host's loop (``r``), travels down through
the wrapper as a scalar argument, and is used in the kernel. A value read
anywhere else (a module constant, the host body outside the loop) would be
the same for every rank.

Each rank computes ``y = x * r + x``, which is ``x * (r + 1)``. The
kernel keeps the ``+ 1`` out of scalar code on purpose: float scalar
arithmetic is not available on the AI cores, so the constant is folded into
a second vector op instead.
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
    """Level 1, host CPU: dispatch the wrapper (never the kernel) per rank."""
    for r in pl.range(pld.world_size()):
        scale_device(x[r], y[r], r, device=r)


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
