"""Kills for survivors of fresh mutation sample C (166 mutants of reference/ outside margin.py, seed 2027,
mutmut 3.8.1; see benchmarks/mutation/sample_c.md).  Each kill was checked by applying the mutant by hand."""
import numpy as np

import reference.data_margin as DM
from reference.exact import verify_exact
from reference.result import Result


def test_certified_lower_reads_integer_witness_as_float64():
    """certified_lower casts u to float64 before u . u: an int64 u with u . u >= 2^63 would wrap around
    (u = (2^40, 0): u . u = 2^80 = 0 mod 2^64) and the bound would be computed from a wrong ||u||.
    The exact value is min u.z / ||u|| = 3 for z = (3, 4), (3, -4) (kills data_margin.certified_lower_6)."""
    P = DM.make_patterns(np.array([[3.0, 4.0], [-3.0, 4.0]]), np.array([1, -1]), rho=None)
    for u in (np.array([2**40, 0]), np.array([3_037_000_500, 0]), np.array([-(2**40), 0])):
        lo = DM.certified_lower(P, u)
        true = 3.0 if u[0] > 0 else -3.0
        assert true * (1 + 1e-14 * np.sign(-true)) <= lo <= true, (u, lo)


def test_certificate_sum_tolerance_at_n_1_is_17_eps():
    """|1^T p - 1| <= 17 n eps also at n = 1 (not 34 eps): p = (1 + 16 eps) passes, (1 + 20 eps) fails
    (kills exact._check_certificate_22, max(n, 2))."""
    eps = 2.0**-52
    G = np.array([[1.0]])
    ok = Result("nkp", "certificate", 1, p=np.array([1 + 16 * eps]), info={"epsilon": 5})
    bad = Result("nkp", "certificate", 1, p=np.array([1 + 20 * eps]), info={"epsilon": 5})
    assert verify_exact(ok, G) == ""
    assert verify_exact(bad, G).startswith("sum(p) = ") and "17 n eps" in verify_exact(bad, G)


def test_check_csr_refuses_indptr_ending_before_nnz():
    """scipy accepts a CSR whose indptr ends before len(data) (trailing storage); its rows then hold
    fewer entries than data, so check_csr must refuse it even though len(indices) == len(data)
    (kills data.check_csr_32, `and` for `or`)."""
    import pytest
    import scipy.sparse as sp

    from reference.data import check_csr

    X = sp.csr_matrix((np.array([1.0]), np.array([0]), np.array([0, 1])), shape=(1, 2))
    X.data, X.indices = np.array([1.0, 2.0]), np.array([0, 1], dtype=X.indices.dtype)  # storage past indptr[-1]
    assert len(X.indices) == len(X.data) == 2 and X.indptr[-1] == 1
    with pytest.raises(ValueError, match="not a consistent CSR matrix.*end at nnz"):
        check_csr(X)


def test_extend_validates_labels_and_delta():
    """extend is public: labels other than +-1 and Delta <= 0 / not finite are refused, not turned into a
    wrong extended space (E-entries l_k Delta)."""
    import pytest

    from reference.data import extend

    Z = np.array([[1.0, 2.0], [-3.0, 1.0]])
    np.testing.assert_array_equal(extend(Z, np.array([1, -1]), 0.5), [[1.0, 2.0, 0.5, 0.0], [-3.0, 1.0, 0.0, -0.5]])
    for y in (np.array([1, 2]), np.array([1, 0]), np.array([1]), np.array([[1, -1]])):
        with pytest.raises(ValueError, match="y must hold the 2 labels l_k of Z's rows, each -1 or \\+1"):
            extend(Z, y, 0.5)
    for Delta in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=r"^Delta must (lie in \(0, inf\)|be finite), got "):
            extend(Z, np.array([1, -1]), Delta)


def test_fast_nkp_counts_the_periodic_refreshes():
    """The fast NKP reports its G-products: one column G e_j per step plus one full G alpha every
    REFRESH_EVERY steps [reference.fast.rp14_kernels].  On a never-separable G (points z and -z) the run
    uses its whole budget, so the count is max_iter + max_iter // REFRESH_EVERY exactly (kills the
    hand-applied kernel mutant `products -= 1` at the refresh, benchmarks/mutation/kernels.md)."""
    import pytest

    pytest.importorskip("numba")
    import reference
    from reference.fast import rp14_kernels

    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for max_iter in (rp14_kernels.REFRESH_EVERY - 1, rp14_kernels.REFRESH_EVERY, 3 * rp14_kernels.REFRESH_EVERY + 5):
        r = reference.nkp(G, engine="fast", max_iter=max_iter)
        assert r.status == "max_iter" and r.iterations == max_iter
        assert r.info["products"] == max_iter + max_iter // rp14_kernels.REFRESH_EVERY, (max_iter, r.info)
