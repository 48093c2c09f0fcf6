"""nki.collectives: communication between NeuronCores. The program is one core's: every call is refused at the
kernel's line; ReplicaGroup is accepted so that kernel files that build one load."""
from allocsim_nki import trace as _t


class ReplicaGroup:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def refused(*a, **k):
        _t.unsupported("nki.collectives.%s: communication between NeuronCores (the program is one core's)" % name,
                       _t.user_location())
    refused.__name__ = name
    return refused
