# A STAND-IN for PyPTO's pypto.runtime, for PLD Workbench's tests; it is not PyPTO.
"""RunConfig with the fields the driver passes, as keyword-only dataclass
fields named as upstream's python/pypto/runtime/runner.py names them at
e2d0f78ae: an unknown keyword is a TypeError, as it would be upstream."""

from dataclasses import dataclass


@dataclass
class RunConfig:
    platform: str = "a2a3sim"
    distributed_config: object = None
    enable_chip_swimlane: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    save_kernels: bool = False
    save_kernels_dir: str = None
