"""Session 8 re-census selection: mutants of reference/ functions whose text changed since the
ee6882a census tree (wt33), in the tree of current main (wt50).  A mutant is carried (not rerun) when
the same edit (original lines -> mutated lines) of the same function was killed in the wt33 census or
in the 8a8246e re-census tree (wt42).  Prints the selected names; counts on stderr."""
import re, json, glob, os, sys, difflib, collections
def load(root):
    funcs, codes = {}, {}
    for f in glob.glob(root + '/reference/**/*.py', recursive=True):
        mod = os.path.relpath(f, root)[:-3].replace('/', '.')
        src = open(f).read()
        for m in re.finditer(r'^(?:    )?def (x\S*?__mutmut_\w+)\(.*?(?=^[^\s)]|^    def |\Z)', src, re.M | re.S):
            funcs[mod + '.' + m.group(1)] = m.group(0)
        meta = f + '.meta'
        if os.path.exists(meta):
            codes.update(json.load(open(meta))['exit_code_by_key'])
    return funcs, codes
def edit(funcs, name):
    base = name.rsplit('__mutmut_', 1)[0]
    o = funcs[base + '__mutmut_orig'].splitlines()[1:]
    m = funcs[name].splitlines()[1:]
    sm = difflib.SequenceMatcher(None, o, m, autojunk=False)
    return tuple((tuple(o[i1:i2]), tuple(m[j1:j2])) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != 'equal')
def select(new_tree, earlier_trees, baseline_tree, module_wide=False):
    """Print the mutants of new_tree's functions changed since baseline_tree that are not carried: a
    mutant is carried when the same edit was killed in one of earlier_trees (in the same function, or
    anywhere in the same module when module_wide)."""
    key = (lambda k: k.rsplit('.', 1)[0]) if module_wide else (lambda k: k.rsplit('__mutmut_', 1)[0])
    fn, cn = load(new_tree)
    trees = [load(t) for t in earlier_trees]
    killed = collections.defaultdict(set)
    for f, c in trees:
        for k, v in c.items():
            if v not in (1, 3): continue
            try: killed[key(k)].add(edit(f, k))
            except KeyError: pass
    fb = trees[earlier_trees.index(baseline_tree)][0]
    changed = {k.rsplit('__mutmut_', 1)[0] for k in fn if k.endswith('__mutmut_orig') and fb.get(k) != fn[k]}
    sel, carried, per = [], 0, collections.Counter()
    for k in sorted(cn):
        base = k.rsplit('__mutmut_', 1)[0]
        if base not in changed: continue
        if edit(fn, k) in killed[key(k)]: carried += 1
        else: sel.append(k); per[base] += 1
    print('\n'.join(sel))
    print('changed functions', len(changed), 'mutants', carried + len(sel), 'carried', carried, 'selected', len(sel), file=sys.stderr)
    for b, n in per.most_common(): print(' ', n, b, file=sys.stderr)


if __name__ == '__main__':
    select(sys.argv[1] if len(sys.argv) > 1 else '/work/wt50/mutants',
           ['/work/wt33/mutants', '/work/wt42/mutants'], '/work/wt33/mutants')
