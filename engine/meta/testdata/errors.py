# Each case below is loaded as its own module. The line marked with
#   ### CODE "regexp"
# is where the case's single diagnostic must point, and the regexp must match
# its message. Cases are separated by lines of three dashes.
import pypto.language as pl
---
@pl.function(type=pl.FunctionType.AIV)  ### E0313 "type=pl.FunctionType.AIV\) is not supported: want InCore or Orchestration"
def kernel(x):
    return x
---
@pl.function(type=pl.FunctionType.InCore, role=pl.Role.Orchestrator)  ### E0313 "mixes type=InCore with level=/role="
def kernel(x):
    return x
---
@pl.function(role=pl.Role.Orchestrator)  ### E0313 "needs level= and role= together"
def host(x):
    return x
---
@pl.function(level=pl.Level.CHIP, role=pl.Role.Orchestrator)  ### E0313 "want level HOST with role Orchestrator"
def host(x):
    return x
---
@pl.function(type="InCore")  ### E0313 "type= wants a pl.FunctionType member, got 'InCore'"
def kernel(x):
    return x
---
@pl.function(pl.FunctionType.InCore)  ### E0313 "keyword arguments only"
def kernel(x):
    return x
---
@pl.function(kind=pl.FunctionType.InCore)  ### E0313 "unknown argument 'kind'"
def kernel(x):
    return x
---
@pl.function()  ### E0313 "needs type= or level= and role="
def kernel(x):
    return x
---
@pl.jit.incore(fast=True)  ### E0313 "@pl.jit.incore takes no arguments here, got 1"
def kernel(x):
    return x
---
@pl.jit.device  ### E0313 "unknown DSL decorator @pl.jit.device on kernel"
def kernel(x):
    return x
---
@pl.jit.incore
@pl.function(type=pl.FunctionType.InCore)  ### E0313 "kernel has two DSL decorators: @pl.jit.incore and @pl.function"
def kernel(x):
    return x
---
@pl.program  ### E0313 "@pl.program decorates a class, not a function \(not_a_class\)"
def not_a_class():
    pass
---
@pl.jit  ### E0313 "@pl.jit decorates a function, not a class \(Prog\)"
class Prog:
    pass
---
@pl.program(strict=True)  ### E0313 "@pl.program takes no arguments here"
class Prog:
    pass
---
kind = pl.FunctionType.Incore  ### E0309 "pl.FunctionType has no member 'Incore'"
---
wrapped = pl.jit.incore(len)  ### E0313 "pl.jit.incore only works as a decorator"
---
tile = pl.load(None, [0, 0], [1, 64])  ### E0312 "pl.load can only be used inside a DSL function"
---
NR = pl.dynamic("N R")  ### E0316 "pl.dynamic name must be an identifier, got 'N R'"
---
@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass

kernel = Prog.kernel(None)  ### E0312 "InCore kernel kernel cannot be called at compile time"
---
@pl.program
class Prog:
    pass

instance = Prog()  ### E0318 "program Prog cannot be called at compile time"
---
class Settings:
    SIZE = 64

s = Settings()  ### E0318 "cannot create an instance of class Settings"
---
RANKS = 3
if 64 % RANKS:
    raise ValueError(f"{RANKS} ranks do not divide 64")  ### E0301 "module code raised ValueError: 3 ranks do not divide 64"
---
def build(nr):
    assert nr >= 2, f"need at least 2 ranks, got {nr}"  ### E0302 "assertion failed: need at least 2 ranks, got 1"
    return nr

P = build(1)
---
def build(nr):
    chunk = 64 // (nr - nr)  ### E0306 "integer division or modulo by zero \(in build\(4\)\)"
    return chunk

P = build(4)
---
SIZE = 64
chunk = SIZE // nrank  ### E0303 "name 'nrank' is not defined"
---
shape = [4, 1] + (64,)  ### E0304 "unsupported operand types for \+: got 'list' and 'tuple'"
---
rows, cols = [4, 1, 64]  ### E0308 "cannot unpack 3 values into 2 targets: got 3, want 2"
---
def f(a, *, mode):
    return a

f(1, "ring")  ### E0305 "f\(\) takes 1 positional arguments, got 2"
---
def f(a, *, mode):
    return a

f(1)  ### E0305 "f\(\) missing 1 required argument: 'mode'"
---
steps = 0
while steps >= 0:  ### E0310 "did not finish within 1000000 steps"
    steps += 1
---
def deep(n):
    return deep(n + 1) + 1  ### E0311 "maximum call depth 200 exceeded in deep\(\) \(in deep\(0\)\)"

deep(0)
---
huge = [0] * (1 << 30)  ### E0319 "sequence too large to build at compile time"
---
x = 9223372036854775807
y = x * 2  ### E0314 "integer overflow: 9223372036854775807 \* 2 does not fit in 64 bits"
---
import torch
w = torch.ones(4)
scaled = w * 2  ### E0304 "got 'runtime object' and 'int'"
---
try:
    pl.store(None, [0], None)  ### E0312 "pl.store can only be used inside a DSL function"
except Exception:
    pass
---
def pick(mode):
    table = {"mesh": 1, "ring": 2}
    return table[mode]  ### E0307 "key 'tree' not found in the dict \(in pick\("tree"\)\)"

pick("tree")
