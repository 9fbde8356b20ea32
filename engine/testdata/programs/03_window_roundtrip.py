#! entry: stash_and_return
#! ranks: 2
#! golden: y[r] == x[r] for every rank r (FP32, exact copy)

"""A window buffer is memory every rank owns a copy of, at the same offsets.

The host declares one buffer with ``pld.alloc_window_buffer`` and, inside the
rank loop, takes a ``pld.window`` view of it for each dispatch. A kernel sees
the view as a ``pld.DistributedTensor``; plain ``pl.load`` and ``pl.store``
on it touch only this rank's copy. Nothing crosses ranks here: each rank
parks its 128 floats in its own window and reads them straight back.

Two things differ from the later steps on purpose: the buffer is sized in
bytes (``SIZE * pl.FP32.get_byte()`` = 512 B) rather than by shape and
dtype, and the window parameters carry no ``pl.InOut`` wrapper, which is
accepted even though the kernel writes through them.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N_RANKS = 2
SIZE = 128


@pl.jit.incore
def park_and_fetch(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    parked: pld.DistributedTensor[[1, SIZE], pl.FP32],
):
    """AI core: x -> own window copy -> y."""
    incoming = pl.load(x, [0, 0], [1, SIZE])
    parked = pl.store(incoming, [0, 0], parked)
    fetched = pl.load(parked, [0, 0], [1, SIZE])
    y = pl.store(fetched, [0, 0], y)
    return y


@pl.jit
def per_device(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    parked: pld.DistributedTensor[[1, SIZE], pl.FP32],
):
    return park_and_fetch(x, y, parked)


@pl.jit.host
def stash_and_return(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    """Host: allocate once, outside the loop; take one view per dispatch."""
    park_buf = pld.alloc_window_buffer(SIZE * pl.FP32.get_byte())
    for r in pl.range(pld.world_size()):
        parked = pld.window(park_buf, [1, SIZE], dtype=pl.FP32)
        per_device(x[r], y[r], parked, device=r)


def golden(x: torch.Tensor) -> torch.Tensor:
    """The round trip changes nothing."""
    return x.clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="window round trip, no communication")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"need {N_RANKS} device ids, got {ids}")

    x = torch.randn(N_RANKS, 1, SIZE)
    y = torch.zeros_like(x)

    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = stash_and_return.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    assert torch.equal(y, golden(x)), "the window round trip altered the data"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
