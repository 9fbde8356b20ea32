#! entry: greet_ranks
#! ranks: 2
#! golden: dst[r] == src[r] + r for every rank r (FP32, allclose)

"""Every rank runs the same kernel; only the rank number it is handed differs.

The host loops over the two ranks and dispatches the per-device wrapper once
per rank with ``device=r``. The wrapper forwards the rank number, a 32-bit
scalar, to the AI-core kernel, which turns it into a float and adds it to
every element of its 4 x 16 block. Reading the output block therefore tells
you which rank produced it.

The scalar comes last in both dispatched signatures: the task argument
packer takes every tensor first and every scalar after them.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N_RANKS = 2
ROWS = 4
COLS = 16


@pl.jit.incore
def offset_by_rank(
    src: pl.Tensor[[ROWS, COLS], pl.FP32],
    dst: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank_id: pl.Scalar[pl.INT32],
):
    """AI-core kernel: dst = src + rank_id, element by element."""
    block = pl.load(src, [0, 0], [ROWS, COLS])
    # Cast the INT32 parameter itself; a float cast of an INDEX expression
    # such as rank_id + 1 would be refused by the code generator.
    shift = pl.cast(rank_id, target_type=pl.FP32)
    block = pl.add(block, shift)
    dst = pl.store(block, [0, 0], dst)
    return dst


@pl.jit
def device_entry(
    src: pl.Tensor[[ROWS, COLS], pl.FP32],
    dst: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    rank_id: pl.Scalar[pl.INT32],
):
    """Per-device wrapper: hands its arguments to the kernel unchanged."""
    return offset_by_rank(src, dst, rank_id)


@pl.jit.host
def greet_ranks(
    src: pl.Tensor[[N_RANKS, ROWS, COLS], pl.FP32],
    dst: pl.Out[pl.Tensor[[N_RANKS, ROWS, COLS], pl.FP32]],
):
    """Host: one dispatch per rank, each pinned to its own device."""
    for r in pl.range(pld.world_size()):
        device_entry(src[r], dst[r], r, device=r)


def golden(src: torch.Tensor) -> torch.Tensor:
    """dst[r] = src[r] + r."""
    bump = torch.arange(src.shape[0], dtype=torch.float32).reshape(-1, 1, 1)
    return src + bump


def main() -> int:
    ap = argparse.ArgumentParser(description="hello rank: each rank adds its own number")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"this example runs on exactly {N_RANKS} devices, -d named {len(ids)}")

    src = torch.randn((N_RANKS, ROWS, COLS), dtype=torch.float32)
    dst = torch.zeros((N_RANKS, ROWS, COLS), dtype=torch.float32)

    dist = DistributedConfig(device_ids=ids, num_sub_workers=0)
    compiled = greet_ranks.compile(src, dst, config=RunConfig(platform=opts.platform, distributed_config=dist))
    if opts.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0

    compiled(src, dst, config=RunConfig(platform=opts.platform))

    want = golden(src)
    if not torch.allclose(dst, want, rtol=1e-5, atol=1e-5):
        print(f"FAIL: largest error {(dst - want).abs().max().item():.3g}")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
