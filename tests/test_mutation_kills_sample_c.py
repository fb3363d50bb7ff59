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
