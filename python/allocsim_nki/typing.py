"""nki.typing: the annotation types kernels import (`tensor[shape...]`). A kernel's local annotations are not
evaluated by Python; a parameter or module-level annotation evaluates to this marker, which the tracer ignores."""


class _Annotation:
    def __init__(self, name, args=()):
        self._name, self._args = name, args

    def __getitem__(self, args):
        return _Annotation(self._name, args if isinstance(args, tuple) else (args,))

    def __repr__(self):
        return "%s[%s]" % (self._name, ", ".join(map(repr, self._args))) if self._args else self._name


tensor = _Annotation("tensor")
