"""Session 9 re-census 4: the functions of reference/ changed during session 9 (tree of main 6e578ce = wt78,
baseline the 9b632b2 tree wt70).  A mutant is carried when the same edit was killed in an earlier tree
(module-wide).  Selected mutants whose edit was argued equivalent in wt70 (recensus9_*.md) are marked."""
import os, sys, collections, re, glob
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'session8'))
from recensus8 import edit
from recensus9 import setup, mod, base
fn, cn, trees, killed, changed = setup('/work/wt78/mutants', ['/work/wt33/mutants', '/work/wt42/mutants', '/work/wt50/mutants', '/work/wt57/mutants', '/work/wt70/mutants'])
f70 = trees[-1][0]
argued = {}
for md in glob.glob(os.path.join(HERE, '..', 'recensus9_*.md')):
    for line in open(md):
        m = re.match(r'- (reference\.\S+) — (equivalent[^:]*)', line)
        if m and m.group(1) in f70:
            argued[(mod(m.group(1)), edit(f70, m.group(1)))] = (m.group(1), m.group(2), md.rsplit('/', 1)[1])
sel, carried, per = [], 0, collections.Counter()
for k in sorted(cn):
    if base(k) not in changed: continue
    e = edit(fn, k)
    if e in killed[mod(k)]: carried += 1; continue
    sel.append(k); per[base(k)] += 1
with open(os.path.join(HERE, 'sel9b_argued.txt'), 'w') as out:
    for k in sel:
        a = argued.get((mod(k), edit(fn, k)))
        if a: out.write(f'{k} {a[0]} {a[1]} {a[2]}\n')
print('\n'.join(sel))
print('changed since 9b632b2:', len(changed), sorted(changed), '; carried', carried, '; selected', len(sel), file=sys.stderr)
for b, n in per.most_common(): print(' ', n, b, file=sys.stderr)
