"""The BLAS threads of the library's own kernels: bounded.

The statistics run many small matrix operations (the groups' sums, Newton steps of the
Bradley-Terry fits, the rank-sets' simulated contrasts), where a BLAS library's worker threads
cost more in start-up and synchronisation than they save, and they compete with the
workflow's own parallel jobs (``--cores``) for the same cores. :func:`bounded_blas` runs a
function with the BLAS libraries loaded in the process (OpenBLAS, MKL, BLIS) limited to
:func:`blas_threads` threads (default 1; the environment variable ``DEBIAS_BLAS_THREADS``
sets another number), and restores their setting afterwards. With one thread a kernel also
adds its terms in the same order on any machine, whatever its number of cores.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["BLAS_THREADS", "blas_threads", "bounded_blas"]

#: The BLAS threads of the library's kernels unless ``DEBIAS_BLAS_THREADS`` says otherwise.
BLAS_THREADS = 1

F = TypeVar("F", bound=Callable)


def blas_threads() -> int:
    """The BLAS threads the library's kernels run with: ``DEBIAS_BLAS_THREADS`` (a whole number
    of at least 1) or :data:`BLAS_THREADS`."""
    given = os.environ.get("DEBIAS_BLAS_THREADS", "").strip()
    if not given:
        return BLAS_THREADS
    try:
        value = int(given)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"DEBIAS_BLAS_THREADS must be a whole number of at least 1, got {given!r}")
    return value


def bounded_blas(function: F) -> F:
    """``function`` run with the process's BLAS libraries limited to :func:`blas_threads` threads."""

    @functools.wraps(function)
    def bounded(*args, **kwargs):
        if getattr(_STATE, "inside", False):  # an outer call has bounded them already
            return function(*args, **kwargs)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=blas_threads(), user_api="blas"):
            _STATE.inside = True
            try:
                return function(*args, **kwargs)
            finally:
                _STATE.inside = False

    return bounded  # type: ignore[return-value]


#: Per thread, whether a bounded call is running: the calls inside it (e.g. every estimator's
#: rank-sets inside a leaderboard) do not look the libraries up again (some milliseconds each).
_STATE = threading.local()
