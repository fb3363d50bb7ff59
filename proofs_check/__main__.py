"""Command line: ``python -m proofs_check [--json] [--verbose] [--only PREFIX]``.

Prints one line per proof step: paper, equation, ``holds``/``fails``, whether that matches the
expectation (steps wrong as printed are expected to fail), and how it was shown.  Exit code 0 iff
every step matches its expectation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import all_steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs_check", description=__doc__)
    ap.add_argument("--json", action="store_true", help="print a JSON list instead of text lines")
    ap.add_argument("--verbose", "-v", action="store_true", help="also print the detail of each step")
    ap.add_argument("--only", default="", help="run only steps whose id starts with this prefix")
    args = ap.parse_args(argv)

    t_start = time.perf_counter()
    rows = []
    for st in all_steps():
        if args.only and not st.id.startswith(args.only):
            continue
        t0 = time.perf_counter()
        res = st.run()
        dt = time.perf_counter() - t0
        rows.append(dict(id=st.id, paper=st.paper, equation=st.equation, statement=st.description,
                         outcome="holds" if res.holds else "fails", expected="holds" if st.expected else "fails",
                         matches=res.holds == st.expected, method=res.method, detail=res.detail,
                         corrected=st.corrected, seconds=round(dt, 3)))
        if not args.json:
            r = rows[-1]
            tag = "ok  " if r["matches"] else "MISMATCH"
            extra = " (wrong as printed)" if not st.expected else ""
            print(f"{r['paper']:5} {r['id']:38} {r['equation'][:46]:46} {r['outcome']:5} [{tag}]{extra}  via {r['method']}")
            if args.verbose or not r["matches"]:
                print(f"      {r['detail']}")
            if st.corrected and not res.holds:
                print(f"      corrected: {st.corrected}")
            sys.stdout.flush()
    total = time.perf_counter() - t_start
    bad = [r for r in rows if not r["matches"]]
    if args.json:
        print(json.dumps(dict(steps=rows, total_seconds=round(total, 2), mismatches=len(bad)), indent=1))
    else:
        n_hold = sum(r["outcome"] == "holds" for r in rows)
        print(f"\n{len(rows)} steps: {n_hold} hold, {len(rows) - n_hold} fail "
              f"({sum(not st for st in [r['expected'] == 'holds' for r in rows])} expected to fail as printed); "
              f"{len(bad)} mismatch(es); {total:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
