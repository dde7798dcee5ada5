"""The Rust engine (crate lossytcp-py). Use :func:`lossytcp.simulate`, which validates first."""

def run_json(scenario: str) -> str:
    """Run one scenario given as JSON text; return the run report as JSON text.

    The scenario is ``lossytcp.build_scenario(...)`` serialised; the report holds ``flows`` (one
    object per flow with the counters of :class:`lossytcp.SimReport`), ``links``, ``events`` and
    ``simulated_s``. Runs with the GIL released. Raises ``ValueError`` for a malformed scenario.
    """

def engine_version() -> str:
    """The engine's version, part of every experiment point's key."""
