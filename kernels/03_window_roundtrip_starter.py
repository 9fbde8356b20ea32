#! starter: the two lines of through_window that load x and store it into this rank's copy of the window
#! entry: window_roundtrip
#! ranks: 2 3 4 8

"""Step 03 starter - window buffers. Your copy to edit.

The host already reserves the window (``pld.alloc_window_buffer``) and hands
each rank a view of it (``pld.window``). The kernel must send its input
through its own copy of the window: x -> window -> y. As shipped it only
does the second half, reading a window nobody wrote, so every output is
zeros. Fill in the gap marked TODO(you), then run
``workbench step 3 --check FILE``. The lesson is
tutorials/03-window-buffers.md.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
ROWS = 2
COLS = 128


@pl.jit.incore
def through_window(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    scratch: pl.InOut[pld.DistributedTensor[[ROWS, COLS], pl.FP32]],
):
    """AI cores: x -> my copy of the window -> y."""
    # TODO(you): this rank's whole input must end up in its copy of the
    #   window `scratch`. Data goes from a tensor to a window through a
    #   tile. Keep what the store gives back.
    # A plain store on the window view touches only this rank's own copy.
    # Placeholder: nothing is written, so the window still holds zeros.
    # ---- end of TODO ----
    outbound = pl.load(scratch, [0, 0], [ROWS, COLS])
    y = pl.store(outbound, [0, 0], y)
    return y


@pl.jit
def through_window_dev(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    scratch: pl.InOut[pld.DistributedTensor[[ROWS, COLS], pl.FP32]],
):
    return through_window(x, y, scratch)


@pl.jit.host
def window_roundtrip(
    x: pl.Tensor[[NR, ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]],
):
    """Host: allocate once, view per rank, dispatch."""
    scratch_buf = pld.alloc_window_buffer([ROWS, COLS], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        scratch = pld.window(scratch_buf, [ROWS, COLS], dtype=pl.FP32)
        through_window_dev(x[r], y[r], scratch, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 03: a round trip through a window buffer")
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
    compiled = window_roundtrip.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    assert torch.equal(y, x), f"P={nr}: max error {(y - x).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
