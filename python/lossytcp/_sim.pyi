"""The Rust engine (crate lossytcp-py). Use :func:`lossytcp.simulate` or :func:`lossytcp.run`,
which validate first."""

class Cancelled(Exception):
    """The run was stopped through its :class:`RunControl`."""

class NoProgress(RuntimeError):
    """The engine's Zeno guard ended a run that made no progress in simulated time (2^24
    events within 1 µs); :func:`lossytcp.simulate` raises it as ``NoProgressError``."""

class RunControl:
    """Shared between a run and the thread that watches it: a request to stop, and how far in
    simulated time the run has got (updated every few thousand events)."""

    def __init__(self) -> None: ...
    def cancel(self) -> None:
        """Asks the run to stop at its next poll; ``run_json`` then raises ``Cancelled``."""
    @property
    def cancelled(self) -> bool: ...
    @property
    def simulated_s(self) -> float:
        """Simulated seconds the run had reached at its last poll (its end, once done)."""

def run_json(scenario: str, control: RunControl | None = None) -> str:
    """Run one scenario given as JSON text; return the run report as JSON text.

    The scenario is ``lossytcp.build_scenario(...)`` or ``Scenario.engine()`` serialised; the
    report holds ``flows`` (one object per flow with the counters of
    :class:`lossytcp.SimReport`), ``links``, ``events`` and ``simulated_s``. Runs with the GIL
    released. On Python's main thread it looks at the signal handlers every 50 ms, so Ctrl-C
    stops it with ``KeyboardInterrupt``; elsewhere ``control.cancel()`` stops it with
    ``Cancelled``. Raises ``ValueError`` for a malformed scenario and ``NoProgress`` when the
    Zeno guard trips.
    """

def registry_json() -> str:
    """The variant registry as JSON text: ``variants`` (each with ``name``, ``engine``,
    ``summary``, ``params``, ``ns2``, ``ns3``, ``linux``, ``classifies_losses``,
    ``refuses_limited_transmit``, ``sack_blocks``) and ``params`` (each plugin parameter's
    ``name``, ``unit``, ``type``, ``default``, range, ``doc``, ``at_most``, ``ns2``, ``ns3``,
    ``variants``). Read it through :mod:`lossytcp.variants`."""

def check_json(scenario: str) -> None:
    """Check one scenario (JSON text) as :func:`run_json` does before running it (its
    structure, the engine's ranges, trace files read) without running it; ``ValueError``
    with the reason if it is refused."""

def engine_version() -> str:
    """The engine's version, part of every experiment point's key."""
