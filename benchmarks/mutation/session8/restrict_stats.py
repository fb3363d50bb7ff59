import json, sys, shutil
p = sys.argv[1]; lim = float(sys.argv[2])
shutil.copy(p, p + '.full')
d = json.load(open(p))
dur = d['duration_by_test']
d['tests_by_mangled_function_name'] = {k: [t for t in v if dur.get(t, 1e9) < lim] for k, v in d['tests_by_mangled_function_name'].items()}
json.dump(d, open(p, 'w'))
print(len(dur), 'tests;', sum(1 for t in dur.values() if t < lim), 'under', lim)
