# A STAND-IN for PyPTO's pypto.ir.distributed_compiled_program, for PLD Workbench's tests; it is not PyPTO.
import json
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class DistributedConfig:
    device_ids: list = field(default_factory=list)
    num_sub_workers: int = 0


# The stand-in's clock: a2a3's cycle counter runs at 50 MHz and a5's at
# 1 GHz (metadata.clock_freq_hz in the runtime's on-disk schema, below).
_CLOCK_HZ = {"a2a3": 50_000_000, "a2a3sim": 50_000_000, "a5": 1_000_000_000, "a5sim": 1_000_000_000}


class DistributedCompiledProgram:
    def __init__(self, output_dir, platform, device_ids, name):
        self._output_dir = Path(output_dir).resolve()
        self._platform, self._ids, self._name = platform, device_ids, name

    @property
    def output_dir(self):
        return self._output_dir

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, config=None: self._run(args, config, method=name)

    def __call__(self, *args, config=None):
        return self._run(args, config, method=None)

    def _run(self, args, config, method):
        from pypto.ir import _log

        _log({"call": "run", "program": self._name, "method": method, "platform": getattr(config, "platform", None),
              "nargs": len(args), "swimlane": bool(getattr(config, "enable_chip_swimlane", 0))})
        hog = int(os.environ.get("PLD_STANDIN_ALLOC_MB", "0"))
        if hog:
            self._hog = bytearray(hog << 20)  # stands in for a run that needs more memory than it may have
        outputs = os.environ.get("PLD_STANDIN_OUTPUTS")
        if outputs:
            with open(outputs) as f:
                for pos, values in json.load(f).items():
                    store = args[int(pos)]._store
                    if len(values) != len(store):
                        raise ValueError(f"argument {pos}: {len(values)} values for {len(store)} elements")
                    store[:] = [float(v) if isinstance(v, (int, float)) else float(v.replace("Infinity", "inf")) for v in values]
        if getattr(config, "enable_chip_swimlane", 0):
            self._write_swimlane(int(config.enable_chip_swimlane))

    def _write_swimlane(self, level):
        # The on-disk schema of chip_swimlane_records.json is defined in
        # hw-native-sys/simpler (PyPTO's runtime submodule, at 93adc3865),
        # docs/dfx/chip-swimlane-profiling.md, "On-disk schema": a level, a
        # metadata block (clock_freq_hz, num_cores, core_types) and flat
        # tuple streams, aicore_tasks [core_id, task_token_raw, reg_task_id,
        # start_cycles, end_cycles] and aicpu_tasks [core_id, reg_task_id,
        # dispatch_cycles, finish_cycles]. The files land per rank and
        # dispatch under dfx_outputs/rank{r}/d{k}/ (PyPTO's
        # DistributedCompiledProgram.__call__ docstring at e2d0f78ae). The
        # timings are the stand-in's own: task t of rank r starts at
        # 1000 * (t + 1) + 100 * r cycles and lasts 500 + 50 * t.
        tasks = int(os.environ.get("PLD_STANDIN_TASKS", "2"))
        for r, _dev in enumerate(self._ids):
            d = self._output_dir / "dfx_outputs" / f"rank{r}" / "d0"
            d.mkdir(parents=True, exist_ok=True)
            aicore, aicpu = [], []
            for t in range(tasks):
                start = 1000 * (t + 1) + 100 * r
                core = t % 2
                aicore.append([core, t, t, start, start + 500 + 50 * t])
                aicpu.append([core, t, start - 40, start + 540 + 50 * t])
            doc = {
                "chip_swimlane_level": level,
                "metadata": {"clock_freq_hz": _CLOCK_HZ.get(self._platform, 50_000_000), "num_cores": 2,
                             "core_types": ["aiv", "aiv"]},
                "aicore_tasks": aicore,
                "aicpu_tasks": aicpu,
            }
            with open(d / "chip_swimlane_records.json", "w") as f:
                json.dump(doc, f)
