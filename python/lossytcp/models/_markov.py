"""Stationary distributions of finite Markov chains, shared by the Markov-chain models."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg


def stationary_distribution(P: np.ndarray | scipy.sparse.spmatrix) -> np.ndarray:
    """Solve pi P = pi, sum(pi) = 1 for a row-stochastic matrix with one recurrent class.

    Replaces one balance equation by the normalisation, which is well-posed exactly when the
    chain has a single recurrent class (transient states get probability 0).
    """
    n = P.shape[0]
    if scipy.sparse.issparse(P):
        A = (P.T - scipy.sparse.identity(n, format="csr")).tolil()
        A[0, :] = np.ones(n)
        b = np.zeros(n)
        b[0] = 1.0
        pi = scipy.sparse.linalg.spsolve(A.tocsc(), b)
    else:
        A = np.asarray(P, dtype=float).T - np.eye(n)
        A[0, :] = 1.0
        b = np.zeros(n)
        b[0] = 1.0
        pi = scipy.linalg.solve(A, b)
    pi = np.clip(np.real(pi), 0.0, None)
    return pi / pi.sum()
