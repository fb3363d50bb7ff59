"""Tests of theorems/validate/test_call.py."""

from __future__ import annotations

from tests.support.instances import files


def test_validate_user_file_named_numpy_does_not_shadow_numpy(files):
    import sys

    from theorems.validate.call import load_callable

    np_before = sys.modules["numpy"]
    fn = load_callable(f"{files['numpy_py']}:fn")
    assert callable(fn) and sys.modules["numpy"] is np_before


# -- call_impl: what reaches the implementation, and what comes back ---------------------------------------

import dataclasses  # noqa: E402
import functools  # noqa: E402
import signal  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import reference  # noqa: E402
from tests.support.validate import E1E2, _hangs  # noqa: E402
from theorems.instances.instance import Instance  # noqa: E402
from theorems.validate.call import RUN_FLAGS, _accepts, _name_of, _time_limit, call_impl, edge_flags, load_callable  # noqa: E402
from theorems.validate.case import make_case  # noqa: E402

SQUARE = Instance("square", np.array([[1.0, 0.5], [0.5, 1.0], [1.0, -0.25]]), np.array([1, 1, 1]))


def _recorder(seen, answer=None):
    def impl(*args, **kw):
        seen.append((args, kw))
        return answer if answer is not None else {"status": "max_iter", "iterations": 0}

    return impl


@pytest.fixture(scope="module")
def cases():
    return {a: make_case(a, SQUARE) for a in ("snkp", "pdm", "pdm_succ", "snkpvn", "perceptron")}


def test_a_callable_with_kwargs_gets_every_keyword_the_reference_takes(cases):
    seen = []
    ans, notes = call_impl(_recorder(seen), cases["snkp"])
    (args, kw), = seen
    assert notes == [] and len(args) == 1 and np.array_equal(args[0], cases["snkp"].G)
    assert kw == {"max_iter": cases["snkp"].max_iter, "trace": True}
    assert (ans["max_iter_passed"], ans["max_epochs_passed"], ans["rule_passed"]) == (True, False, None)
    seen.clear()
    call_impl(_recorder(seen), cases["pdm"])
    (args, kw), = seen
    c = cases["pdm"]
    assert np.array_equal(args[0], c.X) and np.array_equal(args[1], c.y) and args[2] == c.args["epsilon"]
    assert kw["max_iter"] == c.max_iter and kw["max_epochs"] == 10**9 and kw["trace"] is True and kw["rho"] == 1.0
    seen.clear()
    call_impl(_recorder(seen), cases["snkp"], want_trace=False)
    assert "trace" not in seen[0][1]


def test_a_callable_without_keywords_gets_the_data_and_positional_arguments_only(cases):
    seen = []

    def bare(X, y, epsilon):
        seen.append((X, y, epsilon))
        return {"status": "max_iter", "iterations": 0}

    ans, _ = call_impl(bare, cases["pdm"])
    assert len(seen) == 1 and seen[0][2] == cases["pdm"].args["epsilon"]
    assert (ans["max_iter_passed"], ans["max_epochs_passed"]) == (False, False)

    def with_budget(G, max_iter):
        return {"status": "max_iter", "iterations": max_iter}

    ans, _ = call_impl(with_budget, cases["snkp"])
    assert ans["iterations"] == cases["snkp"].max_iter and ans["max_iter_passed"] is True


def test_the_callable_gets_copies_it_may_modify(cases):
    c = cases["snkpvn"]
    G0, q0 = c.G.copy(), c.args["q"].copy()

    def vandal(G, q, delta, **kw):
        G[:] = 0.0
        q[:] = 0.0
        return {"status": "max_iter", "iterations": 0}

    call_impl(vandal, c)
    assert np.array_equal(c.G, G0) and np.array_equal(c.args["q"], q0)


def test_pdm_succ_eta_by_keyword_positionally_or_not_at_all(cases):
    c = cases["pdm_succ"]
    eta = c.args["eta"]
    got = {}

    def by_kw(X, y, epsilon, *, eta=8):
        got["kw"] = eta
        return {"status": "max_iter", "iterations": 0}

    def by_pos(X, y, epsilon, e):
        got["pos"] = e
        return {"status": "max_iter", "iterations": 0}

    def without(X, y, epsilon):
        got["none"] = True
        return {"status": "max_iter", "iterations": 0}

    for f in (by_kw, by_pos, without):
        ans, _ = call_impl(f, c)
        assert "error" not in ans, ans
    assert got == {"kw": eta, "pos": eta, "none": True}


def test_a_case_needing_an_option_the_callable_lacks_is_skipped_with_the_reason(cases):
    def plain(X, y, epsilon, max_iter=100):
        return {"status": "max_iter", "iterations": 0}

    c = cases["pdm"]
    ext = dataclasses.replace(c, args={**c.args, "Delta": 1.0})
    assert call_impl(plain, ext) == ({"skip": "the callable takes no 'Delta' (extended space)"}, [])
    assert "skip" not in call_impl(plain, dataclasses.replace(c, args={**c.args, "Delta": None}))[0]
    rho2 = dataclasses.replace(c, args={**c.args, "rho": 2.0})
    ans, _ = call_impl(plain, rho2)
    assert ans["skip"].startswith("the callable takes no 'rho' (this case asks for rho=2.0")
    assert "skip" not in call_impl(plain, c)[0]  # rho = 1, the default: nothing to pass
    p = cases["perceptron"]
    ruled = dataclasses.replace(p, args={**p.args, "rule": "most_violated"})

    def no_rule(X, y, max_iter=10):
        return {"status": "max_iter", "iterations": 0}

    assert call_impl(no_rule, ruled)[0] == {"skip": "the callable takes no 'rule' (this case asks for rule='most_violated')"}
    assert "skip" not in call_impl(no_rule, p)[0]  # the cyclic rule is the default
    seen = []
    ans, _ = call_impl(_recorder(seen), ruled)
    assert seen[0][1]["rule"] == "most_violated" and ans["rule_passed"] == "most_violated"


def test_a_csr_case_hands_over_a_csr_matrix(cases):
    c = dataclasses.replace(cases["pdm"], flags=cases["pdm"].flags + ("csr",))
    seen = []
    call_impl(_recorder(seen), c)
    X = seen[0][0][0]
    assert sp.issparse(X) and X.format == "csr" and np.array_equal(X.toarray(), c.X)


def test_a_crash_is_an_error_naming_the_exception_and_where_and_a_refusal_only_on_edge_cases(cases):
    def crash(G, **kw):
        raise ZeroDivisionError("boom")

    def refuse(G, **kw):
        raise ValueError("G has a zero row")

    c = dataclasses.replace(cases["snkp"], flags=())
    ans, _ = call_impl(crash, c)
    assert ans == {"error": f"ZeroDivisionError: boom (at test_call.py:{crash.__code__.co_firstlineno + 1})"}
    assert call_impl(refuse, c)[0]["error"].startswith("ValueError: G has a zero row (at test_call.py:")
    edge = dataclasses.replace(c, flags=("duplicates",))
    assert call_impl(refuse, edge)[0]["refused"].startswith("ValueError: G has a zero row")
    assert "error" in call_impl(crash, edge)[0]  # a crash is never a refusal
    run_only = dataclasses.replace(c, flags=("budget", "deep"))
    assert "error" in call_impl(refuse, run_only)[0]  # run flags are not input classes

    def no_sparse(X, y, epsilon, **kw):
        raise TypeError("sparse matrices are not supported")

    p = dataclasses.replace(cases["pdm"], flags=())
    assert "error" in call_impl(no_sparse, p)[0]
    assert "refused" in call_impl(no_sparse, dataclasses.replace(p, flags=("csr",)))[0]


def test_edge_flags_drop_the_run_flags():
    c = make_case("snkp", SQUARE)
    assert edge_flags(dataclasses.replace(c, flags=("n1", "budget", "duplicates") + RUN_FLAGS)) == ("n1", "duplicates")
    assert edge_flags(dataclasses.replace(c, flags=())) == ()


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="SIGALRM time limits need setitimer")
def test_an_implementation_that_does_not_stop_is_timed_out(cases):
    ans, _ = call_impl(_hangs, cases["snkp"], timeout=0.2)
    assert ans["timeout"] is True and ans["error"] == (
        f"no answer within 0.2 s (non-termination? it must stop at max_iter={cases['snkp'].max_iter})")
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # the alarm is cleared
    with _time_limit(None):  # no limit: a no-op
        pass
    handler = signal.getsignal(signal.SIGALRM)
    with _time_limit(5.0):
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_accepts_reads_the_signature():
    def f(G, max_iter=1, *, trace=False):
        pass

    def g(a, b, /, c, *args, **kw):
        pass

    assert _accepts(f) == ({"G", "max_iter", "trace"}, False, 2)
    assert _accepts(g) == ({"c"}, True, 99)
    assert _accepts(lambda x, y: 0) == ({"x", "y"}, False, 2)
    assert _accepts(max) == (None, True, 99)  # no signature to read: anything may be passed


def test_names_of_implementations():
    assert _name_of(reference.snkp) == "reference.algorithms:snkp"
    part = functools.partial(reference.pdm, active_sets=True)
    assert _name_of(part) == "reference.algorithms:pdm(active_sets=True)"
    assert _name_of(functools.partial(reference.pdm)) == "reference.algorithms:pdm"

    class Impl:
        def __call__(self, G):
            return None

    assert _name_of(Impl()).endswith(":Impl")


def test_load_callable_refuses_with_the_reason(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"expected MODULE:CALLABLE, got 'reference.snkp'"):
        load_callable("reference.snkp")
    with pytest.raises(ValueError, match=r"does not exist"):
        load_callable(f"{tmp_path}/absent.py:f")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('no import for you')\n")
    with pytest.raises(ValueError, match=r"importing .*bad.py failed: RuntimeError: no import for you"):
        load_callable(f"{bad}:f")
    assert "_margins_validate_bad" not in __import__("sys").modules
    good = tmp_path / "good.py"
    good.write_text("class A:\n    class B:\n        @staticmethod\n        def f(G):\n            return G\nX = 3\n")
    assert load_callable(f"{good}:A.B.f")(5) == 5
    with pytest.raises(ValueError, match=r"has no attribute 'A.C'"):
        load_callable(f"{good}:A.C")
    with pytest.raises(ValueError, match=r"good.py:X is not callable"):
        load_callable(f"{good}:X")
    with pytest.raises(ValueError, match=r"cannot import 'no_such_module_here'"):
        load_callable("no_such_module_here:f")
    assert load_callable("reference:snkp") is reference.snkp
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(tmp_path))])
    (tmp_path / "here_mod.py").write_text("def f(G):\n    return 'here'\n")
    assert load_callable("here_mod:f")(0) == "here"  # a module in the working directory is found


# -- each keyword reaches a callable that names it, and only then -------------------------------------------


def _answer():
    return {"status": "max_iter", "iterations": 0}


def test_each_keyword_reaches_a_callable_that_names_it_without_kwargs(cases):
    got = {}

    def normalized(X, y, normalize=False, max_iter=1, trace=False):
        got["normalize"], got["max_iter"], got["trace"] = normalize, max_iter, trace
        return _answer()

    c = make_case("normalized_perceptron", SQUARE)
    assert "error" not in call_impl(normalized, c)[0]
    assert got == {"normalize": True, "max_iter": c.max_iter, "trace": True}

    def ruled(X, y, rule="cyclic"):
        got["rule"] = rule
        return _answer()

    p = dataclasses.replace(cases["perceptron"], args={"rule": "most_violated"})
    ans, _ = call_impl(ruled, p)
    assert got["rule"] == "most_violated" and ans["rule_passed"] == "most_violated" and ans["max_iter_passed"] is False

    def epochs(X, y, epsilon, max_epochs=None):
        got["max_epochs"] = max_epochs
        return _answer()

    ans, _ = call_impl(epochs, cases["pdm"])
    assert got["max_epochs"] == 10**9 and ans["max_epochs_passed"] is True and ans["max_iter_passed"] is False

    def eta_only(X, y, epsilon, *, eta=None):
        got["eta"] = eta
        return _answer()

    call_impl(eta_only, cases["pdm_succ"])
    assert got["eta"] == cases["pdm_succ"].args["eta"] == 8.0

    def traced(G, trace=None):
        got["trace_only"] = trace
        return _answer()

    call_impl(traced, cases["snkp"])
    assert got["trace_only"] is True
    call_impl(traced, cases["snkp"], want_trace=False)
    assert got["trace_only"] is None


def test_positional_arguments_arrive_as_given_and_copied(cases):
    got = {}

    def pdm(X, y, epsilon):
        got["epsilon"] = epsilon
        return _answer()

    call_impl(pdm, cases["pdm"])
    assert type(got["epsilon"]) is float and got["epsilon"] == cases["pdm"].args["epsilon"]

    def snkpvn(G, q, delta):
        got["q"], got["delta"] = q, delta
        return _answer()

    c = cases["snkpvn"]
    call_impl(snkpvn, c)
    assert got["q"] is not c.args["q"] and np.array_equal(got["q"], c.args["q"]) and got["q"].dtype == np.float64
    assert type(got["delta"]) is float and got["delta"] == c.args["delta"]


def test_a_csr_case_hands_over_the_labels_too(cases):
    c = dataclasses.replace(cases["pdm"], flags=("csr",))
    got = {}

    def pdm(X, y, epsilon):
        got["X"], got["y"] = X, y
        return _answer()

    assert "error" not in call_impl(pdm, c)[0]
    assert sp.issparse(got["X"]) and np.array_equal(got["y"], c.y)


def test_the_crash_is_located_where_it_was_raised():
    def helper():
        raise KeyError("deep")

    def impl(G, **kw):
        helper()

    c = dataclasses.replace(make_case("snkp", SQUARE), flags=())
    line = helper.__code__.co_firstlineno + 1
    assert call_impl(impl, c)[0] == {"error": f"KeyError: 'deep' (at test_call.py:{line})"}


def test_a_type_error_is_a_refusal_only_of_sparse_input():
    def no(G, **kw):
        raise TypeError("no")

    c = dataclasses.replace(make_case("snkp", SQUARE), flags=("duplicates",))
    assert "error" in call_impl(no, c)[0]  # an edge case, but a TypeError there is a crash


def test_names_of_callables_without_the_usual_attributes():
    def outer():
        def inner(G):
            return G

        return inner

    assert _name_of(outer()).endswith(":test_names_of_callables_without_the_usual_attributes.<locals>.outer.<locals>.inner")

    class Named:
        def __call__(self, G):
            return G

    n = Named()
    n.__name__ = "given_name"  # an instance has no __qualname__: its __name__ is used
    assert _name_of(n).endswith(":given_name")
    nameless = Named()
    nameless.__module__ = None
    assert _name_of(nameless) == "?:Named"

    class WithFunc:  # a .func without .keywords (not a functools.partial)
        func = staticmethod(reference.snkp)

        def __call__(self, G):
            return G

    assert _name_of(WithFunc()) == "reference.algorithms:snkp"
    two = functools.partial(reference.pdm, active_sets=True, seed=3)
    assert _name_of(two) == "reference.algorithms:pdm(active_sets=True, seed=3)"


def test_load_callable_finds_files_by_suffix_or_slash_and_keeps_dataclasses_working(tmp_path, monkeypatch):
    d = tmp_path / "a:b"
    d.mkdir()
    (d / "m.py").write_text("def f(G):\n    return 'colon'\n")
    assert load_callable(f"{d / 'm.py'}:f")(0) == "colon"  # the last ':' separates the callable
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel.py").write_text("def f(G):\n    return 'relative'\n")
    assert load_callable("rel.py:f")(0) == "relative"  # a .py name without a directory is a file
    (tmp_path / "script").write_text("def f(G):\n    return 1\n")
    with pytest.raises(ValueError, match=r"^\./script is not a Python source file$"):
        load_callable("./script:f")
    (tmp_path / "dc.py").write_text("from dataclasses import dataclass\n\n@dataclass\nclass R:\n    status: str\n\n"
                                    "def f(G):\n    return R('max_iter')\n")  # fmt: skip
    assert load_callable(f"{tmp_path / 'dc.py'}:f")(0).status == "max_iter"


def test_load_callable_puts_the_working_directory_first_on_the_path_once(tmp_path, monkeypatch):
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "wd_first.py").write_text("def f(G):\n    return 'wd'\n")
    assert load_callable("wd_first:f")(0) == "wd"
    assert sys.path[0] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1
    load_callable("wd_first:f")
    assert sys.path.count(str(tmp_path)) == 1  # not inserted again
    monkeypatch.setattr(sys, "path", [""] + [p for p in sys.path if p != str(tmp_path)])
    load_callable("wd_first:f")
    assert str(tmp_path) not in sys.path  # '' already stands for the working directory


def test_a_callable_without_a_module_is_named_by_its_type():
    class Opaque:
        def __getattribute__(self, name):
            if name == "__module__":
                raise AttributeError(name)
            return object.__getattribute__(self, name)

        def __call__(self, G):
            return G

    assert _name_of(Opaque()) == "?:Opaque"
