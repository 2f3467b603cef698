"""Calls that go through a name a function bound, pure: `handler(x)` after `handler = views.serve`, `self.store(x)`
after `self.store = engine.Store` in any method of the class, `s.load()` after `s = Store(key)` and `Store(key).load()`
(a method of Store)."""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.audit.pybindings import Bound
from reviewbot.audit.pyfacts import Call, PyFunction, PyModule

INSTANCE = "()"  # a receiver that is a call's result (pyfacts.py): `Store(key)` in `Store(key).load()`
MAX_ALIASES = 3  # names for names followed
MAX_IMPLEMENTATIONS = 6  # classes of one name a run-time choice may bind (`engine.SessionStore`, a backend each)


@dataclass(frozen=True)
class Through:
    """What a call reaches through a binding: `call` (rewritten to the bound value), and for a method called on an
    instance, the name of the instance's class (`call` then names that class)."""

    call: Call
    method: str | None = None


def visible(module: PyModule, function: PyFunction) -> dict[str, Bound]:
    """target -> its binding: the class's `self.` attributes bound in any of its methods, then the function's own
    (which win, a later binding of a name over an earlier one)."""
    out: dict[str, Bound] = {}
    if function.owner is not None:
        for other in module.functions:
            if other.owner == function.owner:
                out.update((b.target, b) for b in other.bound if b.target.startswith("self."))
    out.update((b.target, b) for b in function.bound)
    return out


def through(call: Call, bindings: dict[str, Bound]) -> Through | None:
    """The call as its binding says, or None when no binding is visible for what it calls."""
    whole = f"{call.receiver}.{call.name}" if call.receiver else call.name
    held = bindings.get(whole)
    if held is not None and not held.instance and held.value != whole:  # another name for a function or class
        return Through(_as_call(_aliased(held.value, bindings), call.line))
    if call.receiver and call.receiver.endswith(INSTANCE):  # `Store(key).load()`: a method of what was called
        return Through(_as_call(_aliased(call.receiver[:-len(INSTANCE)], bindings), call.line), call.name)
    instance = bindings.get(call.receiver) if call.receiver else None
    if instance is not None and instance.instance:  # a method of the class the receiver is an instance of
        return Through(_as_call(_aliased(instance.value, bindings), call.line), call.name)
    return None


def _aliased(value: str, bindings: dict[str, Bound]) -> str:
    """What a name stands for when it is itself another name (`self.Store` after `self.Store = engine.Store`)."""
    for _ in range(MAX_ALIASES):
        held = bindings.get(value)
        if held is None or held.instance or held.value == value:
            break
        value = held.value
    return value


def _as_call(value: str, line: int) -> Call:
    receiver, _, name = value.rpartition(".")
    return Call(receiver or None, name, line)
