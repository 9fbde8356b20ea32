#! entry: build_host_reduce({P}, 960, 4, "mesh", "sum").host_orch
#! entry: build_host_reduce({P}, 960, 2, "mesh", "max").host_orch
#! entry: build_host_reduce({P}, 64, 1, "mesh", "prod").host_orch
#! entry: build_host_reduce({P}, 300, 1, "mesh", "min").host_orch
#! entry: build_host_reduce({P}, 960, 1, "ring", "sum").host_orch
#! ranks: 2 3 4 5
#! golden: y[r] == the element-wise reduction over q of x[q], for every rank r (FP32)

"""The allreduce called by the host orchestrator instead of a kernel.

The host stages every rank's slice into a window with one dispatch, calls
``pld.tensor.allreduce`` itself, and reads the result back with a second
dispatch. Called this way the builtin runs as its own kernel on every rank:
the mesh form as ``cores`` blocks per rank that share the 256-element tiles
block-cyclically, each block on its own lane of a [nr, cores] signal (one
core: a [nr] signal). The ring form needs a
[2*(nr-1)+1, nr] signal, sums only and wants n to divide by nr.
"""

import pypto.language as pl
import pypto.language.distributed as pld

OPS = {"sum": pld.ReduceOp.Sum, "max": pld.ReduceOp.Max, "min": pld.ReduceOp.Min, "prod": pld.ReduceOp.Prod}


def build_host_reduce(nr: int, n: int, cores: int, mode: str, op: str):
    """A HOST allreduce of n floats per rank."""
    reduce = OPS[op]
    ring = mode == "ring"
    lanes = cores > 1
    rounds = 2 * (nr - 1) + 1

    @pl.program
    class HostReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(
            self,
            x: pl.Tensor[[1, n], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, n], pl.FP32]],
        ) -> pld.DistributedTensor[[1, n], pl.FP32]:
            t = pl.load(x, [0, 0], [1, n])
            data = pl.store(t, [0, 0], data)
            return data

        @pl.function(type=pl.FunctionType.InCore)
        def drain(
            self,
            data: pld.DistributedTensor[[1, n], pl.FP32],
            y: pl.Out[pl.Tensor[[1, n], pl.FP32]],
        ) -> pl.Tensor[[1, n], pl.FP32]:
            t = pl.load(data, [0, 0], [1, n])
            return pl.store(t, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_fill(
            self,
            x: pl.Tensor[[1, n], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, n], pl.FP32]],
        ) -> pld.DistributedTensor[[1, n], pl.FP32]:
            return self.fill(x, data)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_drain(
            self,
            data: pld.DistributedTensor[[1, n], pl.FP32],
            y: pl.Out[pl.Tensor[[1, n], pl.FP32]],
        ) -> pl.Tensor[[1, n], pl.FP32]:
            return self.drain(data, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, n], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, n], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, n], pl.FP32]:
            data_buf = pld.alloc_window_buffer([1, n], dtype=pl.FP32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, n], dtype=pl.FP32)
                self.dev_fill(x[r], data, device=r)
            data = pld.window(data_buf, [1, n], dtype=pl.FP32)
            if ring:
                sig_buf = pld.alloc_window_buffer([rounds, nr], dtype=pl.INT32)
                sig = pld.window(sig_buf, [rounds, nr], dtype=pl.INT32)
                data = pld.tensor.allreduce(data, sig, op=reduce, mode="ring")
            elif lanes:
                sig_buf = pld.alloc_window_buffer([nr, cores], dtype=pl.INT32)
                sig = pld.window(sig_buf, [nr, cores], dtype=pl.INT32)
                data = pld.tensor.allreduce(data, sig, op=reduce, core_num=cores)
            else:
                sig_buf = pld.alloc_window_buffer([nr], dtype=pl.INT32)
                sig = pld.window(sig_buf, [nr], dtype=pl.INT32)
                data = pld.tensor.allreduce(data, sig, op=reduce)
            for r in pl.range(pld.world_size()):
                self.dev_drain(data, y[r], device=r)
            return y

    return HostReduce
