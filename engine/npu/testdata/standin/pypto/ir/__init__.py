# A STAND-IN for PyPTO's pypto.ir, for PLD Workbench's tests; it is not PyPTO.
"""ir.compile records the call and returns a stand-in compiled program."""

import json
import os
import time


def _log(record):
    path = os.environ.get("PLD_STANDIN_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


def _compile(program, output_dir=None, platform=None, distributed_config=None, via="ir.compile"):
    from pypto.ir.distributed_compiled_program import DistributedCompiledProgram

    name = getattr(program, "__name__", "program")
    if output_dir is None:
        output_dir = os.path.join(os.getcwd(), "build_output", name + "_standin")
    os.makedirs(output_dir, exist_ok=True)
    ids = list(distributed_config.device_ids) if distributed_config is not None else []
    _log({"call": via, "program": name, "platform": platform, "device_ids": ids, "output_dir": output_dir})
    refusal = os.environ.get("PLD_STANDIN_COMPILE_ERROR")
    if refusal:
        raise ValueError(refusal)  # stands in for PyPTO's compiler refusing the program
    delay = float(os.environ.get("PLD_STANDIN_COMPILE_SECONDS", "0"))
    if delay:
        time.sleep(delay)  # stands in for a compile that takes too long
    return DistributedCompiledProgram(output_dir, platform, ids, name)


def compile(program, output_dir=None, platform=None, distributed_config=None, **_kw):  # noqa: A001 - PyPTO's name
    return _compile(program, output_dir=output_dir, platform=platform, distributed_config=distributed_config)
