"""Accuracy and path of reference.margin._solve_mp on random systems (benchmarks/mutation/notkilled9.md).

For each working precision D, size m and condition number: 3 random systems A x = b (A float64,
b = A x_true at D digits), the solution compared with the exact rational solution of the stored
system; prints how many of the 3 fell back to elimination (_gauss_mp), the worst relative error in
units of eps = 10^-D, and the time.  Run from a checkout (`python benchmarks/mutation/notkilled9_solve_mp.py`);
`PYTHONPATH=<other tree> python ...` measures another version of reference/.
"""

import importlib
import time
from fractions import Fraction

import numpy as np

from reference.arithmetic import Arithmetic
from reference.exact import rational

M = importlib.import_module("reference.margin")


def system(cond, m, seed, ar):
    rng = np.random.default_rng(seed)
    Q1, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Q2, _ = np.linalg.qr(rng.standard_normal((m, m)))
    Af = (Q1 * np.logspace(0, -np.log10(cond), m)) @ Q2.T
    with ar.context():
        A = ar.array(Af)
        return A, A @ ar.array(rng.standard_normal(m))


def exact_solution(A, b):
    """Gauss-Jordan over Q (A as stored is nonsingular for these systems)."""
    m = A.shape[0]
    R = [[rational(A[i, j]) for j in range(m)] + [rational(b[i])] for i in range(m)]
    for k in range(m):
        piv = next(i for i in range(k, m) if R[i][k] != 0)
        R[k], R[piv] = R[piv], R[k]
        for i in range(m):
            if i != k and R[i][k] != 0:
                f = R[i][k] / R[k][k]
                R[i] = [a - f * c for a, c in zip(R[i], R[k])]
    return [R[i][m] / R[i][i] for i in range(m)]


def main():
    gauss = M._gauss_mp
    count = [0]

    def counting_gauss(A, b):
        count[0] += 1
        return gauss(A, b)

    M._gauss_mp = counting_gauss
    for dps in (16, 30, 50, 100):
        ar = Arithmetic(dps)
        for m in (3, 8, 20):
            for cond in (1e0, 1e2, 1e4, 1e6, 1e9, 1e12, 1e14, 1e15, 1e16):
                count[0], worst, seconds = 0, Fraction(0), 0.0
                for seed in range(3):
                    A, b = system(cond, m, seed, ar)
                    xs = exact_solution(A, b)
                    with ar.context():
                        t = time.perf_counter()
                        x = M._solve_mp(A, b, ar)
                        seconds += time.perf_counter() - t
                    err = max(abs(rational(x[i]) - xs[i]) for i in range(m)) / max(abs(v) for v in xs)
                    worst = max(worst, err * 10**dps)
                print(f"dps {dps:3d}  m {m:2d}  cond {cond:.0e}  elimination {count[0]}/3  "
                      f"worst error {float(worst):8.1e} eps  {seconds:.3f} s", flush=True)


if __name__ == "__main__":
    main()
