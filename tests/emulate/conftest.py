"""The emulator's tests need root, /dev/net/tun and network namespaces; elsewhere they skip
with the reason the emulator gives (lossytcp.emulate.emulator_status)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def emulator() -> None:
    from lossytcp.emulate import emulator_status

    ok, why = emulator_status()
    if not ok:
        pytest.skip(f"the link emulator cannot run here: {why}")
