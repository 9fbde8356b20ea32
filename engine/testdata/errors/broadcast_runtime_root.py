#! entry: build_bcast({P}).host_orch
#! ranks: 2

"""The broadcast builtin's root= must be a Python int known at build time.

Here it is the scalar argument root, whose value only exists at run time.
Pass the module constant instead (root=ROOT), or hand-roll the broadcast
if the root really changes from call to call.
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
ROOT = 0


def build_bcast(nr: int):
    @pl.program
    class Bcast:
        @pl.function(type=pl.FunctionType.InCore)
        def step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            root: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            if pld.rank(pld.get_comm_ctx(box)) == root:
                box = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], box)
            box = pld.tensor.broadcast(box, sig, root=root)  ### "root"
            return pl.store(pl.load(box, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            box: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
            root: pl.Scalar[pl.INT32],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.step(x, y, box, sig, root)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                box = pld.window(box_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                self.dev(x[r], y[r], box, sig, ROOT, device=r)
            return y

    return Bcast
