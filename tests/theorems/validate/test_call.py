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
