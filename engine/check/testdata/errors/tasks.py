# Tasks and deferred completion: the places and forms PyPTO refuses for
# pld.system.defer_wait, and the task forms the workbench does not model.
#! entry: Waits.host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Waits:
    @pl.function(type=pl.FunctionType.InCore)
    def bare(self, flag: pld.DistributedTensor[[1, 1], pl.INT32]):
        pld.system.defer_wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Ge)  ### "^E0245 pld.system.defer_wait must be in a task-level pl.at"

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        data: pl.Tensor[[1, 8], pl.INT32],
        out: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
        flag: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        box: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]],
        wide: pl.InOut[pld.DistributedTensor[[1, 1], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.INT32]:
        self.bare(flag)
        with pl.manual_scope():  ### "^W0308 "
            with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True) as early:
                pld.system.defer_wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Ge)  ### "^E0245 a pl.at scope containing pld.system.defer_wait cannot use allow_early_resolve=True$"
            with pl.at(level=pl.Level.CORE_GROUP) as eq:
                pld.system.defer_wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Eq)  ### "^E0246 pld.system.defer_wait only supports cmp=pld.WaitCmp.Ge, got pld.WaitCmp.Eq$"
            with pl.at(level=pl.Level.CORE_GROUP) as fp:
                pld.system.defer_wait(wide, [0, 0], 1, cmp=pld.WaitCmp.Ge)  ### "^E0251 pld.system.defer_wait signal dtype must be INT32, got FP32$"
            with pl.at(level=pl.Level.CORE_GROUP) as late:
                pld.system.defer_wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Ge)
                got: pl.Scalar[pl.INT32] = pl.read(data, [0, 0])  ### "^E0247 pl.read after pld.system.defer_wait \(line 33\): a deferred waiter ends at its registrations$"
            with pl.at(level=pl.Level.CORE_GROUP) as loads:
                t = pl.load(box, [0, 0], [1, 8])  ### "^E0247 pl.load in a deferred waiter \(pld.system.defer_wait at line 37\): a waiter only reads scalars with pl.read and registers its conditions$"
                pld.system.defer_wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Ge)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[data]):  ### "^E0205 pl.at deps= element is .*, want a task id$"
                t = pl.load(box, [0, 0], [1, 8])
            with pl.at(level=pl.Level.CORE_GROUP, deps=early):  ### "^E0205 pl.at deps= must be a list of task ids$"
                t = pl.load(box, [0, 0], [1, 8])
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[]):  ### "^E0401 pl.at option optimizations in a chip orchestration is not supported by the workbench$"
                t = pl.load(box, [0, 0], [1, 8])
            with pl.at(level=pl.Level.CHIP):  ### "^E0401 pl.at\(level=pl.Level.CHIP\) in a chip orchestration is not supported by the workbench$"
                t = pl.load(box, [0, 0], [1, 8])
            with pl.manual_scope():  ### "^E0401 a pl.manual_scope inside a pl.manual_scope is not supported by the workbench$"
                pass
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        data: pl.Tensor[[2, 1, 8], pl.INT32],
        out: pl.Out[pl.Tensor[[2, 1, 8], pl.INT32]],
    ) -> pl.Tensor[[2, 1, 8], pl.INT32]:
        flag_buf = pld.alloc_window_buffer(pl.INT32.get_byte())
        box_buf = pld.alloc_window_buffer(8 * pl.INT32.get_byte())
        wide_buf = pld.alloc_window_buffer(pl.FP32.get_byte())
        with pl.manual_scope():  ### "^E0401 pl.manual_scope in .* is not supported by the workbench$"
            pass
        for r in pl.range(pld.world_size()):
            flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)
            box = pld.window(box_buf, [1, 8], dtype=pl.INT32)
            wide = pld.window(wide_buf, [1, 1], dtype=pl.FP32)
            self.orch(data[r], out[r], flag, box, wide, device=r)
        return out
