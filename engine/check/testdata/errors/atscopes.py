# The pl.at forms the workbench does not model are named, never run
# differently: it models pl.at(CHIP, Orchestrator) holding pl.at(CORE_GROUP)
# scopes at the top of a host orchestrator.
#! func: host
import pypto.language as pl


@pl.jit.host
def host(
    a: pl.Tensor[[16, 64], pl.FP32],
    out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
):
    with pl.at(level=pl.Level.HOST, role=pl.Role.SubWorker):  ### "^E0401 this pl.at scope \(the workbench models .*\) is not supported by the workbench$"
        pass
    with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
        out = pl.add(a, a)  ### "^E0401 a statement in a pl.at\(CHIP\) scope other than a pl.at\(level=pl.Level.CORE_GROUP\) scope is not supported by the workbench$"
    with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):  ### "^E0401 this pl.at scope inside pl.at\(CHIP\)"
            out = pl.add(a, a)
    with open("x") as f:  ### "^E0401 with is not allowed in a DSL function$"
        pass
    with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):  ### "^W0305 the pl.at\(CHIP\) scopes run on device 0 here; PyPTO's runtime places each outlined chip task on any of the 4 chips$"
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.add(a, a)
    return out
