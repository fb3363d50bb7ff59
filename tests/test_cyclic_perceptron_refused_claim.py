"""The cyclic Perceptron [RP14 Alg. 1] after a separator claim refused on the user's data while
its working copy Z has no mistake left: the run ends with status max_iter and a message naming the
refused claim, in both engines alike (the fast kernel's ``j < 0``), never a bare StopIteration.

Expected values are worked by hand in the docstrings (dyadic data: every sum and product of the
working copy is exact), never read off the library.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import reference
from reference import perceptrons

numba = pytest.importorskip("numba", reason="the compiled engine needs numba: pip install 'perceptron-margins[fast]'")

E = 1000  # the data are the working rows times 2^E (largest |entry| 0.75 2^E: rescale_pow2's e = E)


def _underflowing_instance():
    """65 points in R^64 whose working copy Z = Z_data 2^-1000 loses bits of the last point.

    Rows 0..63: z_i = 0.75 s_i h_i, h_i the rows of the Sylvester-Hadamard matrix H (64 x 64,
    h_i . h_j = 0 for i != j), s_i = (-1)^f(i) with f the bent function x1 x2 + x3 x4 + x5 x6 of
    the bits of i, so every entry of H^T s is +-8.  Each z_i is orthogonal to the sum of the
    earlier ones (margin exactly 0: a mistake), so the cyclic rule updates on rows 0..63 in turn:
    w_64 = 0.75 H^T s, every entry +-6, ||w_64||_1 = 384.
    Row 64, in units of UNDERFLOW = 2^-1074 on the working scale: (p_c - 0.49 sign(w_c)), p_c =
    sign(w_c) for c < 24, else 0.  Z rounds it to p (0.51 -> 1, 0.49 -> 0): margin 24 * 6 = 144 >
    the allowance (2 dim + 4) = 132 (the relative part is below 1), no mistake; on the data the
    margin is 144 - 0.49 * 384 = -44.16 < 0: the claim at k = 64 is refused, with no mistake on Z.
    """
    H = np.array([[1.0]])
    for _ in range(6):
        H = np.block([[H, H], [H, -H]])
    bits = (np.arange(64)[:, None] >> np.arange(6)) & 1
    s = np.where((bits[:, 0] & bits[:, 1]) ^ (bits[:, 2] & bits[:, 3]) ^ (bits[:, 4] & bits[:, 5]), -1.0, 1.0)
    w = 0.75 * (H.T @ s)
    assert np.all(np.abs(w) == 6.0)  # the bent function: |H^T s| = 8 everywhere
    p = np.where(np.arange(64) < 24, np.sign(w), 0.0)
    last = (p - 0.49 * np.sign(w)) * 2.0 ** (E - 1074)  # times 2^-E: (p_c - 0.49 sign w_c) UNDERFLOW
    X = np.vstack([np.ldexp(0.75 * s[:, None] * H, E), last])
    return X, np.ones(65, dtype=int), w


def test_a_claim_refused_on_the_data_with_no_mistake_on_the_working_copy_ends_the_run():
    X, y, w64 = _underflowing_instance()
    slow, fast = reference.perceptron(X, y, max_iter=1000), reference.perceptron(X, y, max_iter=1000, engine="fast")
    for r in (slow, fast):
        assert (r.status, r.iterations) == (reference.MAX_ITER, 64), r.message
        assert "the last claim (separator, iteration 64) was not verified: y_64 <w, x_64>" in r.message
        np.testing.assert_array_equal(r.w, w64)
        assert r.info["scale"] == "2^-1000"
    assert fast.message == slow.message


def test_the_working_copy_alone_would_accept_the_claim():
    """The same instance with the last point as Z holds it (p UNDERFLOW, no bits lost): the claim
    at k = 64 is verified, so the refusal above comes from the lost bits alone."""
    X, y, w64 = _underflowing_instance()
    X[-1] = np.ldexp(np.ldexp(X[-1], -E), E)  # exactly p 2^(E - 1074)
    for engine in ("textbook", "fast"):
        r = reference.perceptron(X, y, max_iter=1000, engine=engine)
        assert (r.status, r.iterations) == (reference.SEPARATOR, 64), r.message
        np.testing.assert_array_equal(r.w, w64)


def _refusing_first(verify, count):
    def refusing(*args, **kw):
        count[0] += 1
        return "refused by the test" if count[0] == 1 else verify(*args, **kw)

    return refusing


def test_a_faked_refusal_ends_both_engines_alike(monkeypatch):
    """X = (e1, e2), y = 1: w_1 = e1, w_2 = e1 + e2, every margin 1 (no mistake): the claim at
    k = 2, refused by the faked verifiers, leaves the cyclic rule nothing to update on."""
    from reference.fast import engine

    X, y = np.eye(2), np.ones(2, dtype=int)
    slow_count, fast_count = [0], [0]
    algo = perceptrons.PERCEPTRON
    monkeypatch.setattr(perceptrons, "PERCEPTRON", dataclasses.replace(algo, verify=_refusing_first(algo.verify, slow_count)))
    monkeypatch.setattr(engine, "verify_separator_primal", _refusing_first(engine.verify_separator_primal, fast_count))
    slow, fast = reference.perceptron(X, y, trace=True), reference.perceptron(X, y, trace=True, engine="fast")
    assert slow_count[0] == fast_count[0] == 1
    for r in (slow, fast):
        assert (r.status, r.iterations, len(r.trace)) == (reference.MAX_ITER, 2, 3)
        assert r.message == "budget exhausted after 2 iterations; the last claim (separator, iteration 2) was not verified: refused by the test"
        np.testing.assert_array_equal(r.w, [1.0, 1.0])
