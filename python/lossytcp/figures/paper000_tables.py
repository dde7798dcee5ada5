"""Paper 000 (Anjum & Tassiulas 2003), Tables I-III: exact event traces, reproduced by the
engine and printed beside the paper's, row by row, with every difference named.

* Table I: a NewReno cycle. Packets 15-18 lost from a window of 8; the third duplicate ACK
  starts fast recovery, one lost packet is retransmitted per RTT; the next cycle starts with
  23-26 and loses 29, 30 and 31, too few duplicate ACKs follow, and a timeout ends it.
* Table II: Tahoe when packets 15-19 are lost, "taking three RTTs to recover the lost packets".
* Table III: NewReno's fast recovery of the same losses, "taking five RTTs".

The setting (the tables give only the packet numbers and windows): one 10 Mb/s link, 50 ms
each way, 1000 B packets, an advertised window of 8 (the W of the tables' first row), an
initial window of 1, the ACK for 14 arriving with 15-22 outstanding; ns-2's agents
(``profile="ns2"``, as the paper's simulations) without ns-2 2.35's later additions (limited
transmit, delayed growth, partial window deflation, growth on the ACK ending recovery: the
NewReno of the paper's time); a minimum RTO of 1 s, so that no timer expires during the
recoveries. The first transmission of each listed packet is lost (``drops:`` channel).

Reading the engine's run: the send trace and the window trace (each change of cwnd and
ssthresh) are recorded; the ACK arrivals are reconstructed from the sends (one ACK per
delivered packet, in order, on the FIFO link: the k-th delivered packet leaves the sender's
link ``max(sent, previous departure) + 0.8 ms`` after it was sent, its ACK is back one RTT
and one ACK transmission later) and checked against the run: every send that is not a
retransmission by the timer and every window change falls on a reconstructed arrival (to the
nanosecond), else the entry refuses to print a trace it cannot vouch for.

The paper's columns: "Pkt Recd info in ack" is the cumulative acknowledgement (the highest
packet received in order; the engine numbers the next one expected, one more), "Ack" (or
"Ack for pkt") the packet whose arrival triggered the ACK, omega the slow-start threshold, W
the window ("4.." the paper's mark for a fraction above 4), "Pkt sent" what the ACK releases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import Figure, register, title_of
from .claims import FAILS, HOLDS, ClaimResult

RATE_BPS, ONE_WAY_S, SIZE_BYTES, ACK_BYTES = 10e6, 0.05, 1000, 40
SETUP = dict(rate_bps=RATE_BPS, rtt_s=2 * ONE_WAY_S, packet_size_bytes=SIZE_BYTES, window=8,
             initial_window=1, profile="ns2", limited_transmit=False, delay_growth=False,
             partial_window_deflation=False, recovery_exit_growth=False, min_rto_s=1.0,
             initial_rto_s=3.0, duration_s=100.0, trace_sends=True, trace_window=True)


@dataclass(frozen=True)
class Row:
    """One row of a table: the paper's text and what it says, structured."""

    text: tuple[str, str, str, str, str]     # the five columns as printed
    kind: str = "ack"                        # "ack", "timeout" (a retransmission by the timer)
    #                                          or "note" (a marker row, not an event)
    cum: int | None = None                   # cumulative acknowledgement (paper's numbering)
    trigger: int | None = None               # the packet that triggered the ACK
    omega: int | None = None                 # None: "-" or not given
    omega_assumed: bool = False              # "5(say)"
    w: float | None = None
    w_fraction: bool = False                 # "4..": a fraction above w
    sent: tuple[int, ...] = ()


def _ack(cum, trig, omega, w, sent, text, frac=False, assumed=False):
    return Row(text, "ack", cum, trig, omega, assumed, w, frac, tuple(sent))


TABLE_I = (
    _ack(14, 14, 5, 8, [22], ("14", "14", "5(say)", "8", "22"), assumed=True),
    _ack(14, 19, 5, 8, [], ("14 I D.A.", "19", "5", "8", "(pkt 15-18 lost)"), assumed=True),
    _ack(14, 20, 5, 8, [], ("14 II D.A.", "20", "5", "8", "-"), assumed=True),
    _ack(14, 21, 4, 7, [15], ("14 III D.A.(II stage)", "21", "4", "7", "15")),
    _ack(14, 22, 4, 8, [], ("14 IV D.A", "22", "4", "8", "")),
    _ack(15, 15, 4, 4, [16], ("15", "15", "4", "4", "16")),
    _ack(16, 16, 4, 4, [17], ("16", "16", "4", "4", "17")),
    _ack(17, 17, 4, 4, [18], ("17", "17", "4", "4", "18")),
    _ack(22, 18, 4, 4, [23, 24, 25, 26], ("22(New cycle, I train)", "18", "4", "4",
                                          "23,24,25,26")),
    _ack(23, 23, 4, 4, [27], ("23(II train)", "23", "4", "4..", "27"), frac=True),
    _ack(24, 24, 4, 4, [28], ("24", "24", "4", "4..", "28"), frac=True),
    _ack(25, 25, 4, 4, [29], ("25", "25", "4", "4..", "29(lost)"), frac=True),
    _ack(26, 26, 4, 5, [30, 31], ("26", "26", "4", "5", "30 (lost),31(lost)")),
    _ack(27, 27, 4, 5, [32], ("27(III train)", "27", "4", "5..", "32"), frac=True),
    _ack(28, 28, 4, 5, [33], ("28", "28", "4", "5..", "33"), frac=True),
    Row(("Timeout(III Stage)", "", "", "", ""), "note"),
    _ack(28, 32, 4, 5, [], ("28(I D.A.)", "32", "4", "5...", "-"), frac=True),
    _ack(28, 33, 4, 5, [], ("28(II D.A.)", "33", "4", "5..", "-"), frac=True),
    Row(("New cycle", "-", "2", "1", "29"), "timeout", omega=2, w=1, sent=(29,)),
)
TABLE_II = (
    _ack(14, 14, None, 8, [22], ("14", "14", "-", "8", "22")),
    _ack(14, 20, None, 8, [], ("14 I dup ack", "20", "-", "8", "-")),
    _ack(14, 21, None, 8, [], ("14 II dup ack", "21", "-", "8", "-")),
    _ack(14, 22, 4, 1, [15], ("14 III dup ack", "22", "4", "1", "15")),
    _ack(15, 15, 4, 2, [16, 17], ("15", "15", "4", "2", "16,17")),
    _ack(16, 16, 4, 3, [18, 19], ("16", "16", "4", "3", "18,19")),
    _ack(17, 17, 4, 4, [20, 21], ("17", "17", "4", "4", "20,21")),
    _ack(18, 18, 4, 4.25, [22], ("18", "18", "4", "4.25", "22")),
    _ack(22, 19, 4, 4.5, [23, 24, 25, 26], ("22", "19", "4", "4.5", "23,24,25,26")),
)
TABLE_III = (
    _ack(14, 14, None, 8, [22], ("14", "14", "-", "8", "22")),
    _ack(14, 20, None, 8, [], ("14 I dup ack", "20", "-", "8", "-")),
    _ack(14, 21, None, 8, [], ("14 II dup ack", "21", "-", "8", "-")),
    _ack(14, 22, 4, 7, [15], ("14 III dup ack", "22", "4", "7", "15")),
    _ack(15, 15, 4, 4, [16], ("15 (Partial ack)", "15", "4", "4", "16")),
    _ack(16, 16, 4, 4, [17], ("16 (Par ack)", "16", "4", "4", "17")),
    _ack(17, 17, 4, 4, [18], ("17 (Par ack)", "17", "4", "4", "18")),
    _ack(18, 18, 4, 4, [19], ("18 (Par ack)", "18", "4", "4", "19")),
    _ack(22, 19, 4, 4, [23, 24, 25, 26], ("22 (Par ack)", "19", "4", "4", "23,24,25,26")),
)
COLUMNS = ("Pkt info in ack", "Ack for pkt", "omega", "W", "Pkt sent")


@dataclass(frozen=True)
class Table:
    id: str
    number: str
    caption: str
    variant: str
    drops: tuple[int, ...]
    packets: int
    rows: tuple[Row, ...]


TABLES = (
    Table("paper000-table1", "I", "TCP NewReno cycle", "newreno", (15, 16, 17, 18, 29, 30, 31),
          60, TABLE_I),
    Table("paper000-table2", "II", "Evolution of Tahoe when packets 15-19 are lost, taking "
          "three RTTs to recover the lost packets", "tahoe", (15, 16, 17, 18, 19), 40, TABLE_II),
    Table("paper000-table3", "III", "Fast recovery for NewReno when packets 15-19 (inclusive) "
          "are lost, taking five RTTs to recover the lost packets", "newreno",
          (15, 16, 17, 18, 19), 40, TABLE_III),
)


# ------------------------------------------------------------------------ the engine's run
@dataclass(frozen=True)
class Event:
    t: float
    kind: str                 # "ack" or "timeout"
    cum: int | None           # paper's numbering (highest in order), None for a timeout
    trigger: int | None
    omega: float
    w: float
    sent: tuple[int, ...]
    retransmitted: tuple[bool, ...]


def engine_events(table: Table, **setup) -> tuple[list[Event], object]:
    """The engine's run of ``table`` as events (ACK arrivals reconstructed and checked, see
    the module docstring; timer retransmissions) and the run itself; ``setup`` overrides
    :data:`SETUP` (a control run)."""
    import lossytcp

    r = lossytcp.simulate(table.variant, channel="drops:seq=" + "+".join(map(str, table.drops)),
                          transfer_bytes=table.packets * SIZE_BYTES, **{**SETUP, **setup})
    sends = [(float(t), int(s), bool(rx)) for t, s, rx in r.send_trace]
    win = [(float(x[0]), float(x[1]), float(x[2])) for x in r.window_trace]
    tx = SIZE_BYTES * 8 / RATE_BPS
    ack_tx = ACK_BYTES * 8 / RATE_BPS
    first_lost = set(table.drops)
    seen: set[int] = set()
    depart = -math.inf
    arrivals = []                       # (time the ACK is back, trigger, cumulative)
    received: set[int] = set()
    nxt = 0
    for t, s, _rx in sends:
        depart = max(t, depart) + tx
        lost = s in first_lost and s not in seen
        seen.add(s)
        if lost:
            continue
        received.add(s)
        while nxt in received:
            nxt += 1
        arrivals.append((depart + 2 * ONE_WAY_S + ack_tx, s, nxt - 1))
    arrivals.sort()

    def state(t):
        w = [x for x in win if x[0] <= t + 1e-9]
        return (w[-1][2], w[-1][1]) if w else (math.nan, math.nan)

    events = []
    used = set()
    for ta, trig, cum in arrivals:
        at = [i for i, (t, *_) in enumerate(sends) if abs(t - ta) < 1e-9]
        used.update(at)
        om, w = state(ta)
        events.append(Event(ta, "ack", cum, trig, om, w, tuple(sends[i][1] for i in at),
                            tuple(sends[i][2] for i in at)))
    # sends on no ACK: the first packet, and retransmissions by the timer
    for i, (t, _s, _rx) in enumerate(sends):
        if i in used or t == 0.0:
            continue
        if any(e.kind == "timeout" and abs(e.t - t) < 1e-9 for e in events):
            continue
        at = [j for j, x in enumerate(sends) if abs(x[0] - t) < 1e-9]
        om, w = state(t)
        events.append(Event(t, "timeout", None, None, om, w, tuple(sends[j][1] for j in at),
                            tuple(sends[j][2] for j in at)))
    events.sort(key=lambda e: e.t)
    # the reconstruction's check: every window change on an event
    stray = [x for x in win if x[0] > 0 and not any(abs(e.t - x[0]) < 1e-9 for e in events)]
    if stray or any(e.kind == "timeout" and not all(e.retransmitted[:1]) for e in events):
        raise RuntimeError(f"{table.id}: the reconstructed ACK arrivals do not explain the "
                           f"run (window changes off every event: {stray[:3]})")
    return events, r


# ------------------------------------------------------------------------ the comparison
@dataclass
class Compared:
    paper: Row
    engine: Event | None
    differences: list[str]


def _fmt_w(w: float) -> str:
    return f"{w:.4g}"


def compare(table: Table, events: list[Event]) -> tuple[list[Compared], list[Event]]:
    """Each paper row beside the engine's event for the same ACK (same cumulative
    acknowledgement and trigger) or the same timer expiry, with the differences in omega, W
    and the packets sent named; and the engine's events that no row shows."""
    out: list[Compared] = []
    matched: set[int] = set()
    start = next(i for i, e in enumerate(events) if e.kind == "ack" and e.cum == table.rows[0].cum
                 and e.trigger == table.rows[0].trigger)
    for row in table.rows:
        if row.kind == "note":
            out.append(Compared(row, None, []))
            continue
        idx = next((i for i, e in enumerate(events) if i >= start and i not in matched and (
            (row.kind == "ack" and e.kind == "ack" and e.cum == row.cum
             and e.trigger == row.trigger) or (row.kind == "timeout" and e.kind == "timeout"))),
            None)
        if idx is None:
            out.append(Compared(row, None, ["no such event in the engine's run"]))
            continue
        matched.add(idx)
        e = events[idx]
        diff = []
        if row.omega is not None and abs(e.omega - row.omega) > 1e-9:
            why = (" (the paper's value is assumed, '5(say)': the engine's slow start left "
                   "ssthresh at the initial value, the window cap 8)" if row.omega_assumed
                   else "")
            diff.append(f"omega {row.omega} vs {_fmt_w(e.omega)}{why}")
        if row.w is not None:
            if row.w_fraction:
                ok = math.floor(e.w + 1e-9) == row.w and e.w > row.w - 1e-9
            elif row.w != int(row.w):
                ok = abs(e.w - row.w) < 0.05       # the paper rounds (4.5 for 4.49)
            else:
                # the window in use: cwnd above the advertised window 8 sends as 8
                ok = abs(min(e.w, SETUP["window"]) - row.w) < 1e-9
            if not ok:
                why = ""
                if not row.w_fraction and row.w == int(row.w) and abs(e.w - row.w) < 1:
                    why = (" (the paper adds one packet per round in congestion avoidance; "
                           "the engine, as ns-2, 1/cwnd per ACK: 4 + 1/4 + 1/4.25 + ... after "
                           "four ACKs)")
                diff.append(f"W {row.text[3]} vs {_fmt_w(e.w)}{why}")
        if tuple(row.sent) != tuple(e.sent):
            after_w = any(d.startswith("W ") for c in out for d in c.differences) or any(
                d.startswith("W ") for d in diff)
            diff.append(f"sent {','.join(map(str, row.sent)) or '-'} vs "
                        f"{','.join(map(str, e.sent)) or '-'}"
                        + (" (follows from the window difference: a packet goes one ACK "
                           "later)" if after_w else ""))
        out.append(Compared(row, e, diff))
    last = max(matched) if matched else start
    extra = [e for i, e in enumerate(events) if start <= i <= last and i not in matched]
    return out, extra


def _engine_cols(e: Event | None) -> tuple[str, ...]:
    if e is None:
        return ("", "", "", "", "")
    if e.kind == "timeout":
        return (f"timeout at {e.t:.4f} s", "-", _fmt_w(e.omega), _fmt_w(e.w),
                ",".join(map(str, e.sent)))
    return (str(e.cum), str(e.trigger), _fmt_w(e.omega), _fmt_w(e.w),
            ",".join(map(str, e.sent)) or "-")


def text_table(table: Table, rows: list[Compared], extra: list[Event]) -> str:
    """The side-by-side table as plain text (the CLI prints it, the report and the CSV hold
    it)."""
    head = ("paper: " + " | ".join(COLUMNS), "engine: " + " | ".join(COLUMNS))
    lines = [f"Table {table.number}: {table.caption}", f"{head[0]:<62} {head[1]}"]
    for c in rows:
        p = " | ".join(c.paper.text)
        en = " | ".join(_engine_cols(c.engine))
        lines.append(f"{p:<62} {en}")
        for d in c.differences:
            lines.append(f"    difference: {d}")
    for e in extra:
        lines.append(f"{'(no row in the paper)':<62} {' | '.join(_engine_cols(e))}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- claims
def rounds_after(r, seq: int, rtt: float = 2 * ONE_WAY_S) -> list[list[tuple[int, bool]]]:
    """Sends grouped in rounds (gaps below a quarter RTT) from the first retransmission of
    ``seq``."""
    t0 = next(t for t, s, rx in r.send_trace if s == seq and rx)
    out: list[list[tuple[int, bool]]] = []
    last = None
    for t, s, rx in r.send_trace:
        if t < t0 - 1e-9:
            continue
        if last is None or t - last >= rtt / 4:
            out.append([])
        out[-1].append((int(s), bool(rx)))
        last = t
    return out


def _recovery_claims(table: Table, r, lost: tuple[int, ...], want_rtts: int, words: str):
    rounds = rounds_after(r, lost[0])
    done = next(i + 1 for i in range(len(rounds)) if set(lost) <= {
        s for rd in rounds[:i + 1] for s, _ in rd})
    v = HOLDS if done == want_rtts else FAILS
    txt = ("rounds from the fast retransmit: " + " | ".join(
        ",".join(str(s) for s, _ in rd) for rd in rounds[:want_rtts + 1])
        + f"; packets {lost[0]}-{lost[-1]} all retransmitted by round {done}")
    c1 = ClaimResult(table.id, words, "simulation", v, txt, True,
                     why="" if v == HOLDS else f"{done} rounds, not {want_rtts}",
                     reading=f"the lost packets all sent again within {want_rtts} RTTs of the "
                             "fast retransmit (a round: sends closer than a quarter RTT)")
    # "Tahoe is able to send 14 packets not present at the receiver during these five RTTs
    # while NewReno is able to send only five": distinct packets sent in the first five rounds
    # that had not arrived before the fast retransmit
    t0 = next(t for t, s, rx in r.send_trace if s == lost[0] and rx)
    before = {s for t, s, _ in r.send_trace if t < t0 - 1e-9} - set(table.drops)
    new = len({s for rd in rounds[:5] for s, _ in rd} - before)
    want = 14 if table.variant == "tahoe" else 5
    v2 = HOLDS if new == want else FAILS
    c2 = ClaimResult(table.id, "Packets not at the receiver sent in five RTTs: Tahoe 14, "
                     "NewReno 5", "simulation", v2, f"{table.variant}: {new} in the first five "
                     "rounds from the fast retransmit", True,
                     why="" if v2 == HOLDS else f"{new}, the paper says {want}",
                     reading="'Tahoe is able to send 14 packets not present at the receiver "
                             "during these five RTTs while NewReno is able to send only five'")
    return [c1, c2]


def _exit_growth_control(table: Table, rows: list[Compared]) -> str:
    """Control of Table I's differences: the same losses with ns-2 2.35's growth on the ACK
    that ends fast recovery (the one setting of :data:`SETUP` that ns-2's NewReno cannot turn
    off; ns-2 itself sends exactly this run's packets on these losses, and the same from the
    fast retransmit on with the paper's assumed omega 5: tests/figures/test_paper000.py).
    With it the packets sent are the paper's at every row and the window differs where the
    paper's W needs one packet per round; without it (Table III's W of 4 after recovery,
    which Table I's row 22 repeats) the window of 5 comes one ACK late."""
    events, _ = engine_events(table, recovery_exit_growth=True)
    ctl, extra = compare(table, events)
    sent = [c for c in ctl if any(d.startswith("sent ") for d in c.differences)]
    w = [(c.paper.text[0], d.split(" (")[0]) for c in ctl for d in c.differences
         if d.startswith("W ")]
    base_w = {c.paper.text[0]: c.engine.w for c in rows if c.engine is not None}
    ctl_w = {c.paper.text[0]: c.engine.w for c in ctl if c.engine is not None}
    key = next(c.paper.text[0] for c in rows if any(d.startswith("W ") for d in c.differences))
    return (f"control, the same losses with ns-2 2.35's growth on the ACK that ends fast "
            f"recovery (ns-2's own run on them sends the same packets at the same times, and "
            f"the same again from the fast retransmit on with the paper's omega 5: "
            f"tests/figures/test_paper000.py): W at row '{key}' {_fmt_w(ctl_w[key])} "
            f"(without it {_fmt_w(base_w[key])}), packets sent the paper's at "
            f"{len(ctl) - len(sent) - sum(c.paper.kind == 'note' for c in ctl)} of "
            f"{sum(c.paper.kind != 'note' for c in ctl)} rows"
            + (f" ({len(extra)} engine event(s) no row shows)" if extra else "")
            + "; its W differences: " + ("; ".join(f"row '{a}': {d}" for a, d in w) or "none")
            + ": the paper's W (4 on the ACK ending recovery, 5 four ACKs later) is one packet "
              "per round, which neither setting of ns-2's 1/cwnd per ACK gives at both rows")


def table_claims(table: Table):
    def fn(data):
        events, r = engine_events(table)
        rows, extra = compare(table, events)
        diffs = [(c.paper.text[0], d) for c in rows for d in c.differences]
        v = HOLDS if not diffs and not extra else FAILS
        detail = text_table(table, rows, extra)
        why = ""
        if v != HOLDS:
            why = "; ".join(f"row '{a}': {d}" for a, d in diffs) + (
                f"; {len(extra)} event(s) of the engine no row shows" if extra else "")
            if table.number == "I":
                why += " | " + _exit_growth_control(table, rows)
        out = [ClaimResult(table.id, f"The engine's event trace is Table {table.number}'s, row "
                           "by row", "simulation", v, detail, True, why=why,
                           reading="every row's cumulative ACK, triggering packet, omega, W "
                                   "(a fraction above the paper's 'N..'; its 4.5 to 0.05) and "
                                   "packets sent the same; every engine event in the span "
                                   "shown",
                           short=f"{len(rows)} rows, {len(diffs)} differences"
                           + (f", {len(extra)} events not in the paper" if extra else ""))]
        if table.number == "II":
            out += _recovery_claims(table, r, table.drops, 3, "Tahoe recovers packets 15-19 in "
                                    "three RTTs")
        elif table.number == "III":
            out += _recovery_claims(table, r, table.drops, 5, "NewReno recovers packets 15-19 "
                                    "in five RTTs, one retransmission per RTT")
        else:
            rounds = rounds_after(r, 15)
            one_per = [rd for rd in rounds[:4]]
            ok = [[s for s, _ in rd] for rd in one_per] == [[15], [16], [17], [18]]
            to = r.timeouts == 1 and any(s == 29 and rx for _t, s, rx in r.send_trace)
            v = HOLDS if ok and to else FAILS
            out.append(ClaimResult(
                table.id, "NewReno recovers 15-18 one per RTT; the cycle losing 29-31 ends in "
                "a timeout", "simulation", v, "rounds from the fast retransmit: " + " | ".join(
                    ",".join(str(s) for s, _ in rd) for rd in rounds[:5])
                + f"; timeouts {r.timeouts}, fast retransmits {r.fast_retransmits}", True,
                why="" if v == HOLDS else "the rounds or the timeout differ",
                reading="'all the lost packets are recovered by retransmitting only one lost "
                        "packet per RTT' and 'Because of the lack of enough duplicate acks, "
                        "this cycle ends with the third stage of a timeout'"))
        return out
    return fn


def _draw(table: Table):
    def draw_fn(data, stem):
        import csv

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from ..plots import save_figure

        events, _ = engine_events(table)
        rows, extra = compare(table, events)
        txt = stem.parent / f"{table.id}.txt"
        txt.write_text(text_table(table, rows, extra) + "\n")
        path_csv = stem.parent / f"{table.id}.csv"
        with open(path_csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow([f"paper {c}" for c in COLUMNS] + [f"engine {c}" for c in COLUMNS]
                       + ["engine time (s)", "differences"])
            for c in rows:
                w.writerow(list(c.paper.text) + list(_engine_cols(c.engine))
                           + ["" if c.engine is None else f"{c.engine.t:.6f}",
                              "; ".join(c.differences)])
            for e in extra:
                w.writerow([""] * 5 + list(_engine_cols(e)) + [f"{e.t:.6f}", "not in the "
                                                                               "paper"])
        cells, colors = [], []
        for c in rows:
            cells.append(list(c.paper.text) + list(_engine_cols(c.engine)))
            bad = "#f8d7da" if c.differences else "white"
            colors.append(["white"] * 5 + [bad] * 5)
        for e in extra:
            cells.append([""] * 5 + list(_engine_cols(e)))
            colors.append(["white"] * 5 + ["#fff3cd"] * 5)
        fig, ax = plt.subplots(figsize=(14, 0.34 * len(cells) + 1.6))
        ax.axis("off")
        tb = ax.table(cellText=cells, cellColours=colors, loc="upper center",
                      colLabels=[f"paper: {c}" for c in COLUMNS] + [f"engine: {c}"
                                                                    for c in COLUMNS])
        tb.auto_set_font_size(False)
        tb.set_fontsize(9)
        tb.scale(1, 1.25)
        ax.set_title(title_of(data) + "\n(red: a difference, named in the claims; yellow: an "
                     "event of the engine no row shows)", fontsize=11)
        files = save_figure(fig, stem)
        plt.close(fig)
        return files + [txt, path_csv]
    return draw_fn


for _t in TABLES:
    register(Figure(
        _t.id, "000", f"Table {_t.number}: {_t.caption}", "table",
        f"exact event trace, the engine's beside the paper's ({_t.variant}, packets "
        f"{'-'.join(map(str, _t.drops[:1]))}... lost)", lambda q: [], table_claims(_t),
        draw_fn=_draw(_t), extra={"no_engine": True, "table": True},
        notes="10 Mb/s, 50 ms each way, 1000 B, advertised window 8, ns-2's agents without "
              "2.35's later additions, minimum RTO 1 s; the first transmission of each listed "
              "packet lost."))
