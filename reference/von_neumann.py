"""PLACEHOLDER (being written): RP14 Alg. 5."""
def nvn(*a, **k): raise NotImplementedError
