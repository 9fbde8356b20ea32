"""Neighbour exchange: each rank hands its slice to the rank on its right.

A test program for the workbench parser, written in the shape of a PyPTO
distributed example: jit-decorated kernel, wrapper and host functions, then an
argparse harness that builds inputs and checks a golden.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

RANKS = 4
WIDTH = 128  # elements per rank


@pl.jit.incore
def pass_right(
    src: pl.Tensor[[1, WIDTH], pl.FP32],
    dst: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
    buf: pld.DistributedTensor[[1, WIDTH], pl.FP32],
    flags: pld.DistributedTensor[[RANKS, 1], pl.INT32],
):
    """Stage our slice, tell the right-hand neighbour, wait for the left one."""
    ctx = pld.get_comm_ctx(buf)
    me = pld.rank(ctx)
    total = pld.nranks(ctx)
    right = (me + 1) % total
    left = (me - 1 + total) % total

    tile = pl.load(src, [0, 0], [1, WIDTH])
    buf = pl.store(tile, [0, 0], buf)
    pld.system.notify(flags, peer=right, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(flags, offsets=[left, 0], expected=1, cmp=pld.WaitCmp.Ge)

    got = pld.tile.remote_load(buf, peer=left, offsets=[0, 0], shape=[1, WIDTH])
    dst = pl.store(got, [0, 0], dst)
    return dst


@pl.jit
def on_device(
    src: pl.Tensor[[1, WIDTH], pl.FP32],
    dst: pl.Out[pl.Tensor[[1, WIDTH], pl.FP32]],
    buf: pld.DistributedTensor[[1, WIDTH], pl.FP32],
    flags: pld.DistributedTensor[[RANKS, 1], pl.INT32],
):
    return pass_right(src, dst, buf, flags)


@pl.jit.host
def exchange(
    src: pl.Tensor[[RANKS, 1, WIDTH], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, 1, WIDTH], pl.FP32]],
):
    buf_win = pld.alloc_window_buffer([1, WIDTH], dtype=pl.FP32)
    flag_win = pld.alloc_window_buffer([RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        buf = pld.window(buf_win, [1, WIDTH], dtype=pl.FP32)
        flags = pld.window(flag_win, [RANKS, 1], dtype=pl.INT32)
        on_device(src[r], dst[r], buf, flags, device=r)


def golden(inputs: torch.Tensor) -> torch.Tensor:
    """Rank r ends up holding what rank r-1 started with."""
    n = inputs.shape[0]
    return torch.stack([inputs[(r - 1 + n) % n] for r in range(n)])


def parse_devices(text: str, *, want: int = RANKS) -> list:
    ids = [int(part) for part in text.split(",") if part.strip() != ""]
    if len(ids) != want:
        raise SystemExit(f"need {want} device ids, got {len(ids)}: {ids!r}")
    bad = [i for i in ids if i < 0 or i not in range(64)]
    if bad:
        raise ValueError(f"device ids out of range: {bad}") from None
    return ids


def main() -> int:
    parser = argparse.ArgumentParser(description="neighbour exchange")
    parser.add_argument(
        "-p",
        "--platform",
        type=str,
        default="a2a3sim",
        choices=["a2a3", "a2a3sim", "a5", "a5sim"],
    )
    parser.add_argument("-d", "--device", type=str, default="0,1,2,3")
    parser.add_argument("--compile-only", action="store_true", default=False)
    args = parser.parse_args()

    device_ids = parse_devices(args.device)
    x = torch.randn((RANKS, 1, WIDTH), dtype=torch.float32)
    y = torch.zeros_like(x)
    config = RunConfig(
        platform=args.platform,
        distributed_config=DistributedConfig(device_ids=device_ids, num_sub_workers=0,),
    )
    compiled = exchange.compile(x, y, config=config)
    if args.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0

    compiled(x, y, config=config)
    want = golden(x)
    for k in range(RANKS):
        row = y[k, 0, k * 8 : (k + 1) * 8]
        assert row is not None, "row slice vanished"
        assert torch.allclose(row, want[k, 0, k * 8 : (k + 1) * 8], atol=1e-6), (
            f"rank {k}: max error {(row - want[k, 0, k * 8 : (k + 1) * 8]).abs().max().item():.3e}"
        )
    print("OK" if torch.equal(y, want) else "close enough")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
