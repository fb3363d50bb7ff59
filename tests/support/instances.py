"""Helpers shared by several test files."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st

import reference as ref
from reference.arithmetic import Arithmetic
from theorems.validate.case import make_case


X_OK = np.array([[1.0, 0.0], [0.0, 1.0]])


Y_OK = np.array([1, 1])


F64 = Arithmetic(None)


GOOD_X = np.array([[1.0, 0.0], [0.0, 1.0]])


GOOD_Y = np.array([1, -1])


_G = np.array([[1.0, 0.5], [0.5, 1.0]])  # a feasible normalized Gram matrix


_Q = np.array([0.5, 0.5])


X_OK2 = np.array([[1.0, 0.5], [-0.5, -1.0]])


Y_OK2 = np.array([1, -1])


# a_1 = e_1, a_2 = -e_1, a_3 = e_2: never strictly separable (a_1 = -a_2), 0 on the hull's boundary
_G_BOUNDARY = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


# Two points at 180 degrees: G e_1 = (1, -1) is not > 0, ||e_1||_G = 1, and p = (1/2, 1/2) has
# ||p||_G = 0 exactly (no separator exists).
G_OPPOSITE = np.array([[1.0, -1.0], [-1.0, 1.0]])


E1 = np.array([1.0, 0.0])


def _lying_smoothed(code):
    """SNKP/SNKPVN kernel that claims (code 1: separator alpha = e_1; code 2: certificate p = e_1)
    after min(3, budget) iterations, without looking at G."""
    calls = []

    def kernel(*a):
        calls.append(a[9])
        return min(3, a[9]), E1.copy(), E1.copy(), 0.5, code, 0

    return kernel, calls


CID = "strict.trajectory"


def _perceptron_case(inst, rule=None):
    return make_case("perceptron", inst, arguments={"rule": rule} if rule else None)


# z1 + z2 + z3 = 0 exactly (dyadic coordinates): the origin is in the hull, no separator exists
TRIANGLE = np.array([[1.0, 0.0], [-0.5, 0.75], [-0.5, -0.75]])


ONES3 = np.array([1, 1, 1])


def _infeasible_gram(seed: int, n: int = 6, d: int = 3) -> np.ndarray:
    X = np.random.default_rng(seed).standard_normal((n, d))
    X = np.vstack([X, -X.sum(axis=0, keepdims=True)])
    return ref.gram(X, np.ones(n + 1))


@pytest.fixture
def files(tmp_path):
    import gzip
    import json

    d = {}
    (tmp_path / "ok.svm").write_text("1 1:1 2:1\n-1 1:-1 2:-0.5\n")
    d["ok"] = tmp_path / "ok.svm"
    (tmp_path / "garbage.gz").write_bytes(b"not gzip at all")
    d["garbage_gz"] = tmp_path / "garbage.gz"
    (tmp_path / "trunc.gz").write_bytes(gzip.compress(b"1 1:1\n-1 2:1\n" * 50)[:30])
    d["trunc_gz"] = tmp_path / "trunc.gz"
    (tmp_path / "huge_index.svm").write_text("1 1000000000:1\n-1 1:1\n")
    d["huge_index"] = tmp_path / "huge_index.svm"
    (tmp_path / "dup.svm").write_text("1 1:1 1:2\n")
    d["dup"] = tmp_path / "dup.svm"
    (tmp_path / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    d["nested"] = tmp_path / "nested.json"
    (tmp_path / "bigint.json").write_text('{"schema_version": 1, "kind": "answers", "answers": [' + "9" * 4000 + "]}")
    d["bigint"] = tmp_path / "bigint.json"
    (tmp_path / "bool_version.json").write_text(json.dumps({"schema_version": True, "kind": "answers", "answers": []}))
    d["bool_version"] = tmp_path / "bool_version.json"
    (tmp_path / "numpy.py").write_text("def fn(*a, **k):\n    return None\n")
    d["numpy_py"] = tmp_path / "numpy.py"
    (tmp_path / "a_file").write_text("x")
    d["a_file"] = tmp_path / "a_file"
    return d


def _cancelling_duplicates():
    """Row 0 stores 1, 2^-60, -1 at column 0 and -2^-90 at column 1: exactly x_0 = 2^-90 (2^30, -1)
    = -2^-90 x_1 with x_1 = (-2^30, 1); same labels: exactly infeasible.  float64's sum of the
    duplicates in storage order is (0, -2^-90), which a separator of the rounded data separates."""
    import scipy.sparse as sp

    data = np.array([1.0, 2.0**-60, -1.0, -(2.0**-90), -(2.0**30), 1.0])
    X = sp.csr_matrix((data, np.array([0, 0, 0, 1, 0, 1]), np.array([0, 4, 6])), shape=(2, 2))
    return X, np.array([1, 1])


# XOR: not linearly separable (z0 + z1 = 0), separable by a degree-2 polynomial or Gaussian kernel.
XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])


XOR_Y = np.array([1, 1, -1, -1])


# its linear normalized signed Gram, written exactly (gram() rounds the -1 entries to
# -(1 - 2^-52) in float64, which makes the instance barely feasible: G 1_4/4 = 5.6e-17 > 0).
XOR_LIN_G = np.array([[1.0, -1, 0, 0], [-1, 1, 0, 0], [0, 0, 1, -1], [0, 0, -1, 1]])


# x and -x with equal labels: G = [[1,-1],[-1,1]], W = {(1/2,1/2)}, ||1/2 1_2||_G = 0.
PAIR = np.array([[1.0, -1.0], [-1.0, 1.0]])


# three unit vectors at 120 degrees (inner products -1/2): ||1_3/3||_G = 0 exactly.
TRI = np.array([[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]])


# a0 = (1,0), a1 = (-1,0), a2 = (0,1): infeasible, W = {(1/2,1/2,0)}, ||1_3/3||_G = 1/3.
G3 = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def f64(v) -> np.ndarray:
    return np.array([float(x) for x in np.ravel(v)])


def gnorm(G, p) -> float:
    p = f64(p)
    return math.sqrt(max(float(p @ np.asarray(G, dtype=float) @ p), 0.0))


def in_simplex(p, tol=1e-12) -> bool:
    p = f64(p)
    return bool(np.all(p >= 0) and abs(p.sum() - 1) <= tol)


def planted(seed: int, n: int, d: int = 2, gap: float = 0.1):
    """Points of [-1,1]^d labelled by a unit u, keeping only those with |u.x| >= gap.

    Returns X, y, u and gamma_u = min_i y_i u.x_i >= gap (a lower bound on rho)."""
    rng = np.random.RandomState(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = np.empty((0, d))
    while X.shape[0] < n:
        x = rng.uniform(-1, 1, size=(4 * n, d))
        X = np.vstack([X, x[np.abs(x @ u) >= gap]])
    X = X[:n]
    y = np.where(X @ u > 0, 1, -1)
    return X, y, u, float(np.min(y * (X @ u)))


seeds = st.integers(min_value=0, max_value=10_000)


_SEP_X, _SEP_Y, _, _ = planted(7, 8, d=3, gap=0.2)
