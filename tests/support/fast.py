"""Helpers shared by several test files."""

from __future__ import annotations

import numpy as np

import reference
from reference.arithmetic import Arithmetic


FLOAT64 = Arithmetic(None)


def _planted_3(m=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.where(X @ rng.normal(size=d) >= 0, 1, -1)


def _infeasible():
    """Ten points, all labelled +1, with (-5, -5) and (5, 5) among them: 0 is in the hull of the
    z_i (z = (1,1)/sqrt 2 and -z both present), so no separator; ||q_0||_G > 0 for q_0 = 1/n."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(8, 2)), [[-5.0, -5.0], [5.0, 5.0]]])
    return reference.gram(X, np.ones(10, dtype=int))


X2, Y2 = np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1, -1])


def _infeasible_primal():
    return np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1, 1])


XP = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, -3.0, 0.5]])


LP = np.array([1, -1, -1])


def _both(fn, *args, **kw):
    return fn(*args, **kw), fn(*args, engine="fast", **kw)


def _same(a, b, bitwise=True):
    """Same status, counter and message; the same iterate -- bit for bit (PT11, integer-like data), or
    within tests/reference/fast/test_resume.py's RTOL (the Gram kernels carry G v by linearity: summation order)."""
    assert (b.status, b.iterations, b.message) == (a.status, a.iterations, a.message), (a.message, b.message)
    for name in ("w", "alpha", "p"):
        va, vb = getattr(a, name), getattr(b, name)
        assert (va is None) == (vb is None), name
        if va is not None and bitwise:
            np.testing.assert_array_equal(vb, va)
        elif va is not None:
            np.testing.assert_allclose(vb, va, rtol=1e-9, atol=1e-12)


def _pt11_same(a, b):
    _same(a, b)
    for key in ("t_c", "ell", "theta", "epochs", "passes"):
        assert b.info[key] == a.info[key], key


def unguarded(name: str):
    """``reference.<name>`` (nvn, snkpvn, isnkpvn) without the public function's refusal of an
    accuracy below the round-off floor of ||p||_G (reference.budgets): the textbook module's
    function, or the compiled engine's with ``engine="fast"`` -- for tests of what the engines do
    below that floor (claims refused within round-off, exact cancellations)."""
    from reference import smoothed, von_neumann

    textbook = getattr(von_neumann if name == "nvn" else smoothed, name)

    def call(*args, engine="textbook", max_iter=100_000, trace=False, **kw):
        if engine == "fast":
            from reference.fast import engine as compiled

            return getattr(compiled, name)(*args, max_iter=max_iter, trace=trace, **kw)
        return textbook(*args, max_iter=max_iter, trace=trace, **kw)

    call.__name__ = name
    return call
