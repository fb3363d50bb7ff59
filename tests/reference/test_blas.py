"""reference/blas.py: the same call gives the same bits under any BLAS thread count.

Each case runs in two fresh interpreters, with OPENBLAS_NUM_THREADS (and the MKL / OpenMP
equivalents) at 1 and at 2, and compares the returned vectors bit for bit (a SHA-256 of their
bytes).  Without the one-thread limit, a threaded BLAS splits the sums of G @ p between threads
and the bits differ (on n = 900 textbook SNKP's alpha; NVN on a 900-point G stopped at another
iteration).  The limit is lifted after the call: the user's own BLAS setting is untouched."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


SCRIPT = r"""
import hashlib, sys
import numpy as np
import reference as R
rng = np.random.default_rng(0)
n = 900
X = rng.standard_normal((n, 20))
y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1, -1)
G = R.gram(X, y)
out = []
for r in (R.snkp(G, max_iter=60), R.nvn(G, 0.002453358071455341), R.pdm(X, y, 0.05, rho=1.0, max_iter=20000)):
    v = r.alpha if r.alpha is not None else (r.p if r.p is not None else r.w)
    out.append(f"{r.algorithm} {r.status} {r.iterations} {hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()}")
print(hashlib.sha256(np.ascontiguousarray(G).tobytes()).hexdigest())
print("\n".join(out))
"""


def _run(threads: int) -> str:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        env[var] = str(threads)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _blas_threads():
    import threadpoolctl

    return [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]


def test_same_bits_under_one_and_two_blas_threads():
    one, two = _run(1), _run(2)
    assert one == two, f"results differ between 1 and 2 BLAS threads:\n{one}\nvs\n{two}"


def test_the_limit_is_lifted_after_the_call():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy as np
    import scipy.linalg  # noqa: F401  (its own BLAS is loaded before the count is taken)

    import reference as R
    from reference.blas import single_threaded

    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    seen = []
    with single_threaded():
        with single_threaded():  # nested: the outer limit holds
            seen.append([lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"])
        seen.append([lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"])
    R.nvn(R.gram(np.eye(2), [1, 1]), 0.5)
    after = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    assert all(t == 1 for s in seen for t in s), seen
    assert after == before


def test_the_limit_is_process_wide_and_released_across_threads():
    """Thread A enters, thread B enters, A leaves: B still runs on one thread; B leaves: the
    original limits are back, and afterwards another thread can set its own limits."""
    import threading

    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy as np
    import scipy.linalg  # noqa: F401

    import reference as R
    from reference.blas import single_threaded

    before = _blas_threads()
    if max(before) < 2:
        pytest.skip("BLAS runs on one thread here already: nothing to observe")
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with single_threaded():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b():
        a_in.wait(10)
        with single_threaded():
            b_in.set()
            a_out.wait(10)
            seen["b after a left"] = _blas_threads()

    ta, tb = threading.Thread(target=a), threading.Thread(target=b)
    ta.start(), tb.start(), ta.join(20), tb.join(20)
    assert all(t == 1 for t in seen["b after a left"]), seen
    assert _blas_threads() == before
    R.nvn(R.gram(np.eye(2), [1, 1]), 0.5)  # a call in this thread, then a user's limit in another

    def user():
        with threadpoolctl.threadpool_limits(1, user_api="blas"):
            seen["user"] = _blas_threads()

    t = threading.Thread(target=user)
    t.start(), t.join(20)
    assert all(v == 1 for v in seen["user"]), seen
    assert _blas_threads() == before


def test_a_failure_to_set_the_limit_leaves_no_state(monkeypatch):
    import reference.blas as blas

    class Broken:
        def limit(self, **kw):
            raise RuntimeError("no BLAS")

    monkeypatch.setattr(blas, "_controller", Broken())
    with pytest.raises(RuntimeError):
        with blas.single_threaded():
            pass
    monkeypatch.undo()
    assert blas._depth == 0
    with blas.single_threaded():
        assert all(t == 1 for t in _blas_threads())
