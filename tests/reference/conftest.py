"""The reference tests need the engine, never ns-2: skip only when the extension is absent."""

from __future__ import annotations

import pytest

try:
    from lossytcp import _sim  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the build
    pytest.skip(f"lossytcp._sim not built ({e}); run `make build`", allow_module_level=True)
