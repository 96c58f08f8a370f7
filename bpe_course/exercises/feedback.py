"""The one feedback type every chapter's checkers return.

>>> correct("all 3 cases agree.")
✅ Correct: all 3 cases agree.
>>> print(wrong("f(2) should be 4, got 6.", "twice, not thrice."))
❌ Not yet. f(2) should be 4, got 6.
Hint: twice, not thrice.
>>> bool(wrong("no.", "")), placeholder(...).ok
(False, False)

An exercise cell still holding its starter code (the course's cell, run as shipped: after Run All,
every exercise a learner has not touched yet) is not a wrong answer: its feedback opens with
"✏️ Your turn" instead of "❌ Not yet", and says the same about the starter (:func:`running_starter`).

A checker answers every input, whatever its type: :func:`expect` turns an argument of the wrong
type into feedback that names the type it wanted, and :func:`returned` does the same for what a
learner's function gives back (:func:`run_cases` uses both).

>>> print(expect(3.5, INT))
❌ Not yet. 3.5 is not an int (it is a float).
Hint: for example 3
>>> print(expect(None, STRINGS))
❌ Not yet. no answer yet -- replace the placeholder with your answer (a list of strings) and run the cell again.
Hint: for example ["l", "ow"]
>>> expect(["a", "b"], STRINGS) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast


@dataclass(frozen=True, repr=False)
class Feedback:
    """A checker's verdict: ``ok``, the ``message`` a learner reads (also the repr) and the ``hint`` in it."""

    ok: bool
    message: str
    hint: str = ""

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


def correct(message: str) -> Feedback:
    return Feedback(True, f"✅ Correct: {message}")


NOT_YET = "❌ Not yet."
YOUR_TURN = "✏️ Your turn: the starter code in this cell is not the answer yet:"


def wrong(message: str, hint: str = "") -> Feedback:
    head = YOUR_TURN if running_starter() else NOT_YET
    return Feedback(False, f"{head} {message}" + (f"\nHint: {hint}" if hint else ""), hint)


def running_starter() -> bool:
    """Is the cell running now (in IPython or Jupyter) one of the course's own cells, exactly as shipped?

    An exercise's checker runs in the cell that holds the learner's answer; run as shipped, that cell
    holds the starter. Outside IPython (a script, the tests) nothing is a starter.

    >>> running_starter()
    False
    """
    source = _running_cell()
    return source is not None and _fingerprint(source) in _course_cells()


def _running_cell() -> str | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    # subtle: while a cell runs, IPython's display hook holds its ExecutionResult, whose info has the cell's
    # text: also when the cell is not kept in the history (nbval runs cells with store_history=False)
    running = getattr(getattr(shell, "displayhook", None), "exec_result", None)
    source = getattr(getattr(running, "info", None), "raw_cell", None)
    return source if isinstance(source, str) else None


def _fingerprint(source: str) -> str:
    """A cell's code, compared without its line endings' style or the blank lines around it."""
    return "\n".join(line.rstrip() for line in source.replace("\r\n", "\n").strip().split("\n"))


@lru_cache(maxsize=1)
def _course_cells() -> frozenset[str]:
    """The code cells of every stored chapter (read once per kernel)."""
    import json

    from ..resources import notebooks_dir
    cells = set()
    for path in sorted(notebooks_dir().glob("*.ipynb")):
        try:
            notebook = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        cells |= {_fingerprint("".join(cell["source"])) for cell in notebook.get("cells", [])
                  if cell.get("cell_type") == "code"}
    return frozenset(cells)


def placeholder(answer: object) -> Feedback | None:
    """Feedback for an untouched starter answer (``None`` or ``...``), else None."""
    if answer is None or answer is Ellipsis:
        return wrong("no answer yet -- replace the placeholder with your answer and run the cell again.")
    return None


# ---------------------------------------------------------------- what type an answer must have


@dataclass(frozen=True)
class Kind:
    """A type a checker's argument (or a learner's function's result) must have: ``name`` as a
    learner reads it ("a list of strings"), ``accepts`` to test a value, an ``example`` for the
    hint (or a whole ``hint`` instead)."""

    name: str
    accepts: Callable[[Any], bool]
    example: str
    hint: str = ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _items(value: Any, test: Callable[[Any], bool], containers: tuple[type, ...] = (list, tuple)) -> bool:
    """Is ``value`` a list or tuple whose every item passes ``test``?

    subtle: only real lists and tuples; a generator would be used up, and an endless one would hang.
    """
    # cast: isinstance with a tuple of types held in a variable narrows to object, not to list | tuple
    return isinstance(value, containers) and all(test(item) for item in cast(Iterable[Any], value))


def _pair_of(types: type | tuple[type, ...]) -> Callable[[Any], bool]:
    return lambda value: _items(value, lambda item: isinstance(item, types)) and len(value) == 2


def _mapping(keys: Callable[[Any], bool], values: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, Mapping) and all(keys(k) and values(v) for k, v in value.items())


_str_pair = _pair_of(str)
_bytes_pair = _pair_of((bytes, bytearray))

INT = Kind("an int", _is_int, "3")
BYTE = Kind("an int from 0 to 255", lambda v: _is_int(v) and 0 <= v <= 255, "0x20")
NUMBER = Kind("a number", _is_number, "0.25")
STR = Kind("a string", lambda v: isinstance(v, str), '"low"')
BYTES = Kind("bytes", lambda v: isinstance(v, (bytes, bytearray)), 'b"\\xc3\\xa9"')
DICT = Kind("a dict", lambda v: isinstance(v, Mapping), "{10: 1.9, 30: 1.6}")
FUNCTION = Kind("a function", callable, "len", "pass the function itself: its name, without parentheses after it")
STRINGS = Kind("a list of strings", lambda v: _items(v, lambda s: isinstance(s, str)), '["l", "ow"]')
STR_PAIR = Kind("a pair of strings", _str_pair, '("h", "u")')
STR_PAIRS = Kind("a list of pairs of strings", lambda v: _items(v, _str_pair), '[("a", "b"), ("ab", "c")]')
BYTES_PAIR = Kind("a pair of bytes", _bytes_pair, '(b" ", b"t")')
BYTES_PAIRS = Kind("a list of pairs of bytes", lambda v: _items(v, _bytes_pair), '[(b"a", b"b"), (b"ab", b"c")]')
IDS = Kind("a list of ids", lambda v: _items(v, _is_int), "[464, 3797]")
ID_ROWS = Kind("a list of lists of ids", lambda v: _items(v, lambda row: _items(row, _is_int)), "[[1, 7, 2], [1, 2, 0]]")
PAIR_COUNTS = Kind("a dict mapping pairs to counts", _mapping(lambda k: _items(k, lambda _: True, (tuple,))
                                                             and len(k) == 2, _is_number), '{("l", "o"): 7}')
PAIR_CHANGES = Kind("a dict mapping pairs to count changes", _mapping(lambda k: True, _is_int),
                    '{(b"l", b"o"): -1, (b"l", b"ow"): 1}')


def type_name(value: Any) -> str:
    """``value``'s type, and its items' types for a list, tuple or set.

    >>> type_name(3.5), type_name([1, "a", 2]), type_name(()), type_name(None)
    ('float', 'list of int and str', 'tuple', 'NoneType')
    """
    name = type(value).__name__
    if isinstance(value, (list, tuple, set, frozenset)) and value:
        inner = sorted({type(item).__name__ for item in list(value)[:100]})
        return f"{name} of {' and '.join(inner)}"
    return name


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiouAEIOU" else "a ") + noun


def expect(value: Any, kind: Kind, name: str | None = None, hint: str | None = None) -> Feedback | None:
    """None when ``value`` is of ``kind``; else the feedback naming the type wanted and the one given.

    ``name`` is the argument's name, for checkers that take more than the learner's answer;
    without it, ``None`` and ``...`` are an untouched placeholder.

    >>> print(expect([object], STR_PAIRS, hint="list the merges in order"))
    ❌ Not yet. [<class 'object'>] is not a list of pairs of strings (it is a list of type).
    Hint: list the merges in order
    >>> expect(True, INT, "merges").message
    '❌ Not yet. merges=True is not an int (it is a bool).\\nHint: for example merges=3'
    """
    if kind.accepts(value):
        return None
    if hint is None:
        hint = kind.hint or f"for example {'' if name is None else name + '='}{kind.example}"
    if name is None and (value is None or value is Ellipsis):
        return wrong(f"no answer yet -- replace the placeholder with your answer ({kind.name}) and run the cell "
                     "again.", hint)
    shown = short(value, 60) if name is None else f"{name}={short(value, 60)}"
    it_is = "None" if value is None else _a(type_name(value))
    return wrong(f"{shown} is not {kind.name} (it is {it_is}).", hint)


def expect_all(*checks: tuple[Any, Kind, str | None]) -> Feedback | None:
    """The first of several :func:`expect` checks (value, kind, name) that fails, or None."""
    for value, kind, name in checks:
        if (problem := expect(value, kind, name)) is not None:
            return problem
    return None


def returned(got: Any, kind: Kind, call: str, hint: str = "") -> Feedback | None:
    """None when a learner's function returned something of ``kind``; else feedback saying what it should return.

    >>> print(returned("0.5", NUMBER, "oov_rate(['a'], ['b'])"))
    ❌ Not yet. oov_rate(['a'], ['b']) returned str, not a number: '0.5'.
    Hint: return a number, e.g. 0.25
    """
    if kind.accepts(got):
        return None
    shown = "" if got is None else f": {short(got, 60)}"
    return wrong(f"{call} returned {type_name(got)}, not {kind.name}{shown}.",
                 hint or f"return {kind.name}, e.g. {kind.example}")


def run_cases(fn: Callable, cases: Sequence[tuple], reference: Callable, *, name: str,
              same: Callable[[Any, Any], bool] = lambda a, b: a == b,
              diagnose: Callable[[tuple, Any, Any], str] | None = None, hint: str = "",
              returns: Kind | None = None) -> Feedback:
    """Call ``fn(*case)`` and ``reference(*case)`` on every case; report the first disagreement.

    ``diagnose(case, expected, got)`` may return a specific hint for a recognisable mistake;
    ``returns`` is the :class:`Kind` a result must have (checked before ``same``).

    >>> run_cases(lambda x: x * 2, [(1,), (2,)], lambda x: x + x, name="double")
    ✅ Correct: your double agrees with the reference on all 2 cases.
    >>> run_cases(lambda x: str(x), [(1,)], lambda x: x, name="double", returns=INT).message
    "❌ Not yet. double(1) returned str, not an int: '1'.\\nHint: return an int, e.g. 3"
    """
    if fn is None or fn is Ellipsis:
        return expect(fn, FUNCTION)
    if not callable(fn):
        return wrong(f"expected a function, got {type(fn).__name__}.", f"pass the function itself: check({name})")
    for case in cases:
        expected = reference(*case)
        shown = ", ".join(short(arg) for arg in case)
        try:
            got = fn(*case)
        except Exception as exc:  # the learner's code may fail in any way; report it, never raise
            return wrong(f"{name}({shown}) raised {type(exc).__name__}: {exc}", hint)
        specific = ""
        try:
            if returns is None or returns.accepts(got):
                if same(expected, got):
                    continue
            specific = diagnose(case, expected, got) if diagnose else ""
        except Exception:  # noqa: BLE001 -- subtle: an odd result (say, a list of objects) may break a comparison
            specific = ""
        if returns is not None and (problem := returned(got, returns, f"{name}({shown})", specific or hint)) is not None:
            return problem
        return wrong(f"{name}({shown}) should be {short(expected)}, got {short(got)}.", specific or hint)
    return correct(f"your {name} agrees with the reference on all {len(cases)} cases.")


def shown(value: Any) -> str:
    """``repr(value)`` for a learner to read, never an error, whatever ``value`` is.

    subtle: an int of more than 4,300 digits has no repr (Python's limit on int-to-text conversion
    raises ValueError), yet a learner can type one; it is shown by its size instead.

    >>> shown(12), shown(-10**4999), shown([10**5000])
    ('12', 'a negative integer of 5,000 digits', '[<an integer of 5,001 digits>]')
    """
    try:
        return repr(value)
    except ValueError:
        if _is_int(value):
            return _big_int(value)
        text = repr(_shrink_ints(value))
    except Exception:  # noqa: BLE001 -- a learner's object whose __repr__ fails
        return f"<{type(value).__name__} object>"
    return text


class _Shown:
    """Stands for a value inside a container: its repr is what :func:`shown` says about the value."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"<{self.text}>"


def _big_int(value: int) -> str:
    return f"a{' negative' if value < 0 else 'n'} integer of {_digits(abs(value)):,} digits"


def _digits(n: int) -> int:
    """Decimal digits of ``n`` > 0, without turning it into text."""
    k = max(1, int(n.bit_length() * 0.30102999566398114))  # log10(2)
    while 10**k <= n:
        k += 1
    while k > 1 and 10 ** (k - 1) > n:
        k -= 1
    return k


def _shrink_ints(value: Any, depth: int = 0) -> Any:
    """``value`` with every int too big for a repr replaced by its description (lists, tuples, sets, dicts)."""
    if _is_int(value):
        try:
            repr(value)
            return value
        except ValueError:
            return _Shown(_big_int(value))
    if depth > 20:
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_shrink_ints(item, depth + 1) for item in value]
        return items if isinstance(value, list) else tuple(items) if isinstance(value, tuple) else set(items)
    if isinstance(value, Mapping):
        return {_shrink_ints(k, depth + 1) if _is_int(k) else k: _shrink_ints(v, depth + 1) for k, v in value.items()}
    return value


def count(value: Any) -> str:
    """An int a learner gave, with thousands separators (``f"{n:,}"``), or what :func:`shown` says of it.

    >>> count(12345), count(10**5000)
    ('12,345', 'an integer of 5,001 digits')
    """
    try:
        return f"{value:,}"
    except (ValueError, TypeError):
        return shown(value)


def far_off(value: Any) -> bool:
    """Is ``value`` a number too large to compare with a float (an int past float's range)?

    >>> far_off(3), far_off(0.5), far_off(10**400)
    (False, False, True)
    """
    try:
        float(value)
    except OverflowError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def short(value: Any, limit: int = 120) -> str:
    """:func:`shown`, cut to ``limit`` characters."""
    text = shown(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
