# A STAND-IN for PyPTO's pypto.language, for PLD Workbench's tests; it is not PyPTO.
"""Every name is a permissive placeholder: decorators keep the function or
class they decorate (so factories and @pl.program classes can be built and
compiled by name), and annotations such as pl.Tensor[[NR, 8], pl.FP32]
evaluate to placeholders. Nothing is type-checked or compiled."""


class _Any:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Any(self._name + "." + name)

    def __getitem__(self, key):
        return _Any(self._name + "[]")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and (callable(args[0]) or isinstance(args[0], type)) and not isinstance(args[0], _Any):
            return DSL(args[0], self._name)
        return _Any(self._name + "()")

    def __iter__(self):
        return iter(())

    def _op(self, *_args):
        return _Any(self._name + "<op>")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = __neg__ = _op


class DSL:
    """A decorated DSL function or @pl.program class."""

    def __init__(self, target, decorator):
        self.target, self.decorator = target, decorator
        self.__name__ = getattr(target, "__name__", "dsl")
        self.__wrapped__ = target

    def __get__(self, obj, owner=None):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.target, name)

    def __call__(self, *args, **kwargs):
        return _Any(self.__name__ + "()")

    def compile(self, *args, config=None):
        from pypto.ir import _compile

        return _compile(self, output_dir=getattr(config, "save_kernels_dir", None),
                        platform=getattr(config, "platform", None),
                        distributed_config=getattr(config, "distributed_config", None), via="jit.compile")


def __getattr__(name):
    return _Any("pl." + name)
