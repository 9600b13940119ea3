"""The registry of named counters: the built-ins, the ``ctx_lab.counters`` entry points of
installed packages (discovered once, on first use), and counters registered at run time.

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."ctx_lab.counters"]
    my-tokenizer = "my_package:make_counter"   # a zero-argument factory, or a counter object

and ``my-tokenizer`` then works everywhere a counter name does: ``ctx-lab tokens --counter
all``, ``%ctx``, ``GET /ctx-lab/api/counters`` and the lab's counter selector. A name in the
scaling syntax (``bytes/4*1.2``, ``bytes/4*{prose:1.3,tool:35}``) scales a counter and is never
taken as a plugin's, so resolving one reads no entry points unless its base needs them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from ..errors import CounterUnavailableError, UnknownCounterError, UsageError
from ._anthropic import AnthropicCounter
from ._counters import (
    ByteEstimateCounter,
    CharEstimateCounter,
    CounterLike,
    FunctionCounter,
    TiktokenCounter,
    TokenCounter,
    _load_cl100k,
    _load_o200k,
)
from ._gemini import GeminiCounter
from ._open_models import OPEN_MODEL_COUNTERS
from ._scaled import BAND_ENTRIES, NOT_CLASSES, TOOL_FRAMING, ClassScaledCounter, ScaledCounter

__all__ = [
    "COUNTER_ENTRY_POINTS",
    "CounterInfo",
    "available_counters",
    "count_message",
    "count_tokens",
    "counter_info",
    "counter_names",
    "counter_status",
    "discover_counters",
    "get_counter",
    "portable_name",
    "register_counter",
]

COUNTER_ENTRY_POINTS = "ctx_lab.counters"
_OWN_COUNTERS = (
    TiktokenCounter,
    ByteEstimateCounter,
    CharEstimateCounter,
    FunctionCounter,
    ScaledCounter,
    ClassScaledCounter,
)
_SCALED = re.compile(r"^(?P<base>.+)\*(?P<factor>\d{1,3}(?:\.\d{1,6})?)$")
_FACTOR = r"[a-z]{1,12}:\d{1,3}(?:\.\d{1,6})?"
_CLASS_SCALED = re.compile(rf"^(?P<base>[^*]+)\*\{{(?P<factors>{_FACTOR}(?:,{_FACTOR}){{0,7}})\}}$")
MAX_SCALE = 100.0
# scaled counters by name, bounded: every REST request may name a new factor
_scaled: LRUCache[str, ScaledCounter] = LRUCache(maxsize=64)

_registry: dict[str, TokenCounter] = {}
_registry_lock = threading.RLock()
_discovered = False
_plugins: set[str] = set()


def _accept(name: str, counter: Any, exact: bool | None = None) -> TokenCounter:
    if not isinstance(name, str) or not name.strip() or name == "all":
        raise UsageError(f"invalid counter name {name!r}: use a non-empty name other than 'all'")
    if isinstance(counter, TokenCounter):
        return counter
    if callable(counter):
        return FunctionCounter(name, counter, bool(exact))
    raise UsageError(f"cannot register {counter!r}: need a counter or a callable str -> int")


def register_counter(
    name: str, counter: TokenCounter | Callable[[str], int], *, exact: bool | None = None
) -> TokenCounter:
    """Register ``counter`` under ``name`` so every name-accepting API (CLI, magics) can use it.

    ``counter`` is a counter object or a callable ``str -> int``; ``exact`` marks a callable as a
    real tokenizer (default: an estimate). Re-registering a name replaces it. Returns the
    registered counter object. A counter that the CLI, the server and the lab should see too is
    installed as a ``ctx_lab.counters`` entry point instead (see the module docstring).
    """
    registered = _accept(name, counter, exact)
    _discover()
    with _registry_lock:
        _registry[name] = registered
        _plugins.discard(name)
    return registered


@dataclass(frozen=True)
class _BrokenPlugin:
    """An entry point that failed to load: known by name, unavailable with the reason."""

    name: str
    reason: str
    exact: bool = False

    def count(self, text: str) -> int:
        """Raise :class:`CounterUnavailableError` with the loading error."""
        raise CounterUnavailableError(self.name, self.reason)

    def count_many(self, texts: Any) -> list[int]:
        """Raise :class:`CounterUnavailableError` with the loading error."""
        raise CounterUnavailableError(self.name, self.reason)


def _load_entry_point(point: Any) -> TokenCounter:
    try:
        target = point.load()
        if not isinstance(target, TokenCounter):
            target = target()
        if not isinstance(target, TokenCounter):
            raise TypeError(f"{point.value} returned {type(target).__name__}, not a counter")
    except Exception as exc:  # a third-party plugin may fail in any way; report, don't crash
        return _BrokenPlugin(
            point.name, f"plugin {point.value} failed to load: {type(exc).__name__}: {exc}"
        )
    if target.name != point.name:
        return _Renamed(point.name, target)
    return target


@dataclass(frozen=True)
class _Renamed:
    """A plugin counter shown under its entry-point name."""

    name: str
    inner: TokenCounter

    @property
    def exact(self) -> bool:
        """Whether the wrapped counter is exact."""
        return self.inner.exact

    def count(self, text: str) -> int:
        """The wrapped counter's count."""
        return self.inner.count(text)

    def count_many(self, texts: Any) -> list[int]:
        """The wrapped counter's counts."""
        return self.inner.count_many(texts)


def _scaling(name: str) -> bool:
    """Whether ``name`` is the scaling syntax (``<base>*1.2``, ``<base>*{prose:1.3,…}``)."""
    return bool(_SCALED.match(name) or _CLASS_SCALED.match(name))


def _discover() -> None:
    from importlib.metadata import entry_points  # only when plugins are looked for

    global _discovered
    if _discovered:
        return
    with _registry_lock:
        if _discovered:
            return
        _discovered = True
        for point in sorted(entry_points(group=COUNTER_ENTRY_POINTS), key=lambda p: p.name):
            if point.name in _registry or point.name == "all" or _scaling(point.name):
                continue  # a scaled form's name is the scaling syntax's, not a plugin's
            _registry[point.name] = _load_entry_point(point)
            _plugins.add(point.name)


def discover_counters(*, refresh: bool = False) -> list[str]:
    """Load the ``ctx_lab.counters`` entry points of installed packages (once per process;
    ``refresh=True`` looks again, e.g. after installing a plugin) and return every name."""
    global _discovered
    if refresh:
        with _registry_lock:
            for name in _plugins:
                _registry.pop(name, None)
            _plugins.clear()
            _discovered = False
    _discover()
    return counter_names()


def counter_names() -> list[str]:
    """Names of all counters: built-ins first, then plugins and registered ones."""
    _discover()
    return list(_registry)


def get_counter(counter: CounterLike = "cl100k") -> TokenCounter:
    """Resolve a counter name, counter object or callable to a counter object.

    Raises :class:`UnknownCounterError` (a usage error) for a name that is not registered.
    A known counter that cannot load here raises :class:`CounterUnavailableError` when it counts.
    """
    if isinstance(counter, _OWN_COUNTERS):  # the hot path: no Protocol check
        return counter
    if isinstance(counter, str):
        found = _registry.get(counter)
        if found is not None:  # a built-in or registered name: no plugin can take it over,
            return found  # so the entry points (importlib.metadata: 13 ms) are not read
        # the scaling syntax is never a plugin's name (_discover skips such names): only the
        # base of a scaled form may need the entry points
        scaled = _SCALED.match(counter)
        if scaled:
            return _scaled_counter(scaled["base"], float(scaled["factor"]))
        by_class = _CLASS_SCALED.match(counter)
        if by_class:
            return _class_scaled_counter(by_class["base"], by_class["factors"])
        _discover()
        try:
            return _registry[counter]
        except KeyError:
            if counter == "model":
                raise UsageError(
                    "counter 'model' depends on a model: resolve it with "
                    "ctx_lab.tokens.resolve_counter('model', model, default) or pass model=…"
                ) from None
            raise UnknownCounterError(counter, _registry) from None
    if isinstance(counter, TokenCounter):
        return counter
    if callable(counter):
        name = getattr(counter, "__name__", None) or type(counter).__name__
        return FunctionCounter(name if name != "<lambda>" else "custom", counter)
    raise UsageError(f"not a counter: {counter!r}; pass a name, a counter or a callable str -> int")


def portable_name(counter: CounterLike) -> str | None:
    """The name another process resolves to the same counter, or None when ``counter`` exists
    only in this one. Built-in and entry-point counters travel by name, and so do scaled forms
    of them (``bytes/4*1.24``); a callable, a counter object of one's own, or a name given to
    :func:`register_counter` at run time do not — a worker process would not know them."""
    if isinstance(counter, str):
        name = counter
        found = get_counter(counter)
    else:
        found = get_counter(counter)
        name = found.name
        try:
            if get_counter(name) is not found:
                return None
        except UsageError:
            return None
    if isinstance(found, ScaledCounter):
        scaled = _SCALED.match(name)
        return name if scaled and portable_name(scaled["base"]) else None
    if isinstance(found, ClassScaledCounter):
        by_class = _CLASS_SCALED.match(name)
        return name if by_class and portable_name(by_class["base"]) else None
    with _registry_lock:
        built_in = name in _BUILT_IN and _registry.get(name) is _BUILT_IN[name]
        plugin = name in _plugins
    return name if built_in or plugin else None


def _scaled_counter(base: str, factor: float) -> ScaledCounter:
    """``<base>*<factor>``: a registered counter's count scaled (calibrated estimates)."""
    if not 0 < factor <= MAX_SCALE:
        raise UsageError(f"counter {base}*{factor:g}: the factor must be in (0, {MAX_SCALE:g}]")
    made = ScaledCounter(get_counter(base), factor)
    with _registry_lock:
        found = _scaled.get(made.name)
        if found is None:
            found = _scaled[made.name] = made
        return found


def _class_scaled_counter(base: str, factors: str) -> ClassScaledCounter:
    """``<base>*{class:factor,…}``: a registered counter's count scaled by content class."""
    from ._calibration import MAX_FRAMING

    pairs = []
    for part in factors.split(","):
        klass, _, value = part.partition(":")
        factor = float(value)
        if klass == TOOL_FRAMING:  # tokens per tool message, not a scale
            if not 0 <= factor <= MAX_FRAMING:
                raise UsageError(
                    f"counter {base}*{{…}}: the tool framing must be in [0, {MAX_FRAMING:g}]"
                )
        elif klass in BAND_ENTRIES:  # the upper edge's band
            if not 0 <= factor <= MAX_SCALE:
                raise UsageError(f"counter {base}*{{…}}: {klass} must be in [0, {MAX_SCALE:g}]")
        elif not 0 < factor <= MAX_SCALE:
            raise UsageError(
                f"counter {base}*{{…}}: {klass}'s factor must be in (0, {MAX_SCALE:g}]"
            )
        pairs.append((klass, factor))
    if all(k in NOT_CLASSES for k, _ in pairs):
        raise UsageError(f"counter {base}*{{…}}: give at least one class's factor")
    made = ClassScaledCounter(get_counter(base), tuple(pairs))
    return made


def counter_status(counter: CounterLike) -> tuple[bool, str]:
    """Return ``(True, "")`` if the counter works here, else ``(False, reason)``. A counter
    with a ``status()`` method (one that calls an API) answers without counting anything."""
    found = get_counter(counter)
    status = getattr(found, "status", None)
    if callable(status):
        ok, reason = status()
        return bool(ok), str(reason)
    try:
        found.count("probe")
    except CounterUnavailableError as exc:
        return False, exc.reason
    return True, ""


@dataclass(frozen=True)
class CounterInfo:
    """One counter as the counter list shows it."""

    name: str
    exact: bool
    available: bool
    reason: str = ""
    # what an exact counter was checked against (a second packaging, a published hash, the
    # provider's own count); "" for an estimate or one that is exact by its own packaging only
    verified_by: str = ""


def counter_info() -> list[CounterInfo]:
    """Every counter with whether it is exact, what that was checked against, and whether it
    works here (and why not)."""
    infos = []
    for name in counter_names():
        counter = get_counter(name)
        ok, reason = counter_status(counter)
        checked = getattr(counter, "verified_by", None) if counter.exact else None
        infos.append(CounterInfo(name, bool(counter.exact), ok, reason, str(checked or "")))
    return infos


def available_counters() -> list[str]:
    """Names of the registered counters that work on this machine."""
    return [name for name in counter_names() if counter_status(name)[0]]


def count_tokens(text: str, counter: CounterLike = "cl100k") -> int:
    """Count the tokens of ``text`` with the named (or given) counter."""
    return get_counter(counter).count(text)


MESSAGE_OVERHEAD = 4


def count_message(role: str, content: str, counter: CounterLike = "cl100k") -> int:
    """Tokens of one chat message as the conversation design counts it: content + role + 4."""
    c = get_counter(counter)
    # an open model's chat template (Llama 3's headers, ChatML) where the counter knows it
    return c.count(content) + c.count(role) + getattr(c, "message_overhead", MESSAGE_OVERHEAD)


_BUILT_IN: dict[str, TokenCounter] = {
    "cl100k": TiktokenCounter("cl100k", _load_cl100k),
    "o200k": TiktokenCounter("o200k", _load_o200k),
    "bytes/4": ByteEstimateCounter(),
    "chars/3": CharEstimateCounter(),
    "anthropic": AnthropicCounter(),
    "gemini": GeminiCounter(),
    **OPEN_MODEL_COUNTERS,
}
_registry.update(_BUILT_IN)
