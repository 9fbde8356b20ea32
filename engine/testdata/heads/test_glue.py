# A pytest module as upstream's system tests are written: fixtures with
# yield and a helper generator beside the program. The workbench parses
# them and never runs them; the program checks and runs.
#! entry: Doubler.host_orch
#! ranks: 2
import pypto.language as pl
import pytest

ROWS = 8
COLS = 8


def _cases(n):
    for i in range(n):
        yield i, i * 2


@pytest.fixture
def scratch_dir(tmp_path):
    d = tmp_path / "scratch"
    yield d


@pl.program
class Doubler:
    @pl.function(type=pl.FunctionType.InCore)
    def double(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [ROWS, COLS])
        s = pl.add(t, t)
        return pl.store(s, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        return self.double(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        x: pl.Tensor[[2, ROWS, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[2, ROWS, COLS], pl.FP32]],
    ):
        for r in pl.range(2):
            self.chip_orch(x[r], y[r], device=r)


class TestDoubler:
    @pytest.mark.parametrize("n", [1, 2])
    def test_double(self, n, scratch_dir):
        assert n > 0
