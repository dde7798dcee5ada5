"""Stationary distributions of finite Markov chains, shared by the Markov-chain models."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg


def _balance(PT, r: int, row: np.ndarray):
    """The balance equations pi (P - I) = 0 as a sparse system A pi = b, equation ``r``
    replaced by ``row . pi = 1``."""
    n = PT.shape[0]
    A = (PT - scipy.sparse.identity(n, format="csr")).tolil()
    A[r, :] = row
    b = np.zeros(n)
    b[r] = 1.0
    return A.tocsc(), b


def _iterative(P: scipy.sparse.csr_matrix) -> np.ndarray | None:
    """pi P = pi by GMRES with an incomplete-LU preconditioner, or None if it does not converge.

    The normalisation row of the direct solve is dense and ruins the factor's sparsity, so one
    balance equation is replaced by pi_r = 1 instead, r a state that keeps the most mass after
    a few hundred steps from the uniform law (recurrent: a transient state's mass decays). The
    answer is kept only if it balances to 1e-10 and has no negative mass."""
    n = P.shape[0]
    PT = P.T.tocsr()
    x = np.full(n, 1.0 / n)
    for _ in range(200):
        x = PT @ x
    r = int(np.argmax(x))
    row = np.zeros(n)
    row[r] = 1.0
    A, b = _balance(PT, r, row)
    try:
        ilu = scipy.sparse.linalg.spilu(A, drop_tol=1e-2, fill_factor=3)
        pre = scipy.sparse.linalg.LinearOperator(A.shape, ilu.solve)
        pi, info = scipy.sparse.linalg.gmres(A, b, M=pre, rtol=1e-13, atol=0.0, restart=100,
                                             maxiter=50)
    except RuntimeError:  # a singular factor: r was not recurrent after all
        return None
    if info != 0 or not np.all(np.isfinite(pi)) or pi.min() < -1e-12 * pi.max():
        return None
    pi = np.clip(pi, 0.0, None) / pi.sum()
    if np.abs(PT @ pi - pi).max() > 1e-10 * pi.max():
        return None
    return pi


def stationary_distribution(P: np.ndarray | scipy.sparse.spmatrix,
                            iterative: bool = False) -> np.ndarray:
    """Solve pi P = pi, sum(pi) = 1 for a row-stochastic matrix with one recurrent class.

    ``iterative``: try preconditioned GMRES first (``_iterative``), for large sparse chains
    whose direct LU fills in far beyond the matrix itself (the abrupt-RTT model's split
    bursts); the direct solve remains the fallback.

    Replaces one balance equation by the normalisation, which is well-posed exactly when the
    chain has a single recurrent class (transient states get probability 0).
    """
    n = P.shape[0]
    if scipy.sparse.issparse(P) and iterative:
        pi = _iterative(scipy.sparse.csr_matrix(P))
        if pi is not None:
            return pi
    if scipy.sparse.issparse(P):
        pi = scipy.sparse.linalg.spsolve(*_balance(P.T, 0, np.ones(n)))
    else:
        A = np.asarray(P, dtype=float).T - np.eye(n)
        A[0, :] = 1.0
        b = np.zeros(n)
        b[0] = 1.0
        pi = scipy.linalg.solve(A, b)
    pi = np.clip(np.real(pi), 0.0, None)
    return pi / pi.sum()
