'''Class-form program built by a factory, for parser tests.

The factory folds the rank count and a layout choice into closure constants
before the @pl.program class reads them.
'''

import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir

LENGTH = 96
HOME = 0


def make_scatter(nranks: int, layout: str = "rows", *, check: bool = True):
    """Return a program class that scatters LENGTH elements from HOME."""
    if check and LENGTH % nranks != 0:
        raise ValueError(f"LENGTH={LENGTH} is not a multiple of {nranks}")
    piece = LENGTH // nranks
    if layout == "rows":
        sig_r, sig_c = nranks, 1
    elif layout == "grid":
        sig_r, sig_c = 2 * (nranks - 1), nranks
    else:
        raise ValueError(f"unknown layout {layout!r}; want 'rows' or 'grid'")

    def width_of(k, scale=1):
        return piece * scale if k >= 0 else 0

    @pl.program
    class Scatter:
        """Home rank pushes one piece to every rank."""

        @pl.function(type=pl.FunctionType.InCore)
        def push(
            self,
            whole: pl.Tensor[[1, LENGTH], pl.FP32],
            mine: pl.Out[pl.Tensor[[1, piece], pl.FP32]],
            win: pl.InOut[pld.DistributedTensor[[1, piece], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[sig_r, sig_c], pl.INT32]],
        ) -> pl.Tensor[[1, piece], pl.FP32]:
            ctx = pld.get_comm_ctx(win)
            me = pld.rank(ctx)
            if me == HOME:
                for dest in pl.range(nranks):
                    part = pl.load(whole, [0, dest * piece], [1, piece])
                    pld.tensor.put(win, dest, part, [0, 0], [0, 0], [1, piece])
            sig = pld.tensor.barrier(sig)
            got = pl.load(win, [0, 0], [1, piece])
            return pl.store(got, [0, 0], mine)

        @pl.function(type=pl.FunctionType.Orchestration)
        def per_rank(
            self,
            whole: pl.Tensor[[1, LENGTH], pl.FP32],
            mine: pl.Out[pl.Tensor[[1, piece], pl.FP32]],
            win: pl.InOut[pld.DistributedTensor[[1, piece], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[sig_r, sig_c], pl.INT32]],
        ) -> pl.Tensor[[1, piece], pl.FP32]:
            return self.push(whole, mine, win, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def run(
            self,
            whole: pl.Tensor[[1, LENGTH], pl.FP32],
            out: pl.Out[pl.Tensor[[nranks, 1, piece], pl.FP32]],
        ) -> pl.Tensor[[nranks, 1, piece], pl.FP32]:
            nbytes = piece * pl.FP32.get_byte()
            win_buf = pld.alloc_window_buffer([1, piece], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([sig_r, sig_c], dtype=pl.INT32)
            for r in pl.range(nranks):
                win = pld.window(win_buf, [1, piece], dtype=pl.FP32)
                sig = pld.window(sig_buf, [sig_r, sig_c], dtype=pl.INT32)
                self.per_rank(whole, out[r], win, sig, device=r)
            return out

    Scatter.widths = sorted({width_of(k) for k in range(nranks)}, key=lambda w: -w)
    return Scatter


def describe(*names, sep=", ", **extra) -> str:
    head = sep.join(str(n) for n in names)
    tail = {k: v for k, v in extra.items() if v is not None}
    return head + (f" {tail}" if tail else "")


def compile_all(sizes=(2, 4, 8), **options):
    built = {}
    for n in sizes:
        try:
            built[n] = ir.compile(make_scatter(n, **options), platform="a2a3sim")
        except ValueError as err:
            print(describe("skip", n, reason=str(err)))
            continue
        else:
            print(describe("built", n))
    return built
