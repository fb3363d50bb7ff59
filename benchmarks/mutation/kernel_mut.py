"""Hand-rolled mutation run over the numba kernels (mutmut 3 does not mutate decorated functions, so
reference/fast/rp14_kernels.py and pt11_kernels.py have 0 mutmut mutants).  Operators as mutmut's:
comparison / arithmetic / boolean operator swaps and +-1 on integer literals, on code lines only.
Usage (in a scratch worktree with a venv that imports ITS reference/):
  python benchmarks/mutation/kernel_mut.py N_PER_FILE SEED [OUT.json]
      [--since REV] [--pooled] [--tests PYTEST_ARG ...]
prints one line per mutant; writes the results as JSON only to OUT.json when given.
--since REV: only sites on the lines of the kernel files that differ from commit REV (the lines
  `git diff -U0 REV -- FILE` marks as added, numbered as in the working tree).
--pooled: N is the size of one seeded sample from the sites of both files together (all of them if
  there are at most N), not a per-file count.
--tests: the pytest arguments (files or node ids) each mutant is run against; default
  tests/test_fast_engine.py tests/test_mutation_kills_fast.py (the session-5 run)."""
import argparse, json, random, re, subprocess, sys, time
SWAP = [(' <= ', ' < '), (' < ', ' <= '), (' >= ', ' > '), (' > ', ' >= '), (' == ', ' != '), (' != ', ' == '),
        (' + ', ' - '), (' - ', ' + '), (' * ', ' / '), (' / ', ' * '), (' and ', ' or '), (' or ', ' and '),
        ('+= ', '-= '), ('-= ', '+= ')]
def sites(path):
    out = []; in_doc = False
    for i, line in enumerate(open(path).read().split('\n')):
        if line.count('"""') % 2:  # a docstring opens or closes on this line
            in_doc = not in_doc; continue
        if in_doc: continue
        code = line.split('#')[0]
        if not code.strip() or code.lstrip().startswith(('def ', '@', 'import', 'from', '"""')) or '"' in code: continue
        for a, b in SWAP:
            for m in re.finditer(re.escape(a), code):
                out.append((path, i, m.start(), a, b))
        for m in re.finditer(r'(?<![\w.])(\d+)(?![\w.])', code):
            out.append((path, i, m.start(), m.group(1), str(int(m.group(1)) + 1)))
    return out
def changed_lines(path, rev):
    """Line numbers (0-based) of the working tree's `path` that `git diff -U0 rev` marks as added."""
    diff = subprocess.run(['git', 'diff', '-U0', rev, '--', path], capture_output=True, text=True, check=True).stdout
    out = set()
    for m in re.finditer(r'^@@ -\S+ \+(\d+)(?:,(\d+))? @@', diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        out.update(range(start - 1, start - 1 + count))
    return out
ap = argparse.ArgumentParser()
ap.add_argument('n', type=int); ap.add_argument('seed', type=int); ap.add_argument('out', nargs='?')
ap.add_argument('--since'); ap.add_argument('--pooled', action='store_true')
ap.add_argument('--tests', nargs='+', default=['tests/test_fast_engine.py', 'tests/test_mutation_kills_fast.py'])
args = ap.parse_args()
n = args.n
rng = random.Random(args.seed); todo = []; pool = []
for f in ['reference/fast/rp14_kernels.py', 'reference/fast/pt11_kernels.py']:
    s = sites(f)
    if args.since:
        keep = changed_lines(f, args.since); s = [x for x in s if x[1] in keep]
    print(f, 'sites', len(s))
    if args.pooled: pool += s
    else: todo += rng.sample(s, min(n, len(s)))
if args.pooled:
    todo = rng.sample(pool, min(n, len(pool))); print('pooled sample', len(todo), 'of', len(pool))
res = []
for path, i, col, a, b in todo:
    orig = open(path).read(); L = orig.split('\n'); line = L[i]
    L[i] = line[:col] + b + line[col + len(a):]
    open(path, 'w').write('\n'.join(L))
    t = time.time()
    try:
        r = subprocess.run([sys.executable, '-m', 'pytest', '-x', '-q', '-p', 'no:randomly', '-p', 'no:cacheprovider',
                            *args.tests], capture_output=True, text=True, timeout=600)
        status = 'killed' if r.returncode != 0 else 'survived'
        first = next((l for l in r.stdout.splitlines() if l.startswith('FAILED')), '')
    except subprocess.TimeoutExpired:
        status, first = 'timeout', ''
    finally:
        open(path, 'w').write(orig)
    res.append(dict(file=path, line=i + 1, before=line.strip(), after=L[i].strip(), status=status, failed=first, seconds=round(time.time() - t, 1)))
    print(status, path, i + 1, repr(a), '->', repr(b), round(time.time() - t, 1), first[:100], flush=True)
    if args.out: json.dump(res, open(args.out, 'w'), indent=1)
print(sum(r['status'] != 'survived' for r in res), 'of', len(res), 'killed')
