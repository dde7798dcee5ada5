"""Shared by the whole suite.

This folder is importable from the tests below it (pytest puts a conftest's folder on
sys.path), for helpers shared across folders: :mod:`cli_in_process`.

Hypothesis profiles: ``make test`` (and CI) must not fail at random: by default every property
test draws the same examples on every run and machine (``derandomize``: the examples follow
from a hash of the test's source, for a given Hypothesis version) and keeps no example
database. To hunt for new counterexamples, run with ``HYPOTHESIS_PROFILE=explore`` (fresh
random examples, failures remembered in .hypothesis/); pin what it finds with ``@example`` so
that the default run checks it from then on.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
