"""Print the README's table of claim verdicts from the claims.json files a reproduce run wrote.

    lossytcp reproduce --all --out DIR          # full size (add --quick for the quick one)
    python scripts/claims_table.py DIR          # the markdown rows, in `reproduce list` order

A verdict carries ``*`` where its source (model or simulation) is the one the paper's figure
shows; "—" where the figure has no claim for that source.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def rows(out: Path) -> list[str]:
    from lossytcp.figures import all_figures

    lines = ["| figure | claim (SCENARIOS.md) | model | simulation |", "|---|---|---|---|"]
    missing = []
    for fig in all_figures():
        path = out / fig.id / "claims.json"
        if not path.is_file():
            missing.append(fig.id)
            continue
        doc = json.loads(path.read_text())
        by_claim: dict[str, dict[str, str]] = {}
        for c in doc["claims"]:
            mark = " *" if c.get("primary") else ""
            by_claim.setdefault(c["claim"], {})[c["source"]] = c["verdict"] + mark
        for claim, v in by_claim.items():
            lines.append(f"| {fig.id} | {claim} | {v.get('model', '—')} | "
                         f"{v.get('simulation', '—')} |")
    if missing:
        print(f"note: no claims.json for {', '.join(missing)}", file=sys.stderr)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the --out directory of a reproduce run")
    args = ap.parse_args(argv)
    if not args.out.is_dir():
        ap.error(f"parameter 'out' = '{args.out}' is invalid: not a directory")
    print("\n".join(rows(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
