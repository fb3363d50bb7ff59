"""Session 9 re-census selection (tree of main 9b632b2 = wt70).
(a) mutants of functions changed since the b471cd2 tree (wt57), not carried (same edit killed in an
    earlier tree, module-wide);
(b) the 170 survivors of re-census 2's other 888 (run against b471cd2's tests), mapped to the new tree
    by (function, edit) when their function is unchanged.
Prints names; counts on stderr."""
import os, sys, collections
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'session8'))
from recensus8 import load, edit
mod = lambda k: k.rsplit('.', 1)[0]
base = lambda k: k.rsplit('__mutmut_', 1)[0]


def setup(new, earlier):
    """Load the new tree and the earlier ones; return (fn, cn, trees, killed edits per module, changed
    functions of new since the last earlier tree)."""
    fn, cn = load(new)
    trees = [load(t) for t in earlier]
    killed = collections.defaultdict(set)
    for f, c in trees:
        for k, v in c.items():
            if v in (1, 3):
                try: killed[mod(k)].add(edit(f, k))
                except KeyError: pass
    changed = {base(k) for k in fn if k.endswith('__mutmut_orig') and trees[-1][0].get(k) != fn[k]}
    return fn, cn, trees, killed, changed


if __name__ == '__main__':
    fn, cn, trees, killed, changed = setup('/work/wt70/mutants', ['/work/wt33/mutants', '/work/wt42/mutants', '/work/wt50/mutants', '/work/wt57/mutants'])
    f57 = trees[3][0]
    sel, carried, per = set(), 0, collections.Counter()
    for k in sorted(cn):
        if base(k) not in changed: continue
        if edit(fn, k) in killed[mod(k)]: carried += 1
        else: sel.add(k); per['(a) ' + base(k)] += 1
    # (b)
    bynew = collections.defaultdict(dict)
    for k in cn:
        if base(k) not in changed:
            try: bynew[base(k)][edit(fn, k)] = k
            except KeyError: pass
    mapping = {}
    for old in open(os.path.join(HERE, '..', 'session8', 'recensus8b_rest_surv.txt')).read().split():
        b = base(old)
        if b in changed: mapping[old] = '(function changed: in (a))'; continue
        e = edit(f57, old)
        nk = bynew[b].get(e)
        mapping[old] = nk
        if nk: sel.add(nk); per['(b) ' + b] += 1
    print('\n'.join(sorted(sel)))
    print('changed since b471cd2:', len(changed), 'functions; (a) carried', carried, '; selected total', len(sel), file=sys.stderr)
    print('(b) unmapped:', [o for o, n in mapping.items() if n is None], file=sys.stderr)
    with open(os.path.join(HERE, 'map_rest170.txt'), 'w') as out:
        for o, n in mapping.items(): out.write(f'{o} {n}\n')
    for b, n in per.most_common(): print(' ', n, b, file=sys.stderr)
