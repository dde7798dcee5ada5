"""ns-2 2.35 runs on random channels, kept so that the engine can replay the same losses
(the reference of test_replays.py).

For every variant and every channel kind of the grid (and both paths for two channels), one
ns-2 run with its defaults, seed 1, 30 simulated seconds: its channel's fate for every data
transmission, in order (read from its link trace), and its send trace, kept as one SHA-256
digest per block of ``BLOCK`` sends (times rounded to the microsecond), so that the data
stays small and a failing test still says in which block the first difference lies.
``lossytcp.ns2.compare_send_traces(variant, **kwargs, seed=1)`` shows it send by send.

    python tests/reference/make_replays.py      (needs ns on PATH)
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from make_reference import CHANNELS as GRID_CHANNELS  # noqa: E402
from make_reference import PATHS, TIMERS, VARIANTS  # noqa: E402

from lossytcp.ns2.run import parse_link_fates, parse_send_trace, run_script  # noqa: E402
from lossytcp.ns2.script import build_script  # noqa: E402

OUT = HERE / "replays.json"
BLOCK = 256
DURATION_S = 30.0
#: The grid's channels but the lightest, and Gilbert-Elliott stepped per transmission.
CHANNELS = {**{k: v for k, v in GRID_CHANNELS.items() if k != "bern-0.001"},
            "ge-tx": "ge:alpha=0.005,beta=0.3,advance=transmission"}
#: (path, channel) pairs: every channel on the long path, the i.i.d. and slot ones on both.
PAIRS = [("10M-100ms", ch) for ch in CHANNELS] + [("2M-20ms", "bern-0.02"),
                                                  ("2M-20ms", "ge-slot")]


def digests(sends: list[tuple[float, int, bool]]) -> list[str]:
    """One digest per BLOCK sends of (time in whole microseconds, segment, retransmission)."""
    out = []
    for i in range(0, len(sends), BLOCK):
        text = "".join(f"{round(t * 1e6)},{s},{int(rx)}\n" for t, s, rx in sends[i:i + BLOCK])
        out.append(hashlib.sha256(text.encode()).hexdigest()[:16])
    return out


def pack(bits: list[bool]) -> str:
    """Fates as a bit string, eight to a byte, base64."""
    raw = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        if b:
            raw[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(raw)).decode()


def unpack(text: str, n: int) -> list[bool]:
    raw = base64.b64decode(text)
    return [bool(raw[i // 8] >> (i % 8) & 1) for i in range(n)]


def main() -> None:
    cases = []
    for v in VARIANTS:
        for path, ch in PAIRS:
            kw = {**PATHS[path], "channel": CHANNELS[ch], "duration_s": DURATION_S, **TIMERS}
            with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
                tr = Path(wd) / "link.tr"
                run_script(build_script(v, seed=1, trace_file=str(tr), **kw), workdir=wd)
                text = tr.read_text()
            fates = [lost for _, _, lost in parse_link_fates(text)]
            sends = parse_send_trace(text)
            cases.append({"case": f"{v}/{path}/{ch}", "variant": v, "kwargs": kw,
                          "n_fates": len(fates), "fates": pack(fates), "n_sends": len(sends),
                          "digests": digests(sends)})
            print(f"{v}/{path}/{ch}: {len(sends)} sends, {sum(fates)} losses", flush=True)
    OUT.write_text(json.dumps({"ns2": "2.35 (Debian ns2)", "seed": 1, "block": BLOCK,
                               "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
