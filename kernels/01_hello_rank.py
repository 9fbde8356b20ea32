#! entry: hello_rank
#! ranks: 2 3 4 8
#! golden: y[r] == x[r] + r for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 01 - hello, rank.

One program, launched once per device. The host orchestrator walks over the
ranks and hands each one its own slice of the input together with its rank
number; every rank runs the very same kernel, and the only thing that tells
them apart is that number. To make it visible, each rank adds its rank
number to every element of its block, so ``y[r] = x[r] + r``.

Three decorators, three places the code runs:

* ``@pl.jit.incore``: the kernel, on the AI cores of one device;
* ``@pl.jit``: the per-device wrapper, which only forwards its arguments;
* ``@pl.jit.host``: the host orchestrator, which dispatches the wrapper with
  ``device=r`` once per rank.

The leading dimension of the host tensors is ``NR``, a dimension whose size
is fixed when the program is launched (step 07 looks at it closely), so the
same file runs on 2, 3, 4 or 8 devices.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
ROWS = 4
# A tile row must be a multiple of 32 bytes on the hardware: 8 FP32 values.
COLS = 8


@pl.jit.incore
def add_own_rank(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    """AI cores: y = x + rank, element by element."""
    block = pl.load(x, [0, 0], [ROWS, COLS])
    # Vector ops take a float; cast the INT32 parameter itself (a float cast
    # of an INDEX expression such as rank + 1 is not supported on device).
    rank_f32 = pl.cast(rank, target_type=pl.FP32)
    block = pl.add(block, rank_f32)
    y = pl.store(block, [0, 0], y)
    return y


@pl.jit
def add_own_rank_dev(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank: pl.Scalar[pl.INT32],
):
    """Per-device wrapper. Tensors come first, scalars after them."""
    return add_own_rank(x, y, rank)


@pl.jit.host
def hello_rank(
    x: pl.Tensor[[NR, ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]],
):
    """Host: one dispatch per rank; x[r] drops the leading rank dimension."""
    for r in pl.range(pld.world_size()):
        add_own_rank_dev(x[r], y[r], r, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Rank r's block shifted by r."""
    ranks = torch.arange(x.shape[0], dtype=x.dtype).reshape(-1, 1, 1)
    return x + ranks


def main() -> int:
    ap = argparse.ArgumentParser(description="step 01: every rank adds its own rank number")
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
    compiled = hello_rank.compile(x, y, config=cfg)
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
