"""Helpers shared by several test files."""

from __future__ import annotations

import numpy as np

import reference
from theorems import pt11
from theorems.instances import Instance


XOR_ = Instance("xor", np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]), np.array([1, 1, -1, -1]))


XOR = XOR_


INST = pt11.planted_pt11(n=10, d=3, gamma=0.2, seed=1)


REAL_PDM, REAL_PFM = reference.pdm, reference.pfm
