#! entry: hello_rank
#! ranks: 2 3 4 8
#! golden: y[r] == x[r] + r for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: runtime_error ^rank 0, line \d+: TaskArgs: cannot add tensor after scalar: add_own_rank passes tensor y after scalar rank

"""Step 01's classic bug: a scalar parameter before a tensor.

This is 01_hello_rank.py with the kernel's parameters in the order a
learner reads them: the input ``x``, then the number to add, ``rank``, then
the output ``y``. In Python any order is fine. On the device it is not: the
runtime packs a kernel's arguments as all its tensors first and all its
scalars after, so it cannot place a tensor after a scalar.

PyPTO compiles this program: the order is legal Python and a legal
signature. It fails when it runs, at the first dispatch of the kernel:
the runtime refuses to pack the tensor ``y`` after the scalar ``rank``
(``TaskArgs: cannot add tensor after scalar``). The workbench stops the run
at the same place, with error E0518, at every rank count. The fix is the
solution's order: every tensor first (``x``, then ``y``), scalars last
(``rank``), in the signature and in the call.
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
    rank: pl.Scalar[pl.INT32],  # the bug: a scalar before the tensor y
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
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
    """Per-device wrapper: forwards its arguments in the kernel's order."""
    return add_own_rank(x, rank, y)


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
    ap = argparse.ArgumentParser(description="step 01's bug: a scalar before a tensor")
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
