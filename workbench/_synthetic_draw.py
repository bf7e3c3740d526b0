"""Draw one deterministic, readable value from a JSON Schema with hypothesis-jsonschema.

Imported lazily by ``workbench._synthetic`` (it imports hypothesis and jsonschema).

How a value is drawn, and why:

* ``hypothesis_jsonschema.from_schema`` builds the strategy (bounds, ``multipleOf``, ``pattern``,
  ``format``, combinators), filtered by a Draft 2020-12 validator with format checking on the
  *original* schema, so a value that comes back is valid by construction.
* One example is taken with hypothesis' public API: ``@given`` + ``@seed`` + ``settings(max_examples=2,
  phases=[Phase.generate], database=None)``. The first example hypothesis tries is always the
  simplest one (``""``, ``0``, ``[]``), the same for every seed: a gate in front of the strategy
  (:data:`GATE`) turns that one into a cheap placeholder, and the value is the second example.
* Primitive choices come from :class:`ReadableProvider`, a hypothesis backend (the documented
  ``PrimitiveProvider`` interface). Hypothesis' own provider mixes in constants harvested from
  whichever local modules happen to be imported (so a value would differ between a notebook and a
  test run) and favours edge cases (``1e308``, ``"\\x00"``); this one draws from a
  ``random.Random`` seeded per call and prefers small numbers, readable text and short collections.
* A synthetic call inside a running hypothesis test (a property test of an agent loop) would nest
  ``@given``, which hypothesis refuses; such a draw runs on a worker thread of its own.

Hypothesis names used from outside its public ``hypothesis``/``hypothesis.strategies`` API, and why:
``hypothesis.internal.conjecture.providers.PrimitiveProvider``/``AVAILABLE_PROVIDERS`` are the
documented way to write and register a backend (despite the module path);
``SearchStrategy.is_empty`` tells a provably unsatisfiable schema from one where no value was found;
``hypothesis.internal.conjecture.utils.many`` is what hypothesis-jsonschema itself builds objects
with, adapted in :func:`_patch_object_generation`.
"""

from __future__ import annotations

import functools
import math
import random
import threading
import types
import uuid
from typing import Any, Callable, Optional

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seed_test
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from hypothesis.errors import Unsatisfiable
from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, PrimitiveProvider

from workbench._synthetic_schema import FORMAT_PREFIX, READABLE_FORMATS

__all__ = ["ReadableProvider", "NoValueFound", "strategy_for", "draw"]

_BACKEND = "workbench-readable"
WORDS = (
    "alpha",
    "bravo",
    "delta",
    "echo",
    "kilo",
    "lima",
    "nova",
    "orbit",
    "pixel",
    "quartz",
    "sierra",
    "tango",
    "amber",
    "cedar",
    "harbor",
    "maple",
    "river",
    "summit",
    "violet",
    "willow",
)
#: unbounded (or very wide) numeric ranges are drawn from a window this wide (readable values)
SPAN = 1000
#: ranges up to this width are drawn uniformly
WIDE = 10**6
#: cap on the "draw another element?" probability: collections stay short
MAX_CONTINUE = 0.6
#: the gate's bound: the simplest example draws 0 (skipped); ReadableProvider always draws GATE
GATE = 2**61 - 1
_SKIPPED = object()


class NoValueFound(Exception):
    """Hypothesis found no value for a strategy (``empty``: provably none exists)."""

    def __init__(self, empty: bool) -> None:
        self.empty = empty
        super().__init__("empty strategy" if empty else "no example found")


# -- the provider -----------------------------------------------------------------------------------
_session = threading.local()


class ReadableProvider(PrimitiveProvider):
    """Deterministic, readable primitive choices (see the module doc).

    Each test case gets its own ``random.Random``, seeded from the draw's seed and a per-draw
    counter: deterministic whatever the process, hash seed or loaded modules.
    """

    lifetime = "test_case"

    def __init__(self, conjecturedata: Any, /) -> None:
        super().__init__(conjecturedata)
        state = getattr(_session, "state", None)
        if state is None:
            state = [0, 0]
        state[1] += 1
        self._random = random.Random(f"{state[0]}:{state[1]}")  # str seeds hash with SHA-512, not hash()

    def draw_boolean(self, p: float = 0.5) -> bool:
        if p <= 0 or p >= 1:
            return p >= 1
        return self._random.random() < min(p, MAX_CONTINUE)

    def draw_integer(
        self,
        min_value: Optional[int] = None,
        max_value: Optional[int] = None,
        *,
        weights: Optional[dict[int, float]] = None,
        shrink_towards: int = 0,
    ) -> int:
        if min_value == 0 and max_value == GATE:
            return GATE
        if weights:
            r, total = self._random.random(), 0.0
            for value, weight in weights.items():
                total += weight
                if r < total:
                    return value
        lo, hi = self._window(min_value, max_value, shrink_towards)
        return self._random.randint(int(lo), int(hi))

    def draw_float(
        self,
        *,
        min_value: float = -math.inf,
        max_value: float = math.inf,
        allow_nan: bool = True,
        smallest_nonzero_magnitude: float = 0.0,
    ) -> float:
        lo, hi = self._window(
            None if min_value == -math.inf else min_value, None if max_value == math.inf else max_value, 0.0
        )
        r = self._random.random()
        value = lo + (hi - lo) * r if math.isfinite(hi - lo) else lo * (1 - r) + hi * r
        value = min(max(value, min_value), max_value)
        for digits in (2, 4, 6):  # a price-like 12.34 when the bounds allow it
            rounded = round(value, digits) + 0.0
            if min_value <= rounded <= max_value and (rounded == 0 or abs(rounded) >= smallest_nonzero_magnitude):
                return rounded
        return value

    def draw_string(self, intervals: Any, *, min_size: int = 0, max_size: int = 10**9) -> str:
        n = self._length(min_size, max_size)
        if n == 0:
            return ""
        wordy, readable = _alphabet(intervals)
        if wordy:
            return self._words(n, min_size, max_size, readable)
        chars = readable or "".join(chr(intervals[self._random.randrange(len(intervals))]) for _ in range(8))
        return "".join(self._random.choice(chars) for _ in range(n))

    def draw_bytes(self, min_size: int = 0, max_size: int = 10**9) -> bytes:
        return bytes(self._random.randrange(256) for _ in range(self._length(min_size, max_size)))

    # -- helpers ---------------------------------------------------------------------------------
    def _window(self, lo: Any, hi: Any, center: Any) -> tuple[Any, Any]:
        if lo is None and hi is None:
            return center, center + SPAN
        if lo is None:
            return hi - SPAN, hi
        if hi is None:
            return lo, lo + SPAN
        if hi - lo > WIDE and self._random.random() < 0.9:
            middle = min(max(center, lo), hi)
            return max(lo, middle - SPAN // 2), min(hi, middle + SPAN // 2)
        return lo, hi

    def _length(self, min_size: int, max_size: int) -> int:
        if max_size <= min_size:
            return min_size
        want = self._random.randint(3, 10) if min_size < 3 else self._random.randint(min_size, min_size + 5)
        return min(max(want, min_size), max_size)

    def _words(self, n: int, min_size: int, max_size: int, readable: str) -> str:
        """Text made of words (``delta-417``, ``maple_orbit``) of a length within the bounds."""
        sep = next((c for c in "-_ " if c in readable), "")
        digits = "".join(c for c in readable if c.isdigit())
        parts = [self._random.choice(WORDS)]
        if self._random.random() < 0.5:
            parts.append(
                "".join(self._random.choice(digits) for _ in range(3))
                if digits and self._random.random() < 0.5
                else self._random.choice(WORDS)
            )
        text = sep.join(parts)
        while len(text) < max(n, min_size):
            text += sep + self._random.choice(WORDS)
        if len(text) > max_size or (min_size > 3 and len(text) > n):
            text = text[: max(n, min_size)]
        if sep and text.endswith(sep):
            text = text[:-1] + "a"
        return text


@functools.lru_cache(maxsize=512)
def _alphabet(intervals: Any) -> tuple[bool, str]:
    """(all of a-z allowed, the readable ASCII characters allowed), for an ``IntervalSet``."""
    lowercase = "abcdefghijklmnopqrstuvwxyz"
    readable = [c for c in lowercase + "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c in intervals]
    if not readable:
        readable = [chr(i) for i in range(0x20, 0x7F) if chr(i) in intervals]
    separators = [c for c in "-_ " if c in intervals and c not in readable]
    return all(c in intervals for c in lowercase), "".join(readable + separators)


AVAILABLE_PROVIDERS.setdefault(_BACKEND, ReadableProvider)  # hypothesis' documented backend registry

# -- readable strings for formats -------------------------------------------------------------------
_WORD = st.sampled_from(WORDS)
_NUMBER = st.integers(1, 999)
_DATE = st.builds("{:04d}-{:02d}-{:02d}".format, st.integers(2020, 2030), st.integers(1, 12), st.integers(1, 28))
_TIME = st.builds("{:02d}:{:02d}:{:02d}Z".format, st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
_UUID = st.lists(st.integers(0, 255), min_size=16, max_size=16).map(lambda b: str(uuid.UUID(bytes=bytes(b), version=4)))
_DURATION = st.one_of(
    st.integers(1, 30).map("P{}D".format), st.builds("PT{}H{}M".format, st.integers(1, 23), st.integers(1, 59))
)
_URL = st.builds("https://example.com/{}/{}".format, _WORD, _NUMBER)
_EMAIL = st.builds("{}{}@example.com".format, _WORD, _NUMBER)
_HOST = _WORD.map("{}.example.com".format)
READABLE_STRATEGIES: dict[str, st.SearchStrategy[str]] = {
    "date": _DATE,
    "time": _TIME,
    "date-time": st.builds("{}T{}".format, _DATE, _TIME),
    "uuid": _UUID,
    "duration": _DURATION,
    "email": _EMAIL,
    "idn-email": _EMAIL,
    "uri": _URL,
    "iri": _URL,
    "uri-reference": _URL,
    "iri-reference": _URL,
    "hostname": _HOST,
    "idn-hostname": _HOST,
    "ipv4": st.builds("10.{}.{}.{}".format, st.integers(0, 255), st.integers(0, 255), st.integers(1, 254)),
    "json-pointer": st.builds("/{}/{}".format, _WORD, st.integers(0, 9)),
    "path": _WORD.map("/tmp/{}.txt".format),
}
assert set(READABLE_STRATEGIES) == READABLE_FORMATS
#: formats jsonschema checks that hypothesis-jsonschema has no strategy for (needed even for the exact schema)
MISSING_FORMATS = {name: READABLE_STRATEGIES[name] for name in ("uuid", "duration")}


# -- hypothesis-jsonschema on current hypothesis ------------------------------------------------------
def _patch_object_generation() -> None:
    """hypothesis-jsonschema 0.23 builds objects with ``hypothesis.internal...utils.many`` through its
    old ``while elements.more()`` API, which newer hypothesis replaced with ``with many(...) as
    elements: for _ in elements`` — every object schema then fails with AttributeError. Until a
    release catches up, give that module an adapter with the old API (and only when it is needed)."""
    import hypothesis_jsonschema._from_schema as hjs
    from hypothesis.internal.conjecture import utils as cu

    if hasattr(hjs.cu.many, "more"):
        return
    real = cu.many
    done = object()

    class LegacyMany:
        def __init__(self, data: Any, **kwargs: Any) -> None:
            self._many = real(data, **kwargs).__enter__()
            self._elements = iter(self._many)
            self._rejected = False

        def more(self) -> bool:
            self._rejected = False
            if next(self._elements, done) is done:
                self._many.__exit__(None, None, None)
                return False
            return True

        def reject(self, why: Optional[str] = None) -> None:
            if not self._rejected:  # the new API allows one reject per element
                self._rejected = True
                self._many.reject(why)

    adapter = types.ModuleType(cu.__name__)
    adapter.__dict__.update(cu.__dict__)
    adapter.many = LegacyMany  # type: ignore[attr-defined]
    hjs.cu = adapter


# -- building and drawing ---------------------------------------------------------------------------
def strategy_for(prepared: Any, is_valid: Callable[[Any], bool], *, readable: bool) -> st.SearchStrategy:
    """The strategy for a prepared schema, filtered by the original schema's validator.

    ``readable``: the schema went through ``_synthetic_schema.readable`` (its renamed formats get
    readable strategies, and text never holds NUL); otherwise anything the schema allows may come.
    """
    from hypothesis_jsonschema import from_schema

    _patch_object_generation()
    formats = {FORMAT_PREFIX + name: s for name, s in READABLE_STRATEGIES.items()} if readable else {}
    strategy = from_schema(prepared, custom_formats={**MISSING_FORMATS, **formats}, allow_x00=not readable)
    return strategy.filter(is_valid)


_SETTINGS: Optional[settings] = None


def _settings() -> settings:
    global _SETTINGS
    if _SETTINGS is None:
        _SETTINGS = settings(
            settings.get_profile("default"),
            max_examples=2,
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
            backend=_BACKEND,
            derandomize=False,
            print_blob=False,
            report_multiple_bugs=False,
        )
    return _SETTINGS


def draw(strategy: st.SearchStrategy, seed: int) -> Any:
    """One value of ``strategy``, the same for the same seed. Raises ``NoValueFound``."""
    if currently_in_test_context():
        return _in_own_thread(_draw, strategy, seed)
    return _draw(strategy, seed)


def _draw(strategy: st.SearchStrategy, seed: int) -> Any:
    if strategy.is_empty:
        raise NoValueFound(empty=True)
    found: list[Any] = []

    @seed_test(seed)
    @_settings()
    @given(st.integers(0, GATE).flatmap(lambda gate: strategy if gate else st.just(_SKIPPED)))
    def capture(value: Any) -> None:
        if value is not _SKIPPED:
            found.append(value)

    _session.state = [seed, 0]
    try:
        capture()
    except Unsatisfiable:
        raise NoValueFound(empty=False) from None
    finally:
        _session.state = None
    if not found:
        raise NoValueFound(empty=False)
    return found[-1]


_WORKER: Optional[Any] = None
_WORKER_LOCK = threading.Lock()


def _in_own_thread(function: Callable[..., Any], *args: Any) -> Any:
    """Run ``function`` on one long-lived worker thread (hypothesis sets each new thread up with a
    full garbage collection, ~0.3 s: a thread per call would be slow)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None:
            import concurrent.futures

            _WORKER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="workbench-synthetic")
    return _WORKER.submit(function, *args).result()
