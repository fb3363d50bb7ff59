"""Hand-rolled mutation run over the numba kernels (mutmut 3 does not mutate decorated functions, so
reference/fast/rp14_kernels.py and pt11_kernels.py have 0 mutmut mutants).  Operators as mutmut's:
comparison / arithmetic / boolean operator swaps and +-1 on integer literals, on code lines only.
Usage (in a scratch worktree with a venv that imports ITS reference/):
  python benchmarks/mutation/kernel_mut.py N_PER_FILE SEED [OUT.json]
prints one line per mutant; writes the results as JSON only to OUT.json when given."""
import json, random, re, subprocess, sys, time
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
n, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed); todo = []
for f in ['reference/fast/rp14_kernels.py', 'reference/fast/pt11_kernels.py']:
    s = sites(f); todo += rng.sample(s, min(n, len(s))); print(f, 'sites', len(s))
res = []
for path, i, col, a, b in todo:
    orig = open(path).read(); L = orig.split('\n'); line = L[i]
    L[i] = line[:col] + b + line[col + len(a):]
    open(path, 'w').write('\n'.join(L))
    t = time.time()
    try:
        r = subprocess.run([sys.executable, '-m', 'pytest', '-x', '-q', '-p', 'no:randomly', '-p', 'no:cacheprovider',
                            'tests/test_fast_engine.py', 'tests/test_mutation_kills_fast.py'], capture_output=True, text=True, timeout=600)
        status = 'killed' if r.returncode != 0 else 'survived'
        first = next((l for l in r.stdout.splitlines() if l.startswith('FAILED')), '')
    except subprocess.TimeoutExpired:
        status, first = 'timeout', ''
    finally:
        open(path, 'w').write(orig)
    res.append(dict(file=path, line=i + 1, before=line.strip(), after=L[i].strip(), status=status, failed=first, seconds=round(time.time() - t, 1)))
    print(status, path, i + 1, repr(a), '->', repr(b), round(time.time() - t, 1), first[:100], flush=True)
    if len(sys.argv) > 3: json.dump(res, open(sys.argv[3], 'w'), indent=1)
print(sum(r['status'] != 'survived' for r in res), 'of', len(res), 'killed')
