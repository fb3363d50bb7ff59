"""The data as both engines run on them: the checks, the working points, the scale.

* RP14's Perceptron and Normalized Perceptron (Alg. 1, 2) run on the reflected (augmented)
  points z_i = y_i [x_i, rho].  :func:`check_primal_data` validates (X, y, rho);
  :func:`working_points` builds the rows a run steps on and the rows a separator is verified on,
  scaled by a power of two at extreme scales; :func:`with_scale` records that power.  The
  textbook engine (:mod:`reference.perceptrons`) and the compiled one
  (:mod:`reference.fast.engine`) both call these, so they run on the same points, bit for bit.
* PT11's PDM, PFM and PDM-succ: :func:`prepare_pt11` validates a call once and builds its
  implicit patterns (scaled alike), the schedule of its runs and the ``info`` both engines add:
  a :class:`PT11Run`, which :func:`reference.dynamic_margin.run` drives or the compiled engine
  runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

import numpy as np

from .arithmetic import Arithmetic, arithmetic, rescale_pow2, scale_rows_pow2
from .data import augment, check_bool, check_data, check_int, check_real, reflect
from .engines import TEXTBOOK, check_engine
from .patterns import Patterns, make_patterns
from .result import Result

__all__ = ["check_primal_data", "working_points", "with_scale", "PT11Run", "prepare_pt11", "succ_schedule"]


# -- RP14 Alg. 1, 2: the primal points -----------------------------------------------------------


def check_primal_data(X, y, rho):
    """Validate (X, y) and the optional bias rho; zero rows are allowed only with rho."""
    if rho is not None:
        check_real("rho", rho, low=0, hint="the augmentation (bias) coordinate, e.g. rho=1.0; or rho=None")
    return check_data(X, y, nonzero=rho is None)


def _exact_or(Z: np.ndarray, e: int, Z_data: np.ndarray) -> np.ndarray:
    """The points on which a separator is verified: Z = Z_data 2^-e when that scaling is exact
    (same signs of every y_i <w, x_i>, and no overflow), else the data as given."""
    return Z if e == 0 or np.array_equal(np.ldexp(Z, e), Z_data) else Z_data


def _augmented(X: np.ndarray, rho, ar: Arithmetic) -> np.ndarray:
    """The points in ``ar``, augmented x_i -> [x_i, rho] when rho is given  [PT11 Sec. 2]."""
    Xa = ar.array(X)
    return Xa if rho is None else augment(Xa, ar.scalar(rho))


def working_points(X: np.ndarray, y: np.ndarray, rho, ar: Arithmetic, normalize: bool = False):
    """``(Z, Z_verify, e)``: the rows an algorithm runs on, the rows a separator is verified on,
    and the power of two the data were scaled by (both engines; call within ``ar.context()``).

    Z = Z_data 2^-e, the reflected (augmented) points scaled at extreme scales only (w_k scales
    alike, no decision changes); with ``normalize``: X_2, rows y_i x_i / ||x_i||_2, each row
    scaled by a power of two first (exact, no overflow), and e = 0.
    """
    Z_data = reflect(_augmented(X, rho, ar), y)
    Z, e = rescale_pow2(Z_data)
    Z_verify = _exact_or(Z, e, Z_data)
    if not normalize:
        return Z, Z_verify, e
    Zs = Z_data if ar.is_mp else scale_rows_pow2(Z_data)
    return Zs / ar.sqrt(np.sum(Zs * Zs, axis=1)).reshape(-1, 1), Z_verify, 0  # X_2


def with_scale(result: Result, e: int) -> Result:
    """Record the power of two the data were scaled by (``w`` is the iterate on the scaled data,
    a positive multiple of the one on X)."""
    return result if e == 0 else replace(result, info={**result.info, "scale": f"2^{-e}"})


# -- PT11: the patterns and the schedule of runs ----------------------------------------------------


def succ_schedule(epsilon: float, eta: float) -> Tuple[float, ...]:
    """The accuracies of PDM-succ: eps_1 = 1/2, eps_{n+1} = eps_n / eta, the last clamped to
    ``epsilon``  [PT11 Sec. 4; spec B.8; erratum E-B5].  A single run if ``epsilon >= 1/2``.

    >>> succ_schedule(0.01, 8.0)
    (0.5, 0.0625, 0.01)
    """
    if epsilon >= 0.5:
        return (epsilon,)
    out = [0.5]
    while out[-1] / eta > epsilon:
        out.append(out[-1] / eta)
    out.append(epsilon)
    return tuple(out)


@dataclass(frozen=True)
class PT11Run:
    """A PT11 call, validated and prepared: what either engine runs.

    Attributes
    ----------
    name : str
        ``"pdm"``, ``"pfm"`` or ``"pdm_succ"``.
    P, P_verify : Patterns
        The patterns run on (times 2^-e at extreme scales) and those a separator is verified on
        (``P``, or the patterns before a scaling that underflowed).
    schedule : tuple
        Per run: eps_n (PDM, PDM-succ) or beta (PFM, times 2^-e as the patterns), floats.
    ar : Arithmetic
        The arithmetic of the run (``precision=``).
    info : dict
        What the Result's ``info`` gets on top of the run's own: the arguments, ``rho``,
        ``Delta``, and ``scale`` when the patterns were scaled.
    """

    name: str
    P: Patterns
    P_verify: Patterns
    schedule: tuple
    ar: Arithmetic
    active_sets: bool
    multiple_updates: bool
    max_iter: int
    max_epochs: Optional[int]
    seed: int
    trace: bool
    info: dict

    @property
    def pfm(self) -> bool:
        """Condition (7) (a fixed margin beta), else (8) (a dynamic margin)."""
        return self.name == "pfm"

    @property
    def warmup(self) -> bool:
        """Plain PDM: single updates and c_1 = 1.1 during the first epoch  [spec B.9]."""
        return self.name == "pdm"


def _schedule(name: str, args: tuple) -> Tuple[tuple, dict]:
    """The positional arguments of a PT11 call, validated: (the schedule of runs, their ``info``)."""
    if name == "pfm":
        (beta,) = args
        check_real("beta", beta, low=0, low_open=False, hint="beta = (1 - eps) gamma_d, e.g. beta=0.1")
        return (beta,), {"beta": beta}
    if name == "pdm":
        (epsilon,) = args
        check_real("epsilon", epsilon, low=0, high=1, hint="the accuracy of PDM, e.g. epsilon=0.01")
        return (epsilon,), {"epsilon": epsilon, "eps_schedule": (epsilon,)}
    epsilon, eta = args
    check_real("epsilon", epsilon, low=0, high=1, hint="the target accuracy, e.g. epsilon=0.01")
    check_real("eta", eta, low=1, hint="the ratio of successive accuracies, e.g. eta=8.0")
    schedule = succ_schedule(float(epsilon), float(eta))
    return schedule, {"epsilon": epsilon, "eta": eta, "eps_schedule": schedule}


def prepare_pt11(
    name: str,
    X,
    y,
    *args,
    rho,
    Delta,
    active_sets,
    multiple_updates,
    max_iter,
    max_epochs,
    seed,
    trace,
    precision,
    engine: str = TEXTBOOK,
) -> PT11Run:
    """Validate a call of PDM / PFM / PDM-succ (``args``: epsilon; beta; epsilon, eta), in the
    order the messages name them (the positional arguments, the engine, the data, the keywords),
    and build its patterns: dense or CSR, held implicitly, O(nnz + m)."""
    schedule, extra_info = _schedule(name, args)
    check_engine(engine, precision)
    ar = arithmetic(precision)
    P_data = make_patterns(X, y, rho=rho, Delta=Delta)
    active_sets = check_bool("active_sets", active_sets)
    multiple_updates = check_bool("multiple_updates", multiple_updates)
    trace = check_bool("trace", trace)
    max_iter = check_int("max_iter", max_iter)
    max_epochs = None if max_epochs is None else check_int("max_epochs", max_epochs)
    seed = check_int("seed", seed)
    P, e, exact = P_data, 0, True
    if not ar.is_mp:
        # float64: rho and Delta as doubles (an mpmath.mpf rho would carry mpmath arithmetic into
        # p_tk, ell_t and theta_t); extreme scales: run on the patterns times 2^-e (exact; PFM's beta alike)
        P_data = replace(P_data, **{k: None if v is None else float(v) for k, v in (("rho", P_data.rho), ("Delta", P_data.Delta))})
        P, e, exact = _rescaled(P_data)
        if e and name == "pfm":
            schedule = tuple(float(np.ldexp(float(v), -e)) for v in schedule)
    scale = {"scale": f"2^{-e}"} if e else {}
    return PT11Run(
        name=name, P=P, P_verify=P if exact else P_data, schedule=schedule, ar=ar, active_sets=active_sets,
        multiple_updates=multiple_updates, max_iter=max_iter, max_epochs=max_epochs, seed=seed, trace=trace,
        info={**extra_info, "rho": rho, "Delta": Delta, **scale},
    )  # fmt: skip


def _rescaled(P: Patterns):
    """``(P 2^-e, e, exact)``: patterns whose largest |entry| (x, rho, Delta) lies outside
    [2^-64, 2^64) scaled into [1/2, 1) by a power of two (:func:`reference.arithmetic.rescale_pow2`);
    ``exact``: no entry underflowed, so a separator of the scaled patterns is verified on them."""
    extra = [v for v in (P.rho, P.Delta) if v is not None]
    values = np.concatenate([np.asarray(P.data, dtype=np.float64), np.asarray(extra, dtype=np.float64)])
    _, e = rescale_pow2(values)
    if e == 0:
        return P, 0, True
    scaled = np.ldexp(values, -e)
    exact = bool(np.array_equal(np.ldexp(scaled, e), values))
    k = len(P.data)
    it = iter(float(v) for v in scaled[k:])
    return (
        replace(
            P,
            data=scaled[:k],
            rho=None if P.rho is None else next(it),
            Delta=None if P.Delta is None else next(it),
        ),
        e,
        exact,
    )
