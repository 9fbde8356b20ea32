#! starter: the two lines of add_own_rank that turn the rank into an FP32 scalar and add it to the block
#! entry: hello_rank
#! ranks: 2 3 4 8

"""Step 01 starter - hello, rank. Your copy to edit.

Every rank gets the same kernel and its own rank number ``rank``; the goal
is ``y[r] = x[r] + r``. As shipped the kernel copies its block unchanged,
so rank 0 is right by accident and every other rank is off by its number.
Fill in the gap marked TODO(you) in ``add_own_rank``, then check your file
with ``workbench step 1 --check FILE``. The lesson is
tutorials/01-hello-rank.md.
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
    # TODO(you): make the rank visible in the output: every element of
    #   `block` must grow by this rank's number. The number arrives as an
    #   INT32 scalar and the tile holds FP32; vector ops want matching
    #   types. The hints of the lesson go from the idea to the code.
    # Placeholder: `block` goes out unchanged, so only rank 0 comes out right.
    # ---- end of TODO ----
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
