"""A fingerprint of what the ten algorithms return on the built-in suite, in both engines.

    python benchmarks/fingerprint.py [--out FILE.json] [--digest]

For every instance of :func:`theorems.instances.suite.builtin_suite` and every algorithm (the
PT11 ones also with active sets and multiple updates), in the textbook and the compiled engine,
at a fixed budget: the status, the counter, a SHA-256 of the bytes of w / alpha / p, the
message and the info keys; and the certified margin of each instance's G.  Two checkouts that
print the same digest return the same results bit for bit on this corpus -- how a change that
should not change behaviour (a module moved, a kernel made faster) is shown not to.  Nothing is
written unless ``--out`` is given.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys

import numpy as np

import reference
from reference.algorithms import SPECS
from theorems.instances.suite import builtin_suite

#: The arguments after the data, per algorithm (SNKPVN's q is the centre of the simplex).
ARGS = {
    "nvn": dict(epsilon=1e-3),
    "isnkpvn": dict(gamma=2.0, epsilon=1e-3),
    "pfm": dict(beta=0.1),
    "pdm": dict(epsilon=0.1),
    "pdm_succ": dict(epsilon=0.1, eta=8.0),
}
BUDGET = 2000


def _h(v) -> str | None:
    return None if v is None else hashlib.sha256(np.asarray(v, dtype=float).tobytes()).hexdigest()[:16]


def _fingerprint(r) -> dict:
    return dict(
        status=r.status,
        iterations=int(r.iterations),
        w=_h(getattr(r, "w", None)),
        alpha=_h(getattr(r, "alpha", None)),
        p=_h(getattr(r, "p", None)),
        message=str(r.message),
        info=sorted((k, str(v)) for k, v in (r.info or {}).items()),
    )


def fingerprints() -> dict:
    """``{"instance|algorithm|engine|options": fingerprint}`` over the built-in suite."""
    engines = ("textbook", "fast") if importlib.util.find_spec("numba") else ("textbook",)
    out = {}
    for inst in builtin_suite():
        G = inst.G
        m = reference.margin(G)
        out[f"{inst.name}|margin"] = [repr(m.lower), repr(m.upper)]
        for name, spec in SPECS.items():
            if spec.data != "gram" and inst.kernel != "linear":
                continue
            fn = getattr(reference, name)
            kw = dict(q=np.full(G.shape[0], 1.0 / G.shape[0]), delta=0.25) if name == "snkpvn" else dict(ARGS.get(name, {}))
            options = [{}] if spec.data != "patterns" else [{}, dict(active_sets=True, multiple_updates=True)]
            for engine in engines:
                for extra in options:
                    key = f"{inst.name}|{name}|{engine}|{','.join(sorted(extra))}"
                    try:
                        data = (G,) if spec.data == "gram" else (inst.X, inst.y)
                        out[key] = _fingerprint(fn(*data, **kw, **extra, max_iter=BUDGET, engine=engine))
                    except ValueError as exc:  # an instance an algorithm refuses: the refusal is part of the fingerprint
                        out[key] = f"ValueError: {exc}"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="write the fingerprints as JSON to this file")
    ap.add_argument("--digest", action="store_true", help="print only the SHA-256 of the JSON")
    args = ap.parse_args(argv)
    text = json.dumps(fingerprints(), indent=0, sort_keys=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    digest = hashlib.sha256(text.encode()).hexdigest()
    print(digest if args.digest else f"{len(json.loads(text))} results, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
