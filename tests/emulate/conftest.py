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


@pytest.fixture(scope="session")
def held():
    """Runs an emulation, once more if the machine could not give the emulator its accuracy
    (it refused the rate, or the run's accuracy did not hold: the product's right answer to
    a machine loaded by other work), and skips with the emulator's reason if that happens
    twice: these tests check the emulator's and the kernel's behaviour on runs whose
    accuracy held, never a lagging run."""
    from lossytcp.emulate import EmulatorInaccurate, EmulatorRefused

    def run(fn, *args, **kwargs):
        for _ in range(2):
            try:
                return fn(*args, **kwargs)
            except (EmulatorInaccurate, EmulatorRefused) as e:
                last = e
        pytest.skip(f"the machine is too loaded for the emulator now (twice): {last}")

    return run
