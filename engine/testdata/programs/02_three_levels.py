#! entry: launch_all
#! ranks: 2
#! golden: out[r] == 2 * (inp[r] + r) for every rank r (FP32, allclose)

"""Three decorators, three processors: host CPU, AICPU, AI core.

``@pl.jit.host`` runs once on the host CPU and owns the rank loop.
``@pl.jit`` runs once per device on its AICPU and decides which kernels to
start there. ``@pl.jit.incore`` runs on the device's AI cores and does the
arithmetic. The rank number travels down the chain as an argument: the loop
variable on the host, a scalar parameter in the wrapper, the same scalar in
the kernel.

This host loops to the module constant ``N_RANKS`` instead of calling
``pld.world_size()``; both are accepted as the bound of a dispatch loop.
The kernel computes ``2 * (x + r)`` with tile operations only, because the AI
core has no float scalar arithmetic.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N_RANKS = 2
ROWS = 2
COLS = 32


@pl.jit.incore
def lift_and_double(
    inp: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    who: pl.Scalar[pl.INT32],
):
    """AI core: out = (inp + who) + (inp + who)."""
    tile = pl.load(inp, [0, 0], [ROWS, COLS])
    who_f = pl.cast(who, target_type=pl.FP32)
    lifted = pl.add(tile, who_f)
    doubled = pl.add(lifted, lifted)
    out = pl.store(doubled, [0, 0], out)
    return out


@pl.jit
def aicpu_step(
    inp: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    who: pl.Scalar[pl.INT32],
):
    """AICPU: start the one kernel of this device."""
    return lift_and_double(inp, out, who)


@pl.jit.host
def launch_all(
    inp: pl.Tensor[[N_RANKS, ROWS, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[N_RANKS, ROWS, COLS], pl.FP32]],
):
    """Host CPU: slice the inputs per rank and dispatch the AICPU step."""
    for dev in pl.range(N_RANKS):
        aicpu_step(inp[dev], out[dev], dev, device=dev)


def golden(inp: torch.Tensor) -> torch.Tensor:
    """out[r] = 2 * (inp[r] + r)."""
    ranks = torch.arange(inp.shape[0], dtype=torch.float32).view(-1, 1, 1)
    return 2.0 * (inp + ranks)


def main() -> int:
    ap = argparse.ArgumentParser(description="three levels: host, AICPU, AI core")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"need {N_RANKS} device ids, got {ids}")

    inp = torch.randn((N_RANKS, ROWS, COLS), dtype=torch.float32)
    out = torch.zeros_like(inp)

    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = launch_all.compile(inp, out, config=cfg)
    if opts.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0
    compiled(inp, out, config=RunConfig(platform=opts.platform))

    want = golden(inp)
    assert torch.allclose(out, want, rtol=1e-5, atol=1e-5), f"max error {(out - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
