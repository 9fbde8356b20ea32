#! entry: build_signal_reuse({P}).twice_in_kernel
#! entry: build_signal_reuse({P}, "ring").twice_in_kernel
#! entry: build_signal_reuse({P}).twice_on_host
#! ranks: 2 3 4 8
#! golden: twice_in_kernel (mesh): first[r] == sum over k of x[k]; second[r] == sum over k of x[k]*x[k] (FP32, allclose rtol 1e-5 atol 1e-5); tally[r] == 0 everywhere (INT32, exact)
#! golden: twice_in_kernel (ring): the same, with tally[r] of shape [2*(P-1), P], all 0
#! golden: twice_on_host: first[r] == x[(r + 1) mod P] and second[r] == z[(r + 1) mod P] (FP32, exact copy); tally[r] == 0 everywhere (INT32, exact)

"""Step 20 - may I use the same signal window twice?

It depends on who writes the collective.

**Builtins called in a kernel: yes.** ``twice_in_kernel`` all-reduces
``x``, then restages the *same* data window with ``x * x`` and all-reduces
again, on the *same* signal window. Each call ends with an epilogue that
subtracts every credit its barriers collected, so the second call starts
from a clean signal. Had it not, the second call's first barrier would see
the first call's credits and let a rank read a peer's window while it still
held the old sum. The kernel copies the signal out at the end: all zeros.
This holds for both schedules, mesh and ring.

**Builtins called from the host: yes, too.** ``twice_on_host`` runs two
rounds of "publish, barrier, read the right neighbour" with
``pld.tensor.barrier`` called by the host orchestrator, both times on one
``[nr]`` signal window, and copies the signal out at the end:

    publish x into box_a
    barrier on sig          -- each peer adds 1 to my cell, I wait for >= 1,
                               then take the 1 back: every cell is 0 again
    read box_a from the right; publish z into box_b
    barrier on sig          -- the same, from zero
    read box_b from the right

Every HOST builtin ends with that self-clearing epilogue (upstream PyPTO
since commit 9533ae36b; ``workbench ir --after host-collectives`` shows it
as the ``reset_src`` loop of each synthesized ``__host_barrier`` kernel),
so the second barrier waits for the second round's notifies, never the
first's. The copied signal is all zero.

**Hand-rolled barriers: still no.** A barrier you write yourself (notify
``AtomicAdd`` 1, wait ``Ge`` 1) has no epilogue: its cells keep their
count, and a second wait for ``>= 1`` on them returns at once. Step 04's
bug kernel, ``04_barrier_bug.py``, is exactly that reuse, and the race
detector catches it. Wait for ``>= 2`` the second time, or give each
barrier its own cells.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_signal_reuse(nr: int, mode: str = "mesh"):
    """Return the signal-reuse programs for ``nr`` ranks; ``mode`` is the kernel all-reduce's."""
    if mode == "mesh":
        sig_rows, sig_cols = nr, 1
    elif mode == "ring":
        sig_rows, sig_cols = 2 * (nr - 1), nr
    else:
        raise ValueError(f"mode is 'mesh' or 'ring', got {mode!r}")

    @pl.program
    class SignalReuse:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_twice(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[sig_rows, sig_cols], pl.INT32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: two all-reduces in a row on one data and one signal window."""
            mine = pl.load(x, [0, 0], [1, SIZE])

            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode=mode)
            first = pl.store(pl.load(acc, [0, 0], [1, SIZE]), [0, 0], first)

            acc = pl.store(pl.mul(mine, mine), [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode=mode)
            second = pl.store(pl.load(acc, [0, 0], [1, SIZE]), [0, 0], second)

            for i in pl.range(sig_rows):
                for j in pl.range(sig_cols):
                    pl.write(tally, [i, j], pl.read(sig, [i, j]))
            return second

        @pl.function(type=pl.FunctionType.InCore)
        def post(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            """AI cores: publish my slice in my copy of box."""
            box = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], box)
            return box

        @pl.function(type=pl.FunctionType.InCore)
        def read_then_post(
            self,
            z: pl.Tensor[[1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box_a: pld.DistributedTensor[[1, SIZE], pl.FP32],
            box_b: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: read round one from the right, publish round two."""
            ctx = pld.get_comm_ctx(box_a)
            right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
            first = pl.store(pld.tile.remote_load(box_a, right, [0, 0], [1, SIZE]), [0, 0], first)
            box_b = pl.store(pl.load(z, [0, 0], [1, SIZE]), [0, 0], box_b)
            return first

        @pl.function(type=pl.FunctionType.InCore)
        def read_right(
            self,
            box: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI cores: copy my right neighbour's box."""
            ctx = pld.get_comm_ctx(box)
            right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
            y = pl.store(pld.tile.remote_load(box, right, [0, 0], [1, SIZE]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def peek(
            self,
            sig: pld.DistributedTensor[[nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[1, nr], pl.INT32]],
        ) -> pl.Tensor[[1, nr], pl.INT32]:
            """AI cores: copy my signal cells out."""
            for k in pl.range(nr):
                pl.write(tally, [0, k], pl.read(sig, [k]))
            return tally

        @pl.function(type=pl.FunctionType.Orchestration)
        def reduce_twice_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[sig_rows, sig_cols], pl.INT32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.reduce_twice(x, first, second, tally, acc, sig)

        @pl.function(type=pl.FunctionType.Orchestration)
        def post_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            return self.post(x, box)

        @pl.function(type=pl.FunctionType.Orchestration)
        def read_then_post_dev(
            self,
            z: pl.Tensor[[1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box_a: pld.DistributedTensor[[1, SIZE], pl.FP32],
            box_b: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.read_then_post(z, first, box_a, box_b)

        @pl.function(type=pl.FunctionType.Orchestration)
        def read_right_dev(
            self,
            box: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.read_right(box, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def peek_dev(
            self,
            sig: pld.DistributedTensor[[nr], pl.INT32],
            tally: pl.Out[pl.Tensor[[1, nr], pl.INT32]],
        ) -> pl.Tensor[[1, nr], pl.INT32]:
            return self.peek(sig, tally)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def twice_in_kernel(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            second: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one data window and ONE signal window for both kernel all-reduces."""
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([sig_rows, sig_cols], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [sig_rows, sig_cols], dtype=pl.INT32)
                self.reduce_twice_dev(x[r], first[r], second[r], tally[r], acc, sig, device=r)
            return second

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def twice_on_host(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            z: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            first: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            second: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
            tally: pl.Out[pl.Tensor[[nr, 1, nr], pl.INT32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: two rounds, each behind a HOST barrier, on ONE signal window."""
            a_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            b_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            host_sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
            sig = pld.window(host_sig_buf, [nr], dtype=pl.INT32)
            # Each dispatch gets views of its own: a view passed as InOut is
            # not read again (PyPTO's InOut use discipline).
            for r in pl.range(pld.world_size()):
                box_a = pld.window(a_buf, [1, SIZE], dtype=pl.FP32)
                self.post_dev(x[r], box_a, device=r)
            sig = pld.tensor.barrier(sig)
            for r in pl.range(pld.world_size()):
                box_a = pld.window(a_buf, [1, SIZE], dtype=pl.FP32)
                box_b = pld.window(b_buf, [1, SIZE], dtype=pl.FP32)
                self.read_then_post_dev(z[r], first[r], box_a, box_b, device=r)
            # The same buffer again, through a fresh view: PyPTO finds a HOST
            # collective's window through the pld.window that made its operand.
            sig = pld.window(host_sig_buf, [nr], dtype=pl.INT32)
            sig = pld.tensor.barrier(sig)
            sig = pld.window(host_sig_buf, [nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box_b = pld.window(b_buf, [1, SIZE], dtype=pl.FP32)
                self.read_right_dev(box_b, second[r], device=r)
                self.peek_dev(sig, tally[r], device=r)
            return second

    return SignalReuse


def main() -> int:
    ap = argparse.ArgumentParser(description="step 20: reusing a signal window, in a kernel and on the host")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--where", default="kernel", choices=["kernel", "host"])
    ap.add_argument("--mode", default="mesh", choices=["mesh", "ring"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_signal_reuse(nr, opts.mode)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0

    x = torch.randn(nr, 1, SIZE)
    first = torch.zeros(nr, 1, SIZE)
    second = torch.zeros(nr, 1, SIZE)
    if opts.where == "kernel":
        rows, cols = (nr, 1) if opts.mode == "mesh" else (2 * (nr - 1), nr)
        tally = torch.full((nr, rows, cols), -1, dtype=torch.int32)
        compiled.twice_in_kernel(x, first, second, tally)
        want_first = x.sum(dim=0, keepdim=True).expand_as(x)
        want_second = (x * x).sum(dim=0, keepdim=True).expand_as(x)
        assert torch.allclose(first, want_first, rtol=1e-5, atol=1e-5), "first all-reduce wrong"
        assert torch.allclose(second, want_second, rtol=1e-5, atol=1e-5), "second all-reduce on the reused signal wrong"
        assert torch.equal(tally, torch.zeros_like(tally)), f"credits left behind: {tally.tolist()}"
        print("OK")
        return 0

    z = torch.randn(nr, 1, SIZE)
    tally = torch.full((nr, 1, nr), -1, dtype=torch.int32)
    compiled.twice_on_host(x, z, first, second, tally)
    assert torch.equal(first, torch.roll(x, shifts=-1, dims=0)), "round one wrong"
    assert torch.equal(second, torch.roll(z, shifts=-1, dims=0)), "round two wrong on the reused HOST signal"
    assert torch.equal(tally, torch.zeros_like(tally)), f"credits left behind: {tally.tolist()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
