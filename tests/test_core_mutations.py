"""Precise tests of the core modules (arithmetic, result, data, gram, margin helpers).

Each test pins a behaviour a caller relies on -- a value known by construction, a boundary of a
documented tolerance, the argument an error message names and the fix it suggests -- so that a
change to the corresponding line of ``reference/`` is caught (mutation testing).
"""

from __future__ import annotations

import dataclasses
import math
import re

import mpmath
import numpy as np
import pytest

import reference as ref
from reference.arithmetic import Arithmetic, arithmetic, log_mean_exp, project_simplex, softmax
from reference.data import augment, check_data, check_gram, check_int, check_real, check_simplex, extend, reflect
from reference.gram import kernel_matrix
from reference.margin import lower_bound, margin, min_norm_point, upper_bound
from reference.result import (
    CERTIFICATE,
    MAX_ITER,
    SEPARATOR,
    Algorithm,
    Result,
    drive,
    simplex_tolerance,
    unit_roundoff,
    verify_certificate,
    verify_separator_gram,
    verify_separator_primal,
    with_info,
)

F64 = Arithmetic(None)
MP = Arithmetic(50)
EPS = float(np.finfo(np.float64).eps)  # 2^-52


def raises_ending(match_end: str):
    """pytest.raises(ValueError) whose message ENDS with the given literal text (the fix)."""
    return pytest.raises(ValueError, match=re.escape(match_end) + "$")


def raises_starting(match_start: str):
    """pytest.raises(ValueError) whose message STARTS with the given literal text (the argument)."""
    return pytest.raises(ValueError, match="^" + re.escape(match_start))


# -- arithmetic ----------------------------------------------------------------------------------


def test_default_arithmetic_is_float64():
    a = Arithmetic()
    assert a.dps is None and not a.is_mp and a.label == "float64"


def test_arithmetic_accepts_sixteen_digits_and_numpy_integers():
    assert arithmetic(16).dps == 16 and arithmetic(1000).dps == 1000
    a = arithmetic(np.int64(30))
    assert a.dps == 30 and type(a.dps) is int and a.label == "mpmath, 30 decimal digits"
    with raises_ending("; pass e.g. precision=50"):
        arithmetic(-1)


def test_mp_array_and_scalar_keep_mpf_inputs_exactly():
    """An mpf computed at higher precision is kept as is, not re-rounded to the working dps."""
    with mpmath.workdps(100):
        third = mpmath.mpf(1) / 3
    with MP.context():
        a = MP.array([third, 0.5])
        assert a[0] is third and a[1] == mpmath.mpf(0.5) and isinstance(a[1], mpmath.mpf)
        assert MP.scalar(third) is third
        assert isinstance(MP.scalar(2), mpmath.mpf) and MP.scalar(2) == 2
    assert type(F64.scalar(np.float32(0.5))) is float and F64.scalar(3) == 3.0


def test_mp_elementary_functions_keep_shape_and_take_scalars():
    with MP.context():
        M = MP.array([[1.0, 4.0], [9.0, 16.0]])
        for f in (MP.exp, MP.log, MP.sqrt):
            out = f(M)
            assert out.shape == (2, 2) and out.dtype == object
        assert [float(x) for x in MP.sqrt(M).ravel()] == [1.0, 2.0, 3.0, 4.0]
        assert abs(MP.log(M)[1, 1] - 4 * mpmath.log(2)) < mpmath.mpf(10) ** -48
        assert MP.exp(mpmath.mpf(1)) == mpmath.e
        assert abs(MP.log(mpmath.mpf(8)) - 3 * mpmath.log(2)) < mpmath.mpf(10) ** -48
        assert MP.sqrt(mpmath.mpf(2)) == mpmath.sqrt(2)
    assert F64.log(np.array([1.0, math.e])).tolist() == [0.0, 1.0]
    assert F64.exp(0.0) == 1.0


def test_f64_unit_and_zeros():
    assert F64.unit(3, 2).tolist() == [0.0, 0.0, 1.0]
    assert F64.zeros(2).dtype == np.float64 and F64.ones(2).tolist() == [1.0, 1.0]


def test_log_mean_exp_in_mpmath():
    with MP.context():
        v = MP.array([1.0, 3.0])
        got = log_mean_exp(v, MP.scalar(1), MP)
        expected = mpmath.log((mpmath.exp(-1) + mpmath.exp(-3)) / 2)
        assert abs(got - expected) < mpmath.mpf(10) ** -45


def test_softmax_in_mpmath():
    with MP.context():
        p = softmax(MP.array([0.0, mpmath.log(3)]), MP)
        assert abs(p[0] - mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -45
        assert abs(p[1] - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -45


def test_project_simplex_keeps_dtype_and_clips_below():
    p = project_simplex(np.array([0.9, 0.9, -3.0]), F64)  # tau = 0.4 -> (0.5, 0.5, 0)
    assert p.dtype == np.float64 and p.tolist() == pytest.approx([0.5, 0.5, 0.0], abs=1e-15)


# -- result: Result, drive, verifiers ----------------------------------------------------------------


def test_result_defaults():
    r = Result("toy", SEPARATOR, 0)
    assert r.alpha is None and r.w is None and r.p is None and r.trace is None
    assert r.precision == "float64" and r.message == "" and r.info == {} and r.engine == "textbook"
    assert r.converged and Result("toy", CERTIFICATE, 0).converged
    assert not Result("toy", MAX_ITER, 0).converged


def test_result_as_dict_converts_every_field():
    with MP.context():
        third = mpmath.mpf(1) / 3
        r = Result(
            "toy",
            CERTIFICATE,
            np.int64(7),
            alpha=np.array([[1.0, 2.0]]),
            w=MP.array([0.5]),
            p=np.array([0.25, 0.75]),
            precision=MP.label,
            message="done",
            info={"mu": third, "k": np.int64(3), "x": np.float64(0.5), "s": "txt", "n": None},
        )
    d = r.as_dict()
    assert d == {
        "algorithm": "toy",
        "status": "certificate",
        "iterations": 7,
        "alpha": [1.0, 2.0],
        "w": [0.5],
        "p": [0.25, 0.75],
        "precision": "mpmath, 50 decimal digits",
        "engine": "textbook",
        "message": "done",
        "info": {"mu": float(third), "k": 3, "x": 0.5, "s": "txt", "n": None},
    }
    assert type(d["iterations"]) is int and type(d["info"]["mu"]) is float and type(d["info"]["k"]) is int


def _counter_algorithm(stop_at, out, seen_dps=None, verify_reason=""):
    return Algorithm(
        name="counter",
        init=lambda pb: 0,
        step=lambda pb, s: (seen_dps.append(mpmath.mp.dps) if seen_dps is not None else None) or s + 1,
        exit=lambda pb, s: CERTIFICATE if s == stop_at else None,
        counter=lambda s: s,
        verify=lambda pb, s, c: verify_reason,
        output=out,
    )


def test_drive_passes_all_output_fields_and_runs_at_precision():
    seen = []
    alg = _counter_algorithm(2, lambda pb, s: {"w": np.array([1.0]), "p": np.array([0.5, 0.5])}, seen)
    before = mpmath.mp.dps
    r = drive(alg, None, MP, max_iter=5)
    assert seen == [50, 50] and mpmath.mp.dps == before
    assert r.status == CERTIFICATE and r.algorithm == "counter" and r.iterations == 2
    assert r.alpha is None and r.w.tolist() == [1.0] and r.p.tolist() == [0.5, 0.5]
    assert r.info == {} and r.precision == "mpmath, 50 decimal digits"
    assert r.message == "certificate verified in mpmath, 50 decimal digits"
    assert r.trace is None


def test_drive_messages_name_the_reason():
    out = lambda pb, s: {"info": {"k": s}}  # noqa: E731
    r = drive(_counter_algorithm(9, out), None, F64, max_iter=4, trace=True)
    assert r.status == MAX_ITER and r.message == "budget exhausted after 4 iterations"
    assert r.trace == (0, 1, 2, 3, 4) and r.info == {"k": 4}
    r = drive(_counter_algorithm(1, out, verify_reason="because"), None, F64, max_iter=4)
    # a claim that fails verification does not end the run: it goes on until the budget ends
    assert r.status == MAX_ITER and r.iterations == 4
    assert r.message == (
        "budget exhausted after 4 iterations; the last claim (certificate, iteration 1) was not verified: because"
    )
    # a claim at the initial state needs no step
    r = drive(_counter_algorithm(0, out), None, F64, max_iter=0, trace=True)
    assert r.status == CERTIFICATE and r.iterations == 0 and r.trace == (0,)


def test_simplex_tolerance_and_unit_roundoff():
    assert simplex_tolerance(3, F64) == 48 * EPS
    assert simplex_tolerance(0, F64) == 16 * EPS
    with MP.context():
        assert simplex_tolerance(2, MP) == 32 * mpmath.mpf(10) ** -50
        assert unit_roundoff(MP.array([1.0])) == mpmath.mpf(10) ** -50
    assert unit_roundoff(np.array([1.0])) == EPS


def test_separator_allowance_is_k_plus_16_units_of_roundoff():
    """For z = (1, -(1 - d)) and w = (1, 1) the computed margin is exactly d and the allowance is
    (k + 16) u sum_j |z_j||w_j| = 18 (2 - d) u, just under 36 u: d = 37 u passes, d = 35 u fails."""
    for d_units, ok in ((37, True), (35, False)):
        Z = np.array([[1.0, -(1.0 - d_units * EPS)]])
        assert (verify_separator_primal(Z, np.array([1.0, 1.0])) == "") is ok
    # in the Gram form, k is the number of columns as well
    G = np.array([[1.0, -(1.0 - 37 * EPS)], [-(1.0 - 37 * EPS), 1.0]])
    assert verify_separator_gram(G, np.array([1.0, 1.0])) == ""
    G = np.array([[1.0, -(1.0 - 35 * EPS)], [-(1.0 - 35 * EPS), 1.0]])
    assert verify_separator_gram(G, np.array([1.0, 1.0])).startswith("(G alpha)_0 = ")


def test_separator_messages_name_the_first_offending_index():
    G = np.array([[1.0, 0.0], [0.0, 1.0]])
    msg = verify_separator_gram(G, np.array([1.0, -1.0]))
    assert msg.startswith("(G alpha)_1 = -1.000e+00 is not > 0")
    msg = verify_separator_primal(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]), np.array([1.0, 0.0]))
    assert msg.startswith("y_1 <w, x_1> = 0.000e+00 is not > 0")


def test_verify_certificate_boundaries_and_messages():
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    # the sum tolerance is 16 n u = 32 u for n = 2
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 24 * EPS]), 1.0, F64) == ""
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 40 * EPS]), 1.0, F64).startswith("sum(p) = ")
    assert verify_certificate(Gi, np.array([0.5, 0.5 - 40 * EPS]), 1.0, F64).startswith("sum(p) = ")
    assert verify_certificate(Gi, np.array([0.0, 1.0]), 1.5, F64) == ""  # a zero entry is allowed
    assert verify_certificate(Gi, np.array([-0.0, 1.0]), 1.5, F64) == ""
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64) == "||p||_G = 1.000e+00 is not < 5.000e-01"
    assert verify_certificate(Gi, np.array([1.0, 0.0]), 0.5, F64, strict=False) == (
        "||p||_G = 1.000e+00 is not <= 5.000e-01"
    )
    with MP.context():
        p = MP.array([0.5, 0.5])
        p[1] += mpmath.mpf(10) ** -30  # far below float64 round-off, far above 10^-50
        assert verify_certificate(MP.array(Gi), p, 1.0, MP).startswith("sum(p) = ")


def test_with_info_replaces_fields():
    @dataclasses.dataclass(frozen=True)
    class S:
        k: int
        mu: float

    s = S(1, 0.5)
    t = with_info(s, mu=0.25)
    assert t == S(1, 0.25) and s == S(1, 0.5)


def test_verify_certificate_sum_tolerance_is_inclusive():
    Gi = np.array([[1.0, -1.0], [-1.0, 1.0]])
    assert verify_certificate(Gi, np.array([0.5, 0.5 + 32 * EPS]), 1.0, F64) == ""  # |sum - 1| == 16 n u
    assert verify_certificate(Gi, np.array([1.5, -0.5]), 1.0, F64) == "p has a negative entry"


# -- data -----------------------------------------------------------------------------------------


def test_check_simplex_names_the_argument_and_keeps_mpf():
    with raises_starting("q must lie in the simplex"):
        check_simplex(np.array([0.5, 0.6]), 2)
    with raises_starting("p0 must be a numeric array"):
        check_simplex(np.array(["a", "b"]), 2, name="p0")
    with raises_starting("q must be a vector of length 2 (one entry per point), got shape (3,)"):
        check_simplex([0.2, 0.3, 0.5], 2)
    q = check_simplex([0.25, 0.75], 2)
    assert isinstance(q, np.ndarray) and q.dtype == np.float64 and q.tolist() == [0.25, 0.75]
    with MP.context():
        qm = MP.array([mpmath.mpf(1) / 3, mpmath.mpf(2) / 3])
    assert check_simplex(qm, 2) is qm


def test_load_npz_errors_and_no_pickles(tmp_path):
    with pytest.raises(ValueError, match=r"^data file '[^']*nope\.npz' does not exist$"):
        ref.load_npz(tmp_path / "nope.npz")
    only_x = tmp_path / "x.npz"
    np.savez(only_x, X=np.eye(2))
    with pytest.raises(ValueError, match="must hold arrays named 'X' and 'y'"):
        ref.load_npz(only_x)
    pickled = tmp_path / "obj.npz"
    np.savez(pickled, X=np.array([[1.0, None]], dtype=object), y=np.array([1]))
    with pytest.raises(ValueError):  # object arrays would need unpickling: refused
        ref.load_npz(pickled)


def test_augment_and_extend_do_not_truncate_on_integer_data():
    Xi = np.array([[1, 2], [3, 4]])
    assert augment(Xi, 0.5).tolist() == [[1.0, 2.0, 0.5], [3.0, 4.0, 0.5]]
    y = np.array([1, -1])
    assert extend(Xi, y, 0.5).tolist() == [[1.0, 2.0, 0.5, 0.0], [3.0, 4.0, 0.0, -0.5]]


def test_augment_reflect_extend_keep_mpf_exactly():
    with MP.context():
        third = mpmath.mpf(1) / 3
        X = MP.array([[1.0, 2.0], [3.0, 4.0]])
        A = augment(X, third)
        assert A.dtype == object and A[1, 2] is third
        Z = reflect(A, np.array([1, -1]))
        E = extend(Z, np.array([1, -1]), third)
        assert E.dtype == object and E.shape == (2, 5)
        assert E[0, 3] == third and E[1, 4] == -third and isinstance(E[1, 4], mpmath.mpf)
        assert E[0, 4] == 0 and E[1, 3] == 0


# -- gram -----------------------------------------------------------------------------------------


def test_signed_gram_precision_params_and_zero_points():
    X = np.array([[1.0, 2.0], [3.0, 1.0]])
    y = np.array([1, -1])
    K = ref.signed_gram(X, y, precision=50)
    assert K.dtype == object and isinstance(K[0, 1], mpmath.mpf)
    assert [[int(v) for v in row] for row in K] == [[5, -5], [-5, 10]]
    assert ref.signed_gram(X, y, "polynomial", degree=1, c=0.0).tolist() == [[5.0, -5.0], [-5.0, 10.0]]
    assert ref.signed_gram(X, y, "polynomial", degree=3, c=1.0).tolist() == [[216.0, -216.0], [-216.0, 1331.0]]
    # unnormalized: a zero point is allowed (its row is 0)
    K0 = ref.signed_gram(np.array([[0.0, 0.0], [1.0, 1.0]]), y)
    assert K0.tolist() == [[0.0, 0.0], [0.0, 2.0]]


# -- margin: witness helpers, the mpmath linear solver --------------------------------------------

import importlib  # noqa: E402

margin_module = importlib.import_module("reference.margin")  # `reference.margin` is the function


def test_witness_bounds_at_precision_use_the_exact_witness():
    """K = I, alpha = (1, 1/3): min(K alpha)/||alpha|| = (1/3)/sqrt(10/9) = 1/sqrt(10); the
    witness 1/3 must be used at 50 digits, not rounded to float64 (error ~1e-17)."""
    with MP.context():
        third = mpmath.mpf(1) / 3
        alpha = MP.array([1.0, third])
        true = 1 / mpmath.sqrt(10)
        lo = lower_bound(np.eye(2), alpha, precision=50)
        up = upper_bound(np.eye(2), alpha, precision=50)  # ||p|| / 1^T p = sqrt(10)/3 / (4/3)
        assert isinstance(lo, mpmath.mpf) and isinstance(up, mpmath.mpf)
        assert lo <= true and true - lo < mpmath.mpf(10) ** -45
        assert up >= mpmath.sqrt(10) / 4 and up - mpmath.sqrt(10) / 4 < mpmath.mpf(10) ** -45


def test_witness_helpers_name_the_argument():
    K = np.eye(3)
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (2,)"):
        lower_bound(K, np.ones(2))
    with raises_starting("alpha must be a vector of length 3 (one entry per point), got shape (1, 3)"):
        lower_bound(K, np.ones((1, 3)))
    with raises_starting("p must be a vector of length 3 (one entry per point), got shape (4,)"):
        upper_bound(K, np.ones(4))
    with raises_starting("p contains NaN or inf; pass finite coefficients"):
        upper_bound(K, np.array([1.0, np.nan, 0.0]))
    with raises_ending("p must be nonnegative and nonzero (a point of the simplex, up to scaling)"):
        upper_bound(K, np.zeros(3))
    with raises_starting("max_iter must be an integer >= 1, got 0"):
        min_norm_point(K, max_iter=0)
    assert min_norm_point(K, max_iter=1).iterations == 1  # one cycle is a valid budget


def _mp_solve(A, b, dps=50):
    ar = Arithmetic(dps)
    with ar.context():
        return margin_module._solve_mp(ar.array(A), ar.array(b), ar), ar


def test_solve_mp_refines_to_working_precision():
    """A well-conditioned system with an exact rational solution: refined to ~10^-50, far below
    the float64 first solve."""
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(4), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]], dtype=object)
        b = np.array([mpmath.mpf(1), mpmath.mpf(2)], dtype=object)  # x = (1/11, 7/11)
        x, _ = _mp_solve(A, b)
        assert abs(x[0] - mpmath.mpf(1) / 11) < mpmath.mpf(10) ** -48
        assert abs(x[1] - mpmath.mpf(7) / 11) < mpmath.mpf(10) ** -48


def test_solve_mp_falls_back_to_exact_elimination_with_pivoting():
    """The float64 rounding of A is singular (rows 2 and 3 agree, A[0,0] rounds to 1e-30 ~ 0 and
    needs a pivot); Gaussian elimination at 80 digits still recovers x = (1, 2, 3)."""
    with mpmath.workdps(80):
        d = mpmath.mpf(10) ** -30
        one = mpmath.mpf(1)
        A = np.array([[d, one, 0 * one], [one, one, one], [one, one, one + d]], dtype=object)
        x_true = np.array([one, 2 * one, 3 * one], dtype=object)
        b = A @ x_true
        x, _ = _mp_solve(A, b, dps=80)
        assert all(abs(x[i] - x_true[i]) < mpmath.mpf(10) ** -40 for i in range(3))
        assert margin_module._gauss_mp(A, b).shape == (3,)
        with pytest.raises(ZeroDivisionError, match="singular KKT matrix"):
            margin_module._gauss_mp(np.array([[one, one], [one, one]], dtype=object), np.array([one, one]))


def test_solve_mp_singular_system_gives_least_squares_solution():
    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        A = np.array([[one, one], [one, one]], dtype=object)
        x, _ = _mp_solve(A, np.array([2 * one, 2 * one], dtype=object))
        assert [float(v) for v in x] == pytest.approx([1.0, 1.0], abs=1e-12)  # min-norm solution
        assert x.dtype == object and x.shape == (2,)


def test_solve_mp_well_conditioned_needs_no_elimination(monkeypatch):
    """Iterative refinement alone reaches the working precision on a well-conditioned system,
    also for a tiny solution (the stopping test is relative to the size of x)."""

    def no_elimination(A, b):
        raise AssertionError("exact elimination should not be needed")

    monkeypatch.setattr(margin_module, "_gauss_mp", no_elimination)
    with mpmath.workdps(50):
        A = np.array([[mpmath.mpf(4), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]], dtype=object)
        for scale in (mpmath.mpf(1), mpmath.mpf(10) ** -20):
            b = np.array([scale, 2 * scale], dtype=object)  # x = scale * (1/11, 7/11)
            x, _ = _mp_solve(A, b)
            assert abs(x[0] / scale - mpmath.mpf(1) / 11) < mpmath.mpf(10) ** -46
            assert abs(x[1] / scale - mpmath.mpf(7) / 11) < mpmath.mpf(10) ** -46



def test_gram_builders_compute_in_the_requested_precision():
    """x = (0.1, 0.3) (binary floats, used exactly): 50-digit products differ from float64 ones."""
    X = np.array([[0.1, 0.3], [0.3, 0.1]])
    y = np.array([1, -1])
    with mpmath.workdps(50):
        a, b = mpmath.mpf(0.1), mpmath.mpf(0.3)
        k01 = 2 * a * b
        kii = a * a + b * b
        K = ref.signed_gram(X, y, precision=50)
        assert K[0, 1] == -k01 and K[0, 0] == kii
        G = ref.gram(X, y, precision=50)
        assert abs(G[0, 1] - (-k01 / kii)) < mpmath.mpf(10) ** -48 and G[0, 0] == 1
