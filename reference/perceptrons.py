"""PLACEHOLDER (being written): RP14 Alg. 1-3."""
def perceptron(*a, **k): raise NotImplementedError
def normalized_perceptron(*a, **k): raise NotImplementedError
def nkp(*a, **k): raise NotImplementedError
