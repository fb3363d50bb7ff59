"""Calling foreign code: loading ``MODULE:CALLABLE``, passing only the keywords it accepts, and a
timeout for implementations that do not terminate.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .answer import normalize_answer
from .case import Case, POSITIONAL, PT11, RP14_GRAM
from .report import CheckResult


TIMEOUT = 20.0  # seconds per call before an implementation is declared non-terminating


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: Optional[float]):
    """SIGALRM-based time limit in the main thread (a no-op elsewhere / on Windows)."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def handler(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _accepts(impl) -> Tuple[Optional[set], bool, int]:
    """(names of keyword-passable parameters or None = anything, has **kwargs, # positional slots)."""
    try:
        sig = inspect.signature(impl)
    except (TypeError, ValueError):
        return None, True, 99
    names, varkw, npos = set(), False, 0
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            varkw = True
        elif p.kind == p.VAR_POSITIONAL:
            npos = 99
        else:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.add(p.name)
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                npos += 1
    return names, varkw, npos


def call_impl(impl: Callable, case: Case, *, want_trace: bool = True, timeout: Optional[float] = TIMEOUT) -> Tuple[Dict[str, Any], List[CheckResult]]:
    """Call ``impl`` on ``case`` the way the reference is called; return (answer, notes).

    Only keywords the callable accepts are passed (trace, max_iter, max_epochs, rho, Delta,
    normalize).  If the case needs a keyword the callable lacks (rho != 1 or Delta for PT11) the
    answer is ``{"skip": reason}``.
    """
    names, varkw, npos = _accepts(impl)
    ok = (lambda k: varkw or names is None or k in names)
    data = (case.G,) if case.algorithm in RP14_GRAM else (case.X, case.y)
    pos = [case.args[p] for p in POSITIONAL.get(case.algorithm, ())]
    kw: Dict[str, Any] = {}
    if case.algorithm == "pdm_succ":
        eta = pos.pop()  # eta has a default: by keyword, positionally, or not at all (8 is the default)
        if ok("eta"):
            kw["eta"] = eta
        elif npos >= len(data) + 2:
            pos.append(eta)
    for k in ("normalize", "rho", "Delta"):
        if k in case.args:
            if ok(k):
                kw[k] = case.args[k]
            elif k == "Delta" and case.args[k] is not None:
                return {"skip": "the callable takes no 'Delta' (extended space)"}, []
            elif k == "rho" and case.args[k] != 1.0:
                return {"skip": f"the callable takes no 'rho' (this case asks for rho={case.args[k]!r}, not the default 1)"}, []
    if case.algorithm == "perceptron":  # the rule reaches the implementation, which is then held to it
        rule = case.args.get("rule", "cyclic")
        if ok("rule"):
            kw["rule"] = rule
        elif rule != "cyclic":
            return {"skip": f"the callable takes no 'rule' (this case asks for rule={rule!r})"}, []
    if ok("max_iter"):
        kw["max_iter"] = case.max_iter
    if case.algorithm in PT11 and ok("max_epochs"):
        kw["max_epochs"] = 10**9
    if want_trace and ok("trace"):
        kw["trace"] = True
    data = tuple(np.copy(d) for d in data)  # the callable may not modify our arrays
    if "csr" in case.flags:  # the same case with X as scipy CSR (as reference.load_libsvm returns data sets)
        import scipy.sparse as sp

        data = (sp.csr_matrix(data[0]),) + data[1:]
    pos = [np.copy(v) if isinstance(v, np.ndarray) else v for v in pos]
    try:
        with _time_limit(timeout):
            out = impl(*data, *pos, **kw)
    except _Timeout:
        return {"error": f"no answer within {timeout:g} s (non-termination? it must stop at max_iter={case.max_iter})", "timeout": True}, []
    except Exception as exc:  # noqa: BLE001 -- any crash of the implementation is a finding
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{type(exc).__name__}: {exc} (at {Path(tb.filename).name}:{tb.lineno})"
        refuses = isinstance(exc, ValueError) or (isinstance(exc, TypeError) and "csr" in case.flags)
        if refuses and edge_flags(case):  # it refuses an edge case (or sparse input): reported apart from wrong answers
            return {"refused": where}, []
        return {"error": where}, []
    ans = normalize_answer(out)
    ans["rule_passed"] = kw.get("rule")
    ans["max_iter_passed"] = "max_iter" in kw
    ans["max_epochs_passed"] = "max_epochs" in kw
    return ans, []


# flags that only describe how a case is run, not a class of input an implementation may refuse
RUN_FLAGS = ("pt11", "budget", "extended", "crossing", "q_simplex", "deep")


def edge_flags(case: Case) -> tuple:
    """The edge-case classes of ``case`` (n1, d1, duplicates, ...), without the run flags."""
    return tuple(f for f in case.flags if f not in RUN_FLAGS)


def _name_of(impl) -> str:
    f = getattr(impl, "func", impl)  # functools.partial
    mod = getattr(f, "__module__", None) or "?"
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__
    extra = ""
    if f is not impl and getattr(impl, "keywords", None):
        extra = "(" + ", ".join(f"{k}={v!r}" for k, v in impl.keywords.items()) + ")"
    return f"{mod}:{name}{extra}"


def load_callable(spec: str) -> Callable:
    """``package.module:callable`` or ``path/to/file.py:callable`` (dots in the callable name
    walk attributes)."""
    if ":" not in spec:
        raise ValueError(f"expected MODULE:CALLABLE, got {spec!r}")
    mod_name, attr = spec.rsplit(":", 1)
    if mod_name.endswith(".py") or "/" in mod_name:
        path = Path(mod_name)
        if not path.is_file():
            raise ValueError(f"{mod_name} does not exist")
        # a private module name: a file called numpy.py must not replace the real numpy
        name = f"_margins_validate_{path.stem}"
        sp = importlib.util.spec_from_file_location(name, path)
        if sp is None or sp.loader is None:
            raise ValueError(f"{mod_name} is not a Python source file")
        module = importlib.util.module_from_spec(sp)
        sys.modules[name] = module
        try:
            sp.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 -- the user's file failed to import
            del sys.modules[name]
            raise ValueError(f"importing {mod_name} failed: {type(exc).__name__}: {exc}") from None
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(mod_name)
        except ImportError as exc:
            raise ValueError(f"cannot import {mod_name!r}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{mod_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"{spec} is not callable")
    return obj
