"""Every public function declares its parameters, and a bad value of each one is refused.

The functions of the facades below are decorated with ``skrank._validation.validate_params``
(or listed in ``EXEMPT`` with the reason). For every declared parameter the test gives a value
the declaration refuses and expects :class:`skrank.InvalidParameterError` in the one format,
naming the function by its ``__qualname__`` and the parameter. The decorator checks before
the body runs, so the other arguments are placeholders.

Below: the decorator itself (the relabelling of nested calls, its isolation between threads,
``relabel``) and the merged validators.
"""

from __future__ import annotations

import inspect
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import skrank
import skrank.fairness
import skrank.io
import skrank.online
import skrank.recsys
import skrank.scorers
import skrank.segments
import skrank.stats
import skrank.survival
import skrank.uplift
from skrank._validation import (
    BOOL,
    SEED,
    Described,
    InstanceOf,
    Interval,
    Options,
    Satisfies,
    as_generator,
    check_int,
    check_rng,
    public_name,
    relabel,
    validate_params,
)
from skrank.exceptions import InvalidParameterError

FACADES = [skrank, skrank.stats, skrank.scorers, skrank.survival, skrank.uplift, skrank.segments,
           skrank.fairness, skrank.online, skrank.io, skrank.recsys]

# public functions without declared parameters of their own, and why
EXEMPT: dict[str, str] = {}


def _public_functions():
    seen = {}
    for facade in FACADES:
        for name in facade.__all__:
            obj = getattr(facade, name)
            if inspect.isfunction(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return sorted(seen.items())


FUNCTIONS = _public_functions()

# candidates for "a clearly invalid value": the first one a declaration refuses is used
_CANDIDATES = ("not-a-choice", -1, 0, 1.5, -0.5, 2.0, float("nan"), object(), (2.0, 1.0), 3,
               None)


def _invalid(rule):
    for value in _CANDIDATES:
        if not rule.accepts(value):
            return value
    raise AssertionError(f"no invalid candidate for {rule!r}")  # pragma: no cover


_VALID = (10, 0.5, None, True, (0.3, 0.6), "harrell_c", "qini_auc")


def _valid(rule):
    if isinstance(rule, Options):
        return rule.choices[0]
    for value in _VALID:
        if rule.accepts(value):
            return value
    raise AssertionError(f"no valid candidate for {rule!r}")  # pragma: no cover


def _placeholders(func, skip):
    """Values for every required parameter but ``skip``: a valid one where it is declared,
    None (unchecked) elsewhere. Returns (positional args, keyword args)."""
    args, kwargs = [], {}
    declared = func.__skrank_params__
    for name, p in inspect.signature(func).parameters.items():
        if name == skip or p.default is not p.empty or p.kind in (p.VAR_POSITIONAL,
                                                                    p.VAR_KEYWORD):
            continue
        value = _valid(declared[name]) if name in declared else None
        if p.kind == p.KEYWORD_ONLY:
            kwargs[name] = value
        else:
            args.append(value)
    return args, kwargs


def test_the_facades_have_public_functions():
    assert len(FUNCTIONS) > 40


@pytest.mark.parametrize("name, func", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_every_public_function_is_declared(name, func):
    if func.__name__ in EXEMPT:
        pytest.skip(EXEMPT[func.__name__])
    assert hasattr(func, "__skrank_params__"), (
        f"{name} is public but not decorated with skrank._validation.validate_params: "
        "declare its parameters (or add it to EXEMPT with the reason)"
    )


_CASES = [
    (f"{name}:{param}", func, param, rule)
    for name, func in FUNCTIONS
    for param, rule in getattr(func, "__skrank_params__", {}).items()
]


def test_there_are_declared_parameters_to_check():
    assert len(_CASES) > 60


@pytest.mark.parametrize("case, func, param, rule", _CASES, ids=[c[0] for c in _CASES])
def test_a_bad_value_of_each_declared_parameter_is_refused(case, func, param, rule):
    bad = _invalid(rule)
    args, kwargs = _placeholders(func, skip=param)
    p = inspect.signature(func).parameters[param]
    if p.kind == p.POSITIONAL_ONLY:  # pragma: no cover - none today
        pytest.skip("positional-only")
    kwargs[param] = bad
    with pytest.raises(InvalidParameterError) as info:
        func(*args, **kwargs)
    message = str(info.value)
    assert message.startswith(f"The {param!r} parameter of {func.__qualname__} must be "), \
        message
    assert message.endswith(f"Got {bad!r} instead."), message


@pytest.mark.parametrize("case, func, param, rule", _CASES, ids=[c[0] for c in _CASES])
def test_each_default_satisfies_its_declaration(case, func, param, rule):
    default = inspect.signature(func).parameters[param].default
    if default is inspect.Parameter.empty:
        return
    assert rule.accepts(default), f"{case}: the default {default!r} is refused by {rule!r}"


# -- the decorator ----------------------------------------------------------------------------


@validate_params({"k": [Interval(int, 1), None], "how": Options(("a", "b"))})
def _inner(k=None, how="a"):
    if k == 99:
        raise InvalidParameterError(f"The 'k' parameter of {public_name()} is 99.")
    return public_name()


@validate_params({"n": Interval(int, 0)})
def _outer(n=0, **kwargs):
    return _inner(**kwargs)


def test_the_message_names_the_function_and_the_parameter():
    with pytest.raises(InvalidParameterError,
                       match=r"^The 'k' parameter of _inner must be an int >= 1 or None\. "
                             r"Got 0 instead\.$"):
        _inner(k=0)
    with pytest.raises(InvalidParameterError, match=r"'how' parameter of _inner must be one "
                                                    r"of 'a', 'b'\. Got 'c' instead"):
        _inner(3, "c")  # positional values are checked too


def test_a_nested_call_is_named_after_the_outer_function():
    assert _inner() == "_inner"
    assert _outer() == "_outer"
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of _outer must be"):
        _outer(k=0)
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of _outer is 99"):
        _outer(k=99)
    assert public_name() is None and public_name("default") == "default"


def test_relabel_names_a_block():
    with relabel("the scorer 'ndcg@10'"):
        assert _inner() == "the scorer 'ndcg@10'"
        with pytest.raises(InvalidParameterError, match=r"of the scorer 'ndcg@10' must be"):
            _inner(k=-1)
    assert public_name() is None


def test_the_name_is_private_to_each_thread():
    barrier = threading.Barrier(4)

    @validate_params({})
    def slow(tag):
        barrier.wait(timeout=10)  # all four calls are running at once
        return public_name()

    def call(i):
        with relabel(f"caller {i}"):
            return slow(i)

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(call, range(4))) == [f"caller {i}" for i in range(4)]


def test_an_unknown_parameter_is_a_programming_error():
    with pytest.raises(TypeError, match="has no parameters"):
        validate_params({"nope": None})(lambda k=1: k)


def test_the_public_signatures_have_no_private_caller():
    for name, func in FUNCTIONS:
        params = inspect.signature(func).parameters
        assert not any(p.startswith("_") for p in params), name


def test_a_metric_function_names_itself_in_errors_from_evaluate():
    with pytest.raises(InvalidParameterError, match=r"'n_jobs' parameter of precision must"):
        skrank.precision([1, 0], [1, 2], [1, 1], n_jobs=0)
    with pytest.raises(InvalidParameterError, match=r"'n_jobs' parameter of evaluate must"):
        skrank.evaluate([1, 0], [1, 2], [1, 1], n_jobs=0)


def test_constraints():
    real = Interval(float, 0, 1, closed="neither")
    assert real.text == "a finite real number in (0, 1)"
    assert [real.accepts(v) for v in (0, 0.5, 1, np.float32(0.2), True, np.nan)] == [
        False, True, False, True, False, False]
    assert Interval(int, 2).text == "an int >= 2"
    assert Interval(int, None, 5, closed="left").text == "an int < 5"
    assert [Interval(int, 1).accepts(v) for v in (1, np.int64(3), 1.0, True, 0)] == [
        True, True, False, False, False]
    assert InstanceOf(str, "a str").accepts("x") and not InstanceOf(str, "a str").accepts(1)
    assert Satisfies(callable, "a callable").accepts(len)
    either = Described("a positive int or None", Interval(int, 1), None)
    assert either.accepts(None) and either.accepts(2) and not either.accepts(0)
    assert [SEED.accepts(v) for v in (None, 0, np.random.default_rng(0), -1, 1.5, True)] == [
        True, True, True, False, False, False]
    assert [BOOL.accepts(v) for v in (True, np.True_, 1, "yes")] == [True, True, False, False]


def test_one_rng_check_and_one_int_check():
    gen = np.random.default_rng(0)
    assert check_rng(gen) is gen and check_rng(3) == 3 and check_rng(None) is None
    with pytest.raises(InvalidParameterError, match=r"'rng' parameter of f must be None, an "
                                                    r"int >= 0 or a numpy\.random\.Generator"):
        check_rng(-1, "f")
    assert as_generator(gen) is gen
    assert as_generator(7).integers(10**9) == np.random.default_rng(7).integers(10**9)
    with pytest.raises(InvalidParameterError, match=r"'n' parameter of f must be an int >= 2"):
        check_int("n", 1, min_value=2, caller="f")
    # skrank.online checks through these too, and has no validators of its own
    import skrank._validation
    import skrank.online._utils

    for name in ("check_rng", "check_positive_int", "check_confidence_level"):
        assert not hasattr(skrank.online._utils, name), name
    assert skrank.online._utils.input_error is skrank._validation.input_error


def test_one_pvalue_format_for_results_and_segment_tables():
    from skrank.stats._results import format_p

    assert [format_p(p) for p in (None, float("nan"), 0.0, 3.21e-7, 1e-4, 0.04567, 1.0)] == [
        "n/a", "n/a", "0.0000", "3.2e-07", "0.0001", "0.0457", "1.0000"]
    # every module that prints p-values prints them with it, and has no formatter of its own
    import importlib

    for name in ("skrank.segments._table", "skrank.reports._render", "skrank.reports._html",
                 "skrank.online._results"):
        module = importlib.import_module(name)
        assert module.format_p is format_p, name
        assert not hasattr(module, "_fmt_p"), name


def test_input_error_and_as_column():
    from skrank._validation import as_column, input_error
    from skrank.exceptions import InputError

    assert str(input_error("x", "finite", "nan at row 3", "f")) == (
        "The 'x' parameter of f must be finite. Got nan at row 3 instead.")
    assert as_column("x", [[1], [2]]).tolist() == [1, 2]
    with pytest.raises(InputError, match=r"'x' parameter of f must be a 1-D array\. Got an "
                                         r"array of shape \(2, 2\) instead"):
        as_column("x", [[1, 2], [3, 4]], "f")
    with pytest.raises(InputError, match=r"must be numeric times\. Got an array of dtype <U1"):
        as_column("x", ["a"], "f", kinds="iuf", what="numeric times")
    assert as_column("x", ["a"], kinds=None).tolist() == ["a"]
