"""Run ns-2 on generated scripts and read its results back under the engine's metric names.

How each metric is obtained from ns-2 (no packet trace needed):

* ``packets_sent`` = the sender's ``ndatapack_``; ``retransmissions`` = ``nrexmitpack_``.
* ``timeouts`` = ``nrexmit_`` (tcp.cc counts one per retransmission-timer expiry that cuts
  the window, backed-off expiries included, as the engine does).
* ``fast_retransmits`` = ``ncwndcuts_ - nrexmit_``: ``slowdown()`` counts every window cut,
  and a bulk sender is never idle, so the cuts are the timeouts plus the fast retransmits.
* ``channel_losses`` and ``packets_received``: counted by the channel model itself (every
  packet reaching the end of the link is decided by it), see :mod:`lossytcp.ns2._tcl`.
* ``packets_delivered`` = the sink's ``bytes_`` (bytes delivered in order) / packet size,
  unwrapped past 2^31 bytes.
* ``queue_drops`` = the data queue monitor's ``pdrops_``.
* spurious timeouts and fast retransmits, and undos (ns-2 2.35's agents undo nothing): not
  observable from ns-2's counters (NaN).
* Vegas: its fast retransmissions do not go through ``slowdown()`` (tcp-vegas.cc cuts the
  window itself), so ``ncwndcuts_`` counts its timeouts only and ``fast_retransmits``,
  ``loss_events`` and ``timeout_fraction`` are not observable (NaN).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..sim import (
    RACK_METRICS,
    REORDERING_METRICS,
    TLP_METRICS,
    UNDO_METRICS,
    RunMetrics,
    SeedSummary,
)
from .script import PROGRESS_TAG, RESULT_TAG, Ns2Script, build_script, with_progress

__all__ = [
    "NS2_INSTALL", "Ns2Error", "Ns2NotInstalled", "Ns2Report", "Ns2Summary",
    "compare_send_traces", "fates_channel", "fates_file", "find_ns", "first_divergence",
    "parse_link_fates", "parse_result", "run_drops", "run_ns", "run_script", "run_seeds",
    "simulate_ns2",
]

NS2_INSTALL = "sudo apt-get install ns2   (Debian/Ubuntu package of ns-2 2.35)"

#: Metrics ns-2 cannot give: reported as NaN and never judged.
NOT_OBSERVABLE = ("spurious_timeouts", "spurious_fast_retransmits", "completion_time_s",
                  *UNDO_METRICS, *TLP_METRICS, *RACK_METRICS, *REORDERING_METRICS)
#: ... and those it cannot give for some variants.
NOT_OBSERVABLE_FOR = {"vegas": ("fast_retransmits", "loss_events", "timeout_fraction")}


class Ns2NotInstalled(RuntimeError):
    def __init__(self, exe: str = "ns") -> None:
        super().__init__(f"ns-2 executable '{exe}' not found on PATH; install it with: "
                         f"{NS2_INSTALL}")


class Ns2Error(RuntimeError):
    """ns-2 ran but failed or printed no result."""


def find_ns(exe: str | None = None) -> str:
    """Path of the ns-2 binary (``$LOSSYTCP_NS`` or ``ns`` on PATH), or Ns2NotInstalled."""
    name = exe or os.environ.get("LOSSYTCP_NS", "ns")
    path = shutil.which(name)
    if path is None:
        raise Ns2NotInstalled(name)
    return path


@dataclass(frozen=True)
class Ns2Report(RunMetrics):
    """One ns-2 run, with the engine's metric names."""

    variant: str
    seed: int
    packets_sent: int
    retransmissions: int
    channel_losses: int
    ack_channel_losses: int
    queue_drops: int
    packets_received: int
    packets_delivered: int
    timeouts: int
    fast_retransmits: int
    elapsed_s: float
    capacity_pps: float
    final_cwnd: float
    final_ssthresh: float
    wall_s: float = math.nan
    peak_rss_bytes: int = 0
    raw: dict[str, float] = field(default_factory=dict, repr=False)

    def metric(self, name: str) -> float:
        if name in NOT_OBSERVABLE or name in NOT_OBSERVABLE_FOR.get(self.variant, ()):
            return math.nan
        x = getattr(self, name)
        return math.nan if x is None else float(x)


def _delivered(raw: dict[str, float], size: int) -> int:
    """Packets delivered in order, from the sink's ``bytes_``: a C int that wraps past 2 GiB
    (a long fast run), unwrapped with the sender's cumulative ACK, which trails the true
    count by less than a window (far less than the 4 GiB between wraps)."""
    wrapped = int(raw["sink_bytes"]) % 2**32
    approx = (int(raw["ack"]) + 1) * size
    k = round((approx - wrapped) / 2**32)
    return (wrapped + k * 2**32) // size


def parse_result(stdout: str, script: Ns2Script) -> Ns2Report:
    """Read the script's result line."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith(RESULT_TAG)), None)
    if line is None:
        raise Ns2Error(f"ns-2 printed no '{RESULT_TAG}' line; its output was:\n{stdout[-2000:]}")
    tok = line.split()[1:]
    raw = {k: float(v) for k, v in zip(tok[::2], tok[1::2], strict=True)}
    size = script.packet_size_bytes
    return Ns2Report(
        variant=script.variant, seed=script.seed,
        packets_sent=int(raw["ndatapack"]), retransmissions=int(raw["nrexmitpack"]),
        channel_losses=int(raw["lost"]), ack_channel_losses=int(raw["ack_lost"]),
        queue_drops=int(raw["qdrops"]), packets_received=int(raw["passed"]),
        packets_delivered=_delivered(raw, size),
        timeouts=int(raw["nrexmit"]), fast_retransmits=int(raw["ncwndcuts"] - raw["nrexmit"]),
        elapsed_s=script.duration_s, capacity_pps=script.capacity_pps,
        final_cwnd=raw["cwnd"], final_ssthresh=raw["ssthresh"], raw=raw,
    )


def run_script(script: Ns2Script, *, ns: str | None = None, workdir: str | Path | None = None,
               keep_script: str | Path | None = None, timeout_s: float | None = None,
               on_time: Callable[[float], None] | None = None,
               ) -> tuple[Ns2Report, str]:
    """Run one generated script; returns the report and ns-2's stdout.

    Wall time of the ns-2 process and its peak resident memory (:func:`run_ns`);
    ``on_time(t)``: called with ns-2's simulated time as the run goes (about every 1% of it).
    """
    exe = find_ns(ns)
    tmp = tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") if workdir is None else None
    wd = Path(tmp.name if tmp else workdir)  # type: ignore[arg-type]
    try:
        path = Path(keep_script) if keep_script else wd / f"{script.variant}-{script.seed}.tcl"
        path.write_text(script.text if on_time is None
                        else with_progress(script.text, script.duration_s))
        stdout, wall, hwm = run_ns(exe, path, wd, timeout_s=timeout_s, on_time=on_time)
        rep = parse_result(stdout, script)
        rep = _with(rep, wall_s=wall, peak_rss_bytes=hwm)
        return rep, stdout
    finally:
        if tmp is not None:
            tmp.cleanup()


#: prctl(2) option: the signal a process gets when its parent thread dies.
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> Callable[[], None]:
    """A ``preexec_fn`` making ns-2 die (SIGKILL) with the process that started it, even
    when that one is killed outright; the parent's death before the prctl is caught by the
    parent check. Resolved before the fork: the child only calls into libc."""
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):   # not Linux: the process group kill still applies
        return lambda: None

    def child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return child


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the ns-2 process group (ns-2 is its leader) and reap the leader."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(proc.pid, 0)
    except ChildProcessError:
        pass


def run_ns(exe: str, script: Path, cwd: Path, *, timeout_s: float | None = None,
           on_time: Callable[[float], None] | None = None) -> tuple[str, float, int]:
    """Run ``ns script`` in ``cwd``; returns (its stdout and stderr, wall time, peak RSS).

    No ns-2 process outlives the call: ns-2 runs as the leader of its own process group,
    which is killed whatever ends the wait (Ctrl-C, SIGTERM turned into an exception, a
    timeout, an error), and it dies with this process if this one is killed outright
    (``PR_SET_PDEATHSIG``). Its own group also keeps a terminal's Ctrl-C from reaching it
    half-way through writing: this process decides when it stops.

    Peak memory is ns-2's VmHWM polled until it exits (``ru_maxrss`` would include this
    Python process's RSS, which Linux carries into a child's high-water mark across fork and
    exec). ``on_time``: called with the latest ``LOSSYTCP-T <time>`` line the script printed
    (:data:`~lossytcp.ns2.script.PROGRESS_TAG`), as the run goes.
    """
    out_path = cwd / f"{script.stem}.out"
    t0 = time.perf_counter()
    with open(out_path, "w") as out:
        proc = subprocess.Popen([exe, str(script)], stdout=out, stderr=subprocess.STDOUT,
                                cwd=cwd, start_new_session=True,
                                preexec_fn=_die_with_parent(os.getpid()))
        try:
            hwm = 0
            read_at = 0
            last_poll = t0
            while True:
                pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    break
                hwm = max(hwm, _hwm_bytes(proc.pid))
                now = time.perf_counter()
                if timeout_s is not None and now - t0 > timeout_s:
                    raise Ns2Error(f"ns-2 did not finish within {timeout_s} s ({script})")
                if on_time is not None and now - last_poll > 0.2:
                    last_poll = now
                    read_at = _report_time(out_path, read_at, PROGRESS_TAG, on_time)
                time.sleep(0.005)
        except BaseException:
            _kill_group(proc)
            proc.returncode = -9
            raise
    wall = time.perf_counter() - t0
    if on_time is not None:
        _report_time(out_path, read_at, PROGRESS_TAG, on_time)
    stdout = out_path.read_text(errors="replace")
    if proc.returncode != 0:
        raise Ns2Error(f"ns-2 exited with {proc.returncode} on {script}:\n{stdout[-2000:]}")
    return stdout, wall, hwm


def _report_time(path: Path, offset: int, tag: str, on_time: Callable[[float], None]) -> int:
    """Reads ``path`` from ``offset``; calls ``on_time`` with the last complete progress line;
    returns the offset of the first byte not read as a whole line."""
    with open(path, "rb") as f:
        f.seek(offset)
        chunk = f.read()
    end = chunk.rfind(b"\n")
    if end < 0:
        return offset
    last = None
    for ln in chunk[:end].split(b"\n"):
        if ln.startswith(tag.encode()):
            last = ln
    if last is not None:
        try:
            on_time(float(last.split()[1]))
        except (IndexError, ValueError):
            pass
    return offset + end + 1


def _hwm_bytes(pid: int) -> int:
    """VmHWM of a live process, 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for ln in f:
                if ln.startswith("VmHWM:"):
                    return int(ln.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _with(rep: Ns2Report, **kw: Any) -> Ns2Report:
    from dataclasses import replace

    return replace(rep, **kw)


def simulate_ns2(variant: str = "newreno", *, ns: str | None = None,
                 keep_script: str | Path | None = None, **kwargs: Any) -> Ns2Report:
    """The ns-2 twin of :func:`lossytcp.simulate` for one seed."""
    ch = kwargs.get("channel", "none")
    if isinstance(ch, str) and ch.strip().lower().startswith("drops"):
        return run_drops(variant, ns=ns, keep_script=keep_script, **kwargs)[0]
    return run_script(build_script(variant, **kwargs), ns=ns, keep_script=keep_script)[0]


@dataclass(frozen=True)
class Ns2Summary(SeedSummary):
    """ns-2 runs of one scenario over several seeds, with the engine's statistics (metrics
    ns-2 cannot observe are NaN)."""

    reports: tuple[Ns2Report, ...]  # type: ignore[assignment]


def run_seeds(seeds: int | Iterable[int] = 5, variant: str = "newreno", *,
              ns: str | None = None, keep_script: str | Path | None = None,
              **kwargs: Any) -> Ns2Summary:
    """ns-2 for each seed, one process after the other (the machine's cores are shared)."""
    if isinstance(seeds, int):
        if seeds < 1:
            raise ParameterError("seeds", seeds, "must be >= 1")
        seed_list: Sequence[int] = range(1, seeds + 1)
    else:
        seed_list = list(seeds)
    kwargs.pop("seed", None)
    reports = []
    for i, s in enumerate(seed_list):
        keep = None
        if keep_script is not None:
            k = Path(keep_script)
            keep = k if i == 0 else k.with_name(f"{k.stem}-seed{s}{k.suffix}")
        reports.append(simulate_ns2(variant, ns=ns, keep_script=keep, seed=s, **kwargs))
    return Ns2Summary(tuple(reports))


def parse_send_trace(text: str) -> list[tuple[float, int, bool]]:
    """Sender's transmissions from a ``trace-queue`` file of the data link: the ``+``
    (enqueue) events of tcp packets, with a retransmission flag (seq seen before)."""
    out: list[tuple[float, int, bool]] = []
    highest = -1
    for ln in text.splitlines():
        f = ln.split()
        if len(f) < 12 or f[0] != "+" or f[4] != "tcp":
            continue
        seq = int(f[10])
        out.append((float(f[1]), seq, seq <= highest))
        highest = max(highest, seq)
    return out


def parse_link_fates(text: str) -> list[tuple[float, int, bool]]:
    """Every data packet that started transmission on the traced link (its ``-`` event),
    with its start time, segment number and whether the channel lost it (no ``r`` event:
    the channel model sits before the receive trace, see :mod:`lossytcp.ns2._tcl`)."""
    starts: dict[int, tuple[float, int]] = {}
    received: set[int] = set()
    for ln in text.splitlines():
        f = ln.split()
        if len(f) < 12 or f[4] != "tcp":
            continue
        if f[0] == "-":
            starts[int(f[11])] = (float(f[1]), int(f[10]))
        elif f[0] == "r":
            received.add(int(f[11]))
    return [(t, seq, uid not in received) for uid, (t, seq) in sorted(starts.items(),
                                                                      key=lambda kv: kv[1][0])]


def fates_file(fates: list[bool], path: Path) -> Path:
    """Per-transmission fates (True: lost) written for the engine's ``trace:`` channel."""
    # past ns-2's last transmission the engine has diverged anyway; the trace channel needs
    # at least one outcome
    path.write_text("".join("1\n" if x else "0\n" for x in fates) or "0\n")
    return path


def fates_channel(fates: list[bool], wd: Path) -> str:
    """The engine's ``trace:`` channel replaying ns-2's per-transmission fates (True: lost),
    written to ``wd``/fates.txt."""
    return f"trace:file={fates_file(fates, wd / 'fates.txt')}"


def first_divergence(ref: list, eng: list) -> int | None:
    """Index of the first send (time, seq, retransmission) where two send traces differ
    (times within 1 us), the shorter one's length if one is a prefix, None if equal."""
    for i, (a, b) in enumerate(zip(ref, eng, strict=False)):
        if a[1] != b[1] or a[2] != b[2] or abs(a[0] - b[0]) > 1e-6:
            return i
    return None if len(ref) == len(eng) else min(len(ref), len(eng))


def compare_send_traces(variant: str = "newreno", *, context: int = 6,
                        agent_settings: dict[str, Any] | None = None, **kwargs: Any,
                        ) -> dict[str, Any]:
    """Where the engine's sender first does something other than ns-2's on one scenario.

    Runs both with send traces (the engine with ``profile='ns2'`` unless ``profile`` is
    given) and returns the first index at which the segment, the retransmission flag or the
    time (beyond 1 us) differ, with ``context`` sends on each side of it; ``index`` is None
    when the traces agree over the whole run. Both sides see the same losses: a
    ``drops:...`` channel is placed in ns-2's packet stream (:func:`run_drops`); any other
    channel runs in ns-2, and its fate for every transmission (read from ns-2's link trace)
    is replayed in the engine through a ``trace:`` channel, so that what is compared is the
    sender, never two draws of the channel.
    """
    from ..sim import simulate

    kwargs.setdefault("profile", "ns2")
    ns_kw = {k: v for k, v in kwargs.items() if k != "profile"}
    ch = ns_kw.get("channel", "none")
    if str(kwargs.get("ack_channel", "none")).strip().lower() != "none":
        raise ParameterError("ack_channel", kwargs["ack_channel"], "compare_send_traces "
                             "replays the data channel's losses only: use a lossless ACK path")
    with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
        if isinstance(ch, str) and ch.strip().lower().startswith("drops"):
            _, ref = run_drops(variant, agent_settings=agent_settings, **ns_kw)
            engine_kw = kwargs
            replayed = None
        else:
            tr = Path(wd) / "link.tr"
            run_script(build_script(variant, trace_file=str(tr), agent_settings=agent_settings,
                                    **ns_kw), workdir=wd)
            text = tr.read_text()
            ref = parse_send_trace(text)
            fates = [lost for _, _, lost in parse_link_fates(text)]
            engine_kw = {**kwargs, "channel": fates_channel(fates, Path(wd))}
            replayed = sum(fates)
        engine = [tuple(x) for x in simulate(variant, trace_sends=True, **engine_kw).send_trace]
    index = first_divergence(ref, engine)
    lo = 0 if index is None else max(0, index - context)
    hi = 0 if index is None else index + context
    return {"index": index, "ns2_sends": len(ref), "engine_sends": len(engine),
            "ns2": ref[lo:hi], "engine": engine[lo:hi], "from": lo,
            "replayed_losses": replayed}


def run_drops(variant: str = "newreno", *, ns: str | None = None,
              agent_settings: dict[str, Any] | None = None,
              keep_script: str | Path | None = None, **kwargs: Any,
              ) -> tuple[Ns2Report, list[tuple[float, int, bool]]]:
    """A run with ``channel='drops:seq=...'`` and its send trace (``keep_script``: where to
    keep the last script, the one with every drop in place).

    The engine drops the first k transmissions of a listed segment; ns-2's error model sees
    only a stream of packets. The positions are found one at a time: with the drops found so
    far in place, run ns-2, find the next listed transmission's position in the send trace,
    add it. Drops later in the stream cannot change what came before, so each position is
    final once found (one ns-2 run per listed drop, plus the last).
    """
    from ..spec import parse_channel

    ch = parse_channel(kwargs.pop("channel"), "channel")
    if ch["kind"] != "drops":
        raise ParameterError("channel", ch["kind"], "run_drops needs a 'drops:seq=...' channel")
    wanted = list(ch["seqs"])  # sorted; repeats mean later transmissions of the same segment
    counts: list[int] = []
    with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
        trace_path = Path(wd) / "link.tr"
        for step in range(len(wanted) + 1):
            sc = build_script(variant, channel="drops:seq=0", drop_counts=counts,
                              trace_file=str(trace_path), agent_settings=agent_settings,
                              **kwargs)
            last = step == len(wanted)
            rep, _ = run_script(sc, ns=ns, workdir=wd, keep_script=keep_script if last else None)
            trace = parse_send_trace(trace_path.read_text())
            if last:
                return rep, trace
            seq = wanted[step]
            nth = wanted[:step].count(seq)  # this is the (nth+1)-th transmission of seq
            seen = 0
            pos = None
            for i, (_, s, _) in enumerate(trace):
                if s == seq:
                    if seen == nth:
                        pos = i
                        break
                    seen += 1
            if pos is None:
                raise ParameterError("channel.seq", seq, "segment is not sent that often "
                                     "within duration_s")
            counts.append(pos)
    raise AssertionError("unreachable")
