#! entry: build_compose({P}).host_orch
#! ranks: 2 3 4
#! golden: summed[r, 0, j] == (sum over k of inp[k, 0, j]) + bias[0, j] for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! golden: joined[r, 0, k*SIZE + j] == inp[k, 0, j] * bias[0, j] for every rank r and source k (FP32, allclose rtol 1e-5 atol 1e-5)

"""Three builtins in one kernel: broadcast, all-reduce, all-gather.

The host passes one ``bias`` row, unsliced, to every rank, but only rank
``BIAS_OWNER`` stages it in a window; a broadcast then gives every rank the
owner's copy. Next the ranks all-reduce their inputs and add the bias to the
sum. Finally they all-gather their inputs and scale every gathered row by the
bias.

Each collective gets its own ``[nr, 1]`` signal window. A builtin used inside
a kernel resets its signal cells before it returns, so sharing one window
would also work; separate windows keep the three protocols apart when you
read a trace.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64
BIAS_OWNER = 0


def build_compose(nr: int):
    """Return the broadcast + all-reduce + all-gather program for ``nr`` ranks."""

    @pl.program
    class Compose:
        @pl.function(type=pl.FunctionType.InCore)
        def combo_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            bias_in: pl.Tensor[[1, SIZE], pl.FP32],
            summed: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            joined: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            bias_win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sum_win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            cat_win: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig_b: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_s: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_c: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            """AI core: broadcast the bias, all-reduce + bias, all-gather * bias."""
            ctx = pld.get_comm_ctx(bias_win)
            me = pld.rank(ctx)

            if me == BIAS_OWNER:
                b = pl.load(bias_in, [0, 0], [1, SIZE])
                bias_win = pl.store(b, [0, 0], bias_win)
            bias_win = pld.tensor.broadcast(bias_win, sig_b, root=BIAS_OWNER)
            bias = pl.load(bias_win, [0, 0], [1, SIZE])

            mine = pl.load(x, [0, 0], [1, SIZE])
            sum_win = pl.store(mine, [0, 0], sum_win)
            sum_win = pld.tensor.allreduce(sum_win, sig_s, op=pld.ReduceOp.Sum, mode="mesh")
            total = pl.load(sum_win, [0, 0], [1, SIZE])
            total = pl.add(total, bias)
            summed = pl.store(total, [0, 0], summed)

            cat_win = pld.tensor.allgather(x, cat_win, sig_c)
            for k in pl.range(nr):
                row = pl.load(cat_win, [k, 0], [1, SIZE])
                row = pl.mul(row, bias)
                joined = pl.store(row, [0, k * SIZE], joined)
            return joined

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_orch(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            bias_in: pl.Tensor[[1, SIZE], pl.FP32],
            summed: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            joined: pl.Out[pl.Tensor[[1, nr * SIZE], pl.FP32]],
            bias_win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sum_win: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            cat_win: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            sig_b: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_s: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            sig_c: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, nr * SIZE], pl.FP32]:
            return self.combo_step(x, bias_in, summed, joined, bias_win, sum_win, cat_win, sig_b, sig_s, sig_c)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            inp: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            bias: pl.Tensor[[1, SIZE], pl.FP32],
            summed: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            joined: pl.Out[pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, nr * SIZE], pl.FP32]:
            """Host: six windows; ``bias`` goes to every rank whole."""
            bias_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sum_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            cat_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            sig_b_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            sig_s_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            sig_c_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                bias_win = pld.window(bias_buf, [1, SIZE], dtype=pl.FP32)
                sum_win = pld.window(sum_buf, [1, SIZE], dtype=pl.FP32)
                cat_win = pld.window(cat_buf, [nr, SIZE], dtype=pl.FP32)
                sig_b = pld.window(sig_b_buf, [nr, 1], dtype=pl.INT32)
                sig_s = pld.window(sig_s_buf, [nr, 1], dtype=pl.INT32)
                sig_c = pld.window(sig_c_buf, [nr, 1], dtype=pl.INT32)
                self.dev_orch(
                    inp[r],
                    bias,
                    summed[r],
                    joined[r],
                    bias_win,
                    sum_win,
                    cat_win,
                    sig_b,
                    sig_s,
                    sig_c,
                    device=r,
                )
            return joined

    return Compose


def golden(inp: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """summed[r] = sum_k inp[k] + bias; joined[r] = concat_k(inp[k] * bias)."""
    nr = inp.shape[0]
    summed = (inp.sum(dim=0) + bias).unsqueeze(0).repeat(nr, 1, 1)
    joined = torch.cat([inp[k] * bias for k in range(nr)], dim=1).unsqueeze(0).repeat(nr, 1, 1)
    return summed, joined


def main() -> int:
    ap = argparse.ArgumentParser(description="broadcast, all-reduce and all-gather together")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_compose(nr)
    inp = torch.randn((nr, 1, SIZE), dtype=torch.float32)
    bias = torch.linspace(0.5, 2.0, SIZE, dtype=torch.float32).reshape(1, SIZE)
    summed = torch.zeros((nr, 1, SIZE), dtype=torch.float32)
    joined = torch.zeros((nr, 1, nr * SIZE), dtype=torch.float32)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(inp, bias, summed, joined)

    want_summed, want_joined = golden(inp, bias)
    assert torch.allclose(summed, want_summed, rtol=1e-5, atol=1e-5), "all-reduce plus bias is wrong"
    assert torch.allclose(joined, want_joined, rtol=1e-5, atol=1e-5), "gathered rows times bias are wrong"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
