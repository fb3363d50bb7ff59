"""margin(gram(X, y), precision=D) on the first n points of real data sets: time (best of 3), time
in _solve_mp, how often it fell back to elimination (_gauss_mp), and the certified bounds at D
digits (benchmarks/mutation/notkilled9.md).  `PYTHONPATH=<other tree> python ...` measures another
version of reference/.
"""

import collections
import importlib
import time

import mpmath

from reference import gram, margin
from reference.data import load_libsvm

M = importlib.import_module("reference.margin")
DATA = "/work/shared/data"
CASES = [("sonar", 80, 30), ("sonar", 208, 30), ("wdbc", 100, 30), ("heart_scale", 60, 30),
         ("sonar", 120, 50), ("ionosphere", 60, 30)]  # fmt: skip


def main():
    calls, spent = collections.Counter(), [0.0]
    solve, gauss = M._solve_mp, M._gauss_mp

    def timed_solve(A, b, ar):
        t = time.perf_counter()
        calls["solve"] += 1
        try:
            return solve(A, b, ar)
        finally:
            spent[0] += time.perf_counter() - t

    def counted_gauss(A, b):
        calls["elimination"] += 1
        return gauss(A, b)

    M._solve_mp, M._gauss_mp = timed_solve, counted_gauss
    for name, n, dps in CASES:
        X, y = load_libsvm(f"{DATA}/{name}/{name}")
        K = gram(X[:n].toarray(), y[:n])
        best = float("inf")
        for _ in range(3):
            calls.clear()
            spent[0] = 0.0
            t = time.perf_counter()
            m = margin(K, precision=dps)
            best = min(best, time.perf_counter() - t)
        with mpmath.workdps(dps + 5):
            print(f"{name} n={n} D={dps}: {best:.2f} s (solve {spent[0]:.3f} s, {dict(calls)}); "
                  f"lower {mpmath.nstr(m.lower, dps)}  upper {mpmath.nstr(m.upper, dps)}", flush=True)


if __name__ == "__main__":
    main()
