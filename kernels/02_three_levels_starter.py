#! starter: the arithmetic of scale_kernel: y = x * rank + x, done as two vector ops
#! entry: three_levels
#! ranks: 2 3 4 8

"""Step 02 starter - three levels. Your copy to edit.

The host loop and the per-device wrapper are done: the rank number is born
in the host's loop, passed down through ``scale_device`` and arrives in
``scale_kernel`` as ``rank``. What is missing is the arithmetic on the AI
cores: each rank must produce ``y = x * (rank + 1)``. As shipped the kernel
stores its tile unchanged, which is right only on rank 0. Fill in the gap
marked TODO(you), then run ``workbench step 2 --check FILE``. The lesson is
tutorials/02-three-levels.md.
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
    # TODO(you): `result` must be the tile times (rank + 1), computed on
    #   the AI cores. Scalar float arithmetic such as rank + 1.0 is not
    #   available here: find a way with tile operations alone.
    # Placeholder: the tile passes through unchanged.
    result = tile
    # ---- end of TODO ----
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
