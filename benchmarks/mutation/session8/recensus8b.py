"""Session 8, re-census 2: the functions changed since the re-census-1 tree (wt50), in the tree of b471cd2
(wt57); edits matched module-wide (margin()'s body moved to _margin).  See recensus8.py."""
from recensus8 import select

select('/work/wt57/mutants', ['/work/wt33/mutants', '/work/wt42/mutants', '/work/wt50/mutants'],
       '/work/wt50/mutants', module_wide=True)
