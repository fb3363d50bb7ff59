"""PLACEHOLDER (being written): PT11."""
def pfm(*a, **k): raise NotImplementedError
def pdm(*a, **k): raise NotImplementedError
def pdm_succ(*a, **k): raise NotImplementedError
