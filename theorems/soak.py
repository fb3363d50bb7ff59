"""The soak: every algorithm and ``margin`` on generated and adversarial instances, every claim
re-checked in exact rational arithmetic.

``margins soak [--minutes N] [--runs N] [--seed S] [--engine textbook|fast|both]`` draws
instances from the classes that broke the library before -- extreme scales, nearly singular G,
tiny accuracies (down to 1e-30), low precision, duplicates, antipodal points, XOR, separability
decided by round-off, PT11's multiple updates and active sets at extreme scales -- plus plain
random separable and infeasible data, each in one input form: a dense array, canonical CSR, or
non-canonical CSR or COO (duplicates that sum exactly to the data, unsorted indices, explicit zeros);
the Gram algorithms of the compiled engine get the linear kernel's operator
(:func:`reference.fast.operator.linear_gram`) on CSR instances.  It runs every algorithm of
:mod:`reference` in each engine asked for, and :func:`reference.margin`, on each instance, and
re-checks every claim with :func:`reference.verify_exact` / :func:`reference.verify_margin_exact`
on the exact matrix, operator or data the function was given.

Per algorithm it counts runs, claims (``"separator"`` / ``"certificate"``, or a margin
interval), false claims (refuted in exact arithmetic), crashes (any exception but a
``ValueError`` on an input the function may refuse), rejections (that ``ValueError``) and hangs
(a run over ``hang_seconds``, interrupted).  The instance stream is a pure function of the seed,
so ``--runs N --seed S`` is reproducible bit for bit; ``--minutes`` stops at the first instance
boundary after the time is up.
"""

from __future__ import annotations

import contextlib
import signal
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

import reference

from .text import table
from .validate.call import _accepts

__all__ = ["SoakInstance", "SoakReport", "instances", "soak", "ALGORITHMS", "CLASSES", "FORMS", "ENGINES"]

#: Every function the soak runs: the ten algorithms and the certified margin.
ALGORITHMS = tuple(reference.ALGORITHMS) + ("margin",)

#: The instance classes, in the order the stream cycles through them.
CLASSES = (
    "separable",
    "infeasible",
    "extreme_scale",
    "near_singular",
    "tiny_epsilon",
    "low_precision",
    "duplicates",
    "antipodal",
    "xor",
    "roundoff_separability",
    "multiple_updates",
    "tiny_accuracy",
)

#: The input forms an instance is passed in (drawn per instance after its data).
FORMS = ("dense", "csr", "csr_noncanonical", "coo_duplicates")
#: The engines the soak can run; ``"both"`` on the command line runs each algorithm in both.
ENGINES = ("textbook", "fast")

_GRAM = ("nkp", "snkp", "nvn", "snkpvn", "isnkpvn")
_PT11 = ("pfm", "pdm", "pdm_succ")


@dataclass(frozen=True)
class SoakInstance:
    """One instance: data, and the arguments every algorithm gets on it."""

    cls: str
    X: np.ndarray
    y: np.ndarray
    epsilon: float = 1e-3  # NVN / ISNKPVN accuracy, SNKPVN's delta, PDM's epsilon (clipped to (0, 1])
    precision: Optional[int] = None
    kernel: str = "linear"
    max_iter: int = 2_000
    form: str = "dense"  # one of FORMS: how X is passed (and the Gram operator on CSR, fast engine)
    pt11: Tuple[Tuple[str, object], ...] = ()  # PT11 options: rho, Delta, active_sets, multiple_updates

    def data(self):
        """X in this instance's input form: the array, canonical CSR, or a non-canonical CSR
        (or COO) meaning exactly the same matrix (each entry split into two dyadic halves stored
        as duplicates -- x = x/2 + x/2 is exact away from the subnormals --, indices in reverse
        order, and an explicit zero per row)."""
        import scipy.sparse as sp

        if self.form == "dense":
            return self.X
        C = sp.csr_matrix(self.X)
        if self.form == "csr":
            return C
        rows, cols, vals = [], [], []
        for i in range(C.shape[0]):
            lo, hi = C.indptr[i], C.indptr[i + 1]
            for t in range(hi - 1, lo - 1, -1):  # reversed: unsorted indices
                v, j = float(C.data[t]), int(C.indices[t])
                half = v / 2
                if half + (v - half) == v and half != 0 and v - half != 0:
                    rows += [i, i]
                    cols += [j, j]
                    vals += [half, v - half]
                else:
                    rows.append(i)
                    cols.append(j)
                    vals.append(v)
            rows.append(i)
            cols.append(0)
            vals.append(0.0)  # an explicit zero (a duplicate of column 0 when it is stored)
        indptr = np.searchsorted(np.asarray(rows), np.arange(C.shape[0] + 1), side="left")
        M = sp.csr_matrix((np.asarray(vals), np.asarray(cols), indptr), shape=C.shape)
        return M.tocoo() if self.form == "coo_duplicates" else M  # CSR -> COO keeps the duplicates


@dataclass
class Tally:
    runs: int = 0
    claims: int = 0
    false_claims: int = 0
    crashes: int = 0
    rejected: int = 0
    hangs: int = 0
    contract_errors: int = 0  # a user's callable returned no readable answer (validate's answer.contract)


@dataclass
class SoakReport:
    """Counts per algorithm, and the first few failures (with a replayable description)."""

    seed: int
    tallies: Dict[str, Tally] = field(default_factory=lambda: {a: Tally() for a in ALGORITHMS})
    failures: List[str] = field(default_factory=list)
    instances: int = 0
    seconds: float = 0.0
    user: Tuple[str, ...] = ()  # the algorithms run on the user's callables (validate's calling convention)

    @property
    def ok(self) -> bool:
        return all(t.false_claims == 0 and t.crashes == 0 and t.hangs == 0 and t.contract_errors == 0 for t in self.tallies.values())

    def total(self) -> Tally:
        out = Tally()
        for t in self.tallies.values():
            for k in vars(out):
                setattr(out, k, getattr(out, k) + getattr(t, k))
        return out

    def _names(self) -> List[str]:
        names = ["runs", "claims", "false_claims", "crashes", "hangs", "rejected"]
        return names + (["contract_errors"] if self.total().contract_errors else [])

    def rows(self) -> List[List[str]]:
        names = self._names()
        out = [[a] + [str(getattr(t, k)) for k in names] for a, t in self.tallies.items()]
        tot = self.total()
        return out + [["total"] + [str(getattr(tot, k)) for k in names]]

    def table(self) -> str:
        """The per-algorithm counts as one text table (:func:`theorems.text.table`); a column of
        contract errors when a user's callable returned something unreadable."""
        heads = ["algorithm", "runs", "claims", "false claims", "crashes", "hangs", "rejected"]
        return table(heads + (["contract errors"] if "contract_errors" in self._names() else []), self.rows())


# -- instances ------------------------------------------------------------------------------------


def _labels(rng: np.random.Generator, n: int) -> np.ndarray:
    y = rng.choice([-1, 1], n)
    y[0] = 1
    return y


def _separable(rng, n, d, margin=None):
    """Points with y_i <u, x_i> >= margin for a random unit u (margin drawn if None)."""
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    y = _labels(rng, n)
    m = rng.choice([0.3, 0.05, 1e-3]) if margin is None else margin
    s = X @ u
    X = X + np.outer(y * m - s + y * np.abs(rng.standard_normal(n)) * 0.5, u)
    return X, y


def _make(cls: str, rng: np.random.Generator) -> SoakInstance:
    """One instance of class ``cls``; its input form and PT11 options are drawn after its data."""
    inst = _make_data(cls, rng)
    form = str(rng.choice(FORMS, p=[0.4, 0.2, 0.2, 0.2]))
    pt11 = dict(inst.pt11)
    pt11.setdefault("rho", [1.0, None][int(rng.integers(0, 2))])
    pt11.setdefault("Delta", [None, None, 1.0][int(rng.integers(0, 3))])
    pt11.setdefault("active_sets", bool(rng.random() < 0.3))
    pt11.setdefault("multiple_updates", bool(rng.random() < 0.3))
    return replace(inst, form=form, pt11=tuple(sorted(pt11.items())))


def _make_data(cls: str, rng: np.random.Generator) -> SoakInstance:
    n, d = int(rng.integers(2, 9)), int(rng.integers(1, 4))
    if cls == "separable":
        X, y = _separable(rng, n, d)
        return SoakInstance(cls, X, y, epsilon=float(rng.choice([1e-2, 1e-3])))
    if cls == "infeasible":
        X = rng.standard_normal((n, d))
        X = np.vstack([X, -X.sum(axis=0, keepdims=True) * rng.uniform(0.5, 2)])  # 0 in the hull
        return SoakInstance(cls, X, np.ones(n + 1, dtype=np.int64), epsilon=float(rng.choice([1e-2, 1e-4])))
    if cls == "extreme_scale":
        X, y = (_separable(rng, n, d) if rng.random() < 0.5 else
                (rng.standard_normal((n, d)), _labels(rng, n)))
        scale = float(rng.choice([1e-300, 1e-200, 1e-160, 1e-150, 1e150, 1e155, 1e160, 1e200, 1e300]))
        if rng.random() < 0.3:  # an exactly infeasible triangle z1 + z2 + z3 = 0, at every scale
            X = np.array([[1.0, 0.0], [-0.5, 0.75], [-0.5, -0.75]])
            y = np.ones(3, dtype=np.int64)
        return SoakInstance(cls, X * scale, y)
    if cls == "near_singular":
        a = float(rng.uniform(0.1, 4.0))
        b = -a * float(rng.choice([0.5, 0.25, 1.0, 1 - 2.0**-40, 3.0]))  # 1-D: G_12 = -1 up to rounding
        X = np.array([[a], [b]] + [[float(v)] for v in rng.uniform(-3, 3, int(rng.integers(0, 3)))])
        return SoakInstance(cls, X, np.ones(X.shape[0], dtype=np.int64))
    if cls == "tiny_epsilon":
        X = rng.standard_normal((n, d))
        X = np.vstack([X, -X.sum(axis=0, keepdims=True)])
        return SoakInstance(cls, X, np.ones(n + 1, dtype=np.int64), epsilon=float(rng.choice([1e-6, 1e-7, 1e-9, 1e-12])))
    if cls == "low_precision":
        X, y = _separable(rng, min(n, 4), d) if rng.random() < 0.5 else (rng.standard_normal((min(n, 4), d)), _labels(rng, min(n, 4)))
        return SoakInstance(cls, X, y, epsilon=1e-3, precision=int(rng.choice([3, 10, 16, 17, 20])), max_iter=200)
    if cls == "duplicates":
        X, y = _separable(rng, n, d) if rng.random() < 0.5 else (rng.standard_normal((n, d)), _labels(rng, n))
        k = rng.integers(0, n, int(rng.integers(1, n + 1)))
        return SoakInstance(cls, np.vstack([X, X[k]]), np.concatenate([y, y[k]]))
    if cls == "antipodal":
        X = rng.standard_normal((n, d))
        y = _labels(rng, n)
        k = int(rng.integers(0, n))
        return SoakInstance(cls, np.vstack([X, -X[k : k + 1]]), np.concatenate([y, y[k : k + 1]]))
    if cls == "xor":
        X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]) * float(rng.choice([1.0, 3.0, 1e-3]))
        y = np.array([1, 1, -1, -1])
        return SoakInstance(cls, X, y, kernel=str(rng.choice(["linear", "polynomial"])))
    if cls == "roundoff_separability":
        t = float(rng.choice([1e-15, 1e-16, 2.0**-52, 2.0**-53, 1e-17, 0.0]))
        X = np.array([[1.0, 0.0], [-1.0, t], [0.5, -t / 2]]) * float(rng.choice([1.0, 0.1, 7.0]))
        return SoakInstance(cls, X, np.array([1, 1, 1]), epsilon=float(rng.choice([1e-3, 1e-8])))
    if cls == "multiple_updates":
        # PT11's multiple updates and active sets where the step sizes meet overflow and underflow:
        # rows at scales far apart (one row huge, one tiny or subnormal), or all at one extreme
        X, y = (_separable(rng, n, d) if rng.random() < 0.5 else (rng.standard_normal((n, d)), _labels(rng, n)))
        scales = np.array([1e-300, 1e-160, 1e-82, 1e22, 1e88, 1e111, 1e160, 1e300, 1e-310])
        row_scale = rng.choice(scales, n) if rng.random() < 0.6 else np.full(n, float(rng.choice(scales)))
        X = X * row_scale.reshape(-1, 1)
        if rng.random() < 0.2:
            X[int(rng.integers(0, n))] = 5e-324 * np.sign(rng.standard_normal(d))  # subnormal row
        opts = {"multiple_updates": True, "active_sets": bool(rng.random() < 0.5),
                "rho": [None, 1.0][int(rng.integers(0, 2))], "Delta": [None, 1.0][int(rng.integers(0, 2))]}
        return SoakInstance(cls, X, y, epsilon=float(rng.choice([1e-3, 1e-2])), pt11=tuple(sorted(opts.items())))
    if cls == "tiny_accuracy":
        # certificates at accuracies far below float64's round-off floor of ||p||_G: nearly
        # antipodal pairs (x, -c x with c not a power of two) and infeasible hulls
        x = rng.standard_normal((1, d + 1))
        c = float(rng.choice([3.0, 7.0, 0.1, 1.5]))
        X = np.vstack([x, -c * x, rng.standard_normal((int(rng.integers(0, 3)), d + 1))])
        return SoakInstance(cls, X, np.ones(X.shape[0], dtype=np.int64), epsilon=float(rng.choice([1e-20, 1e-30, 1e-12])))
    raise ValueError(f"unknown instance class {cls!r}")


def instances(seed: int = 0) -> Iterator[SoakInstance]:
    """The endless, deterministic stream of instances: the classes in turn, each from its own
    ``np.random.default_rng((seed, index))``."""
    index = 0
    while True:
        cls = CLASSES[index % len(CLASSES)]
        yield _make(cls, np.random.default_rng((seed, index)))
        index += 1


# -- running and checking -------------------------------------------------------------------------


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Interrupt the body after ``seconds`` (SIGALRM; main thread of a POSIX process only)."""
    usable = hasattr(signal, "setitimer") and seconds > 0
    if usable:
        try:
            old = signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(_Hang()))
        except ValueError:  # not the main thread
            usable = False
    if usable:
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _key(name: str, engine: str) -> str:
    """The tally of ``name`` in ``engine``: the bare name for the textbook, ``name [fast]``."""
    return name if engine == "textbook" or name == "margin" else f"{name} [fast]"


def _gram_input(inst: SoakInstance, engine: str, G):
    """The Gram matrix or operator an algorithm gets: the linear kernel's operator built from the
    instance's CSR form in the compiled engine, else the dense G (built from the same form)."""
    if engine == "fast" and inst.form != "dense" and inst.kernel == "linear":
        from reference.fast.operator import linear_gram

        return linear_gram(inst.data(), inst.y)
    return G


def _call(name: str, fns: Dict[str, Callable], inst: SoakInstance, G, engine: str = "textbook", user: bool = False):
    """Run one algorithm on one instance; return (result, the data its claim is about, y).

    Primal claims are judged on the dense array ``inst.X``, which every input form means exactly."""
    fn = fns[name]
    eps = min(inst.epsilon, 1.0)
    kw = {"max_iter": inst.max_iter, "precision": inst.precision}
    if engine != "textbook":
        kw["engine"] = engine
    if name == "margin":
        return fn(G, precision=inst.precision, max_iter=inst.max_iter), G, None
    if name in _PT11:
        kw.update(max_epochs=200, **dict(inst.pt11))
    if user:  # a user's callable (validate's calling convention) gets only the keywords it accepts
        names, varkw, _ = _accepts(fn)
        kw = {k: v for k, v in kw.items() if varkw or names is None or k in names}
    if name in ("perceptron", "normalized_perceptron"):
        return fn(inst.data(), inst.y, **kw), inst.X, inst.y
    if name in _PT11:
        first = eps * 0.01 if name == "pfm" else max(eps, 1e-3)
        return fn(inst.data(), inst.y, first, **kw), inst.X, inst.y
    G = _gram_input(inst, engine, G)
    if name == "nvn":
        return fn(G, eps, **kw), G, None
    if name == "snkpvn":
        return fn(G, np.full(G.shape[0], 1.0 / G.shape[0]), eps, **kw), G, None
    if name == "isnkpvn":
        return fn(G, 2.0, eps, **kw), G, None
    return fn(G, **kw), G, None


class _Contract(Exception):
    """A user's callable returned something that is not an answer (validate's answer.contract)."""


def _as_result(name: str, out, inst: SoakInstance):
    """A user's answer -- a Result-like object or a mapping with ``status``, ``iterations``,
    ``alpha`` / ``w`` / ``p``, as :func:`theorems.validate.validate` accepts it -- as something
    :func:`reference.verify_exact` reads; :class:`_Contract` when it is not one."""
    from types import SimpleNamespace

    from .validate.answer import normalize_answer
    from .validate.case import ALLOWED_STATUSES

    try:
        ans = normalize_answer(out)
    except Exception as exc:  # noqa: BLE001 -- whatever it returned, it is not an answer
        raise _Contract(f"the answer cannot be read: {type(exc).__name__}: {exc}") from None
    if ans.get("error"):
        raise _Contract(ans["error"])
    if ans["status"] not in ALLOWED_STATUSES[name]:
        raise _Contract(f"status {ans['status']!r} is not one of {ALLOWED_STATUSES[name]} (returned {type(out).__name__})")
    need = {"separator": ("alpha",) if name in _GRAM else ("w",), "certificate": ("p",)}.get(ans["status"], ())
    if name == "nvn" and ans["status"] == "separator" and ans.get("alpha") is None:
        ans["alpha"] = ans.get("p")
    missing = [k for k in need if ans.get(k) is None]
    if missing:
        raise _Contract(f"status {ans['status']!r} without {missing[0]}")
    info = {"epsilon": min(inst.epsilon, 1.0), "delta": min(inst.epsilon, 1.0)}
    if name in _PT11:
        opts = dict(inst.pt11)
        info.update(rho=opts.get("rho", 1.0), Delta=opts.get("Delta"))
    return SimpleNamespace(algorithm=name, status=ans["status"], iterations=ans["iterations"], alpha=ans["alpha"],
                           w=ans["w"], p=ans["p"], info=info, precision=None)


def _check(name: str, result, data, y, inst: SoakInstance) -> Tuple[bool, str]:
    """(claimed something, '' if the claim holds exactly else why)."""
    if name == "margin":
        return True, reference.verify_margin_exact(result, data)
    if result.status not in (reference.SEPARATOR, reference.CERTIFICATE):
        return False, ""
    accuracy = min(inst.epsilon, 1.0) if name in ("nvn", "snkpvn", "isnkpvn") else None
    return True, reference.verify_exact(result, data, y, accuracy=accuracy)


def run_instance(
    inst: SoakInstance, report: SoakReport, fns: Dict[str, Callable], hang_seconds: float, engines: Tuple[str, ...] = ("textbook",)
) -> None:
    """Every algorithm on ``inst``, in every engine of ``engines``; update ``report``."""
    try:
        kernel_kw = {"degree": 2} if inst.kernel == "polynomial" else {}
        G = reference.gram(inst.X if inst.form == "dense" else inst.data(), inst.y, inst.kernel, **kernel_kw)
        gram_error = None
    except ValueError as exc:
        G, gram_error = None, exc
    except Exception as exc:  # noqa: BLE001 -- a crash of gram is counted against every Gram user
        G, gram_error = None, exc
    for engine in engines:
        for name in fns:
            if engine != "textbook" and (name == "margin" or inst.precision is not None):
                continue  # margin has one engine; the compiled engine is float64 only
            _run_one(name, engine, inst, report, fns, G, gram_error, hang_seconds)


def _run_one(name, engine, inst, report, fns, G, gram_error, hang_seconds) -> None:
    key = _key(name, engine)
    tally = report.tallies.setdefault(key, Tally())
    tally.runs += 1
    needs_G = name in _GRAM or name == "margin"
    if needs_G and G is None:
        if isinstance(gram_error, ValueError):
            tally.rejected += 1
        else:
            tally.crashes += 1
            _note(report, key, inst, f"gram crashed: {type(gram_error).__name__}: {gram_error}")
        return
    user = name in report.user
    try:
        with _time_limit(hang_seconds):
            result, data, y = _call(name, fns, inst, G, engine, user)
        if user:
            result = _as_result(name, result, inst)
    except _Contract as exc:
        tally.contract_errors += 1
        _note(report, key, inst, f"CONTRACT ERROR: {exc}")
        return
    except _Hang:
        tally.hangs += 1
        _note(report, key, inst, f"no result within {hang_seconds} s")
        return
    except ValueError as exc:
        tally.rejected += 1
        if inst.precision is None and inst.cls not in ("extreme_scale", "multiple_updates"):
            _note(report, key, inst, f"rejected: {exc}")  # recorded, not counted as a failure
        return
    except Exception as exc:  # noqa: BLE001 -- anything else is a crash
        tally.crashes += 1
        _note(report, key, inst, f"crash: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
        return
    try:
        claimed, reason = _check(name, result, data, y, inst)
    except Exception as exc:  # noqa: BLE001 -- a result the exact checker cannot read
        claimed, reason = True, f"the result cannot be checked: {type(exc).__name__}: {exc}"
    if claimed:
        tally.claims += 1
        if reason:
            tally.false_claims += 1
            _note(report, key, inst, f"FALSE CLAIM: {reason}")


def _note(report: SoakReport, name: str, inst: SoakInstance, what: str) -> None:
    if len(report.failures) < 50:
        report.failures.append(
            f"{name} on {inst.cls} (X={inst.X.tolist()!r}, y={inst.y.tolist()!r}, epsilon={inst.epsilon!r}, "
            f"precision={inst.precision!r}, kernel={inst.kernel!r}, form={inst.form!r}, pt11={dict(inst.pt11)!r}): {what}"
        )


def soak(
    *,
    minutes: Optional[float] = None,
    runs: Optional[int] = None,
    seed: int = 0,
    algorithms: Optional[Dict[str, Callable]] = None,
    hang_seconds: float = 30.0,
    progress: Optional[Callable[[SoakReport], None]] = None,
    engines: Tuple[str, ...] = ("textbook",),
    only: bool = False,
) -> SoakReport:
    """Run the soak until ``runs`` instances are done or ``minutes`` have passed.

    Parameters
    ----------
    minutes : float, optional
        Wall-clock budget; the current instance is finished.
    runs : int, optional
        Number of instances (each runs every algorithm).  At least one of the two is needed.
    seed : int
        Seed of the instance stream.
    algorithms : dict, optional
        name -> callable, replacing :mod:`reference`'s (names as in :data:`ALGORITHMS`): your own
        implementation, with the calling convention of :func:`theorems.validate.validate` (the
        reference function's arguments; keywords it does not accept are not passed; it returns a
        Result-like object or a mapping with ``status``, ``iterations``, ``alpha`` / ``w`` / ``p``).
        Every claim it makes is re-checked exactly; an answer that cannot be read is a *contract
        error* (its own column), not a false claim.  ``margins soak --impl ALGO=MODULE:FN``.
    only : bool
        Run only the functions of ``algorithms`` (default: the reference's others too).
    hang_seconds : float
        A run longer than this is interrupted and counted as a hang.
    progress : callable, optional
        Called with the report after every instance.
    engines : tuple of str
        The engines each algorithm runs in (:data:`ENGINES`); ``("textbook", "fast")`` runs both
        (the compiled engine needs numba).  The compiled engine's tallies are named ``"nvn [fast]"``.
    """
    engines = tuple(engines)
    if not engines or any(e not in ENGINES for e in engines):
        raise ValueError(f"engines must be a non-empty tuple of {ENGINES}, got {engines!r}")
    if minutes is None and runs is None:
        raise ValueError("pass minutes= or runs= (the soak needs a budget)")
    fns = {name: (reference.margin if name == "margin" else getattr(reference, name)) for name in ALGORITHMS}
    if algorithms:
        unknown = set(algorithms) - set(ALGORITHMS)
        if unknown:
            raise ValueError(f"unknown algorithm name(s) {sorted(unknown)}; expected names from {ALGORITHMS}")
        fns = dict(algorithms) if only else {**fns, **algorithms}
    report = SoakReport(seed=seed, tallies={_key(a, e): Tally() for e in engines for a in ALGORITHMS
                                            if (e == "textbook" or a != "margin") and a in fns},
                        user=tuple(a for a in (algorithms or {}) if a != "margin"))
    t0 = time.perf_counter()
    deadline = None if minutes is None else t0 + 60.0 * minutes
    with np.errstate(all="ignore"):
        for inst in instances(seed):
            if runs is not None and report.instances >= runs:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            run_instance(inst, report, fns, hang_seconds, engines)
            report.instances += 1
            if progress is not None:
                progress(report)
    report.seconds = time.perf_counter() - t0
    return report


# -- command line ---------------------------------------------------------------------------------


def _positive_float(text: str) -> float:
    import argparse

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not 0 < v < 1e6:
        raise argparse.ArgumentTypeError(f"minutes must be > 0, got {text!r}")
    return v


def _count(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def add_arguments(p) -> None:
    """The options of ``margins soak``."""
    p.add_argument("--minutes", type=_positive_float, default=None, help="wall-clock budget (default: 1 minute unless --runs)")
    p.add_argument("--runs", type=_count, default=None, help="number of instances (each runs every algorithm and margin)")
    p.add_argument("--seed", type=int, default=0, help="seed of the instance stream (default 0)")
    p.add_argument("--hang-seconds", type=_positive_float, default=30.0, help="a run longer than this counts as a hang")
    p.add_argument("--failures", type=int, default=5, help="print the first N failures in full (default 5)")
    p.add_argument("--impl", action="append", default=[], metavar="ALGO=MODULE:FN",
                   help="soak your own implementation of ALGO (the calling convention of `margins validate`); repeatable; "
                        "only the implementations given are run")
    p.add_argument(
        "--engine",
        choices=("textbook", "fast", "both"),
        default=None,
        help="the engine(s) every algorithm runs in (default: both when numba is installed, else textbook)",
    )


def _load_impls(specs) -> Dict[str, Callable]:
    """``ALGO=MODULE:FN`` (repeatable) -> {ALGO: callable}; a ValueError names a bad one."""
    from .validate.call import load_callable

    out: Dict[str, Callable] = {}
    for spec in specs:
        algo, eq, target = spec.partition("=")
        if not eq or algo not in ALGORITHMS:
            raise ValueError(f"--impl {spec!r}: expected ALGO=MODULE:FN with ALGO one of {', '.join(ALGORITHMS)}")
        out[algo] = load_callable(target)
    return out


def main(args) -> int:
    """``margins soak``: print the table; exit 0 iff no false claim, crash or hang."""
    import sys

    minutes = args.minutes if args.minutes is not None or args.runs is not None else 1.0
    last = [time.perf_counter()]

    def progress(rep: SoakReport) -> None:
        now = time.perf_counter()
        if now - last[0] >= 10:
            last[0] = now
            t = rep.total()
            print(f"  {rep.instances} instances, {t.runs} runs, {t.false_claims} false claims, {t.crashes} crashes, "
                  f"{t.hangs} hangs", file=sys.stderr)

    from reference import fast

    engine = args.engine or ("both" if fast.available() else "textbook")
    if engine != "textbook" and not fast.available():
        print(f"margins soak: error: --engine {engine} needs numba; run: {fast.INSTALL_HINT}", file=sys.stderr)
        return 2
    engines = ENGINES if engine == "both" else (engine,)
    impls = _load_impls(getattr(args, "impl", []))
    if impls:
        engines = ("textbook",)  # a user's callable has one engine: its own
    report = soak(minutes=minutes, runs=args.runs, seed=args.seed, hang_seconds=args.hang_seconds, progress=progress,
                  engines=engines, algorithms=impls or None, only=bool(impls))
    t = report.total()
    print(report.table())
    print(f"\n{report.instances} instances, {t.runs} runs, {t.claims} claims re-checked in exact rational arithmetic "
          f"in {report.seconds:.0f} s (seed {report.seed}, engines: {', '.join(engines)}); "
          + ("no false claim, crash or hang." if report.ok else "FAILURES:"))
    for f in report.failures[: max(args.failures, 0)]:
        print("  - " + f)
    return 0 if report.ok else 1
