"""The README's table of claim verdicts, and docs/verdicts.md (every claim's reading, numbers
and measured reason), from the claims.json files a reproduce run wrote.

    lossytcp reproduce --all --out DIR          # full size (add --quick for the quick one)
    python scripts/claims_table.py DIR [--before OLD_README.md] [--docs docs/verdicts.md]

prints the markdown rows (in `reproduce list` order) and writes the evidence file the rows'
"why" column links to. A verdict carries ``*`` where its source (model or simulation) is the
one the paper's figure shows; "—" where the figure has no claim for that source. With
``--before`` (a README holding an earlier table) a "before" column shows each claim's earlier
verdicts where they differ ("new": a claim that table did not have, or had under other
words or another figure).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

DOCS = "docs/verdicts.md"


def anchor(fig: str, claim: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{fig} {claim}".lower()).strip("-")[:80]


def load(out: Path) -> tuple[list[tuple[str, dict]], list[str]]:
    from lossytcp.figures import all_figures

    docs, missing = [], []
    for fig in all_figures():
        path = out / fig.id / "claims.json"
        if not path.is_file():
            missing.append(fig.id)
            continue
        docs.append((fig.id, json.loads(path.read_text())))
    return docs, missing


def before_table(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """(figure, claim) -> {"model": verdict, "simulation": verdict} from a README's table."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("paper0"):
            out[(cells[0], cells[1])] = {"model": cells[2].replace(" *", ""),
                                         "simulation": cells[3].replace(" *", "")}
    return out


def _grouped(doc: dict) -> dict[str, dict[str, dict]]:
    by: dict[str, dict[str, dict]] = {}
    for c in doc["claims"]:
        by.setdefault(c["claim"], {})[c["source"]] = c
    return by


def _short_why(cs: dict[str, dict]) -> str:
    why = next((c.get("why", "") for src in ("simulation", "model") if (c := cs.get(src))
                and c["verdict"] != "holds" and c.get("primary")), "") or next(
        (c.get("why", "") for c in cs.values() if c["verdict"] != "holds"), "")
    why = why.replace("|", ";").replace("[", "(").replace("]", ")")  # a markdown link's text
    why = re.split(r"(?<=[.;])\s", why, maxsplit=1)[0].rstrip(";. ")
    return why if len(why) <= 100 else why[:97] + "..."


def rows(docs, before: dict | None = None) -> list[str]:
    head = "| figure | claim (the paper's words, SCENARIOS.md) | model | simulation |"
    sep = "|---|---|---|---|"
    if before is not None:
        head += " before |"
        sep += "---|"
    lines = [head + " why |", sep + "---|"]
    for fig, doc in docs:
        for claim, cs in _grouped(doc).items():
            v = {src: c["verdict"] + (" *" if c.get("primary") else "") for src, c in
                 cs.items()}
            cells = [fig, claim, v.get("model", "—"), v.get("simulation", "—")]
            if before is not None:
                b = before.get((fig, claim))
                now = {src: c["verdict"] for src, c in cs.items()}
                cells.append("new" if b is None else "" if all(
                    b.get(s, "—") in (now.get(s, "—"), "—") for s in ("model", "simulation"))
                    else f"{b.get('model', '—')} / {b.get('simulation', '—')}")
            bad = any(c["verdict"] != "holds" for c in cs.values())
            why = (f"[{_short_why(cs) or 'why'}]({DOCS}#{anchor(fig, claim)})" if bad
                   else f"[numbers]({DOCS}#{anchor(fig, claim)})")
            lines.append("| " + " | ".join(cells + [why.replace("|", "/")]) + " |")
    return lines


def verdicts_md(docs, size: str) -> str:
    """Every claim of every figure: its verdicts, the reading of the paper's words, the
    measured numbers and, where it does not hold, the reason with its control."""
    out = [f"# Claim verdicts ({size} size): readings, numbers and reasons", "",
           "Written by `scripts/claims_table.py` from a `lossytcp reproduce --all` run; the "
           "README's verdict table links here. `*` marks the source the paper's figure shows.",
           ""]
    for fig, doc in docs:
        out += [f"## {fig}", ""]
        for claim, cs in _grouped(doc).items():
            out += [f'<a id="{anchor(fig, claim)}"></a>', f"### {claim}", ""]
            reading = next((c.get("reading") for c in cs.values() if c.get("reading")), "")
            if reading:
                out += [f"*Reading:* {reading}", ""]
            for src in ("model", "simulation"):
                c = cs.get(src)
                if c is None:
                    continue
                star = " *" if c.get("primary") else ""
                out += [f"- **{src}{star}: {c['verdict']}** — {c['short']}"]
                if c.get("why"):
                    out += [f"  - *why:* {c['why']}"]
            out.append("")
    out += _without_control(docs)
    return "\n".join(out) + "\n"


def _without_control(docs) -> list[str]:
    """The verdicts other than holds whose why quotes no control run: what is left to
    explain (an inconclusive one whose why is its undecided points is the seeds' doing)."""
    items = [(fig, c) for fig, doc in docs for c in doc["claims"]
             if c["verdict"] != "holds" and "control" not in c.get("why", "").lower()]
    if not items:
        return []
    out = ["## Not holding, without a control run of their own", "",
           "Their why quotes this run's numbers (and, for some, a mechanism in words) but no "
           "control run that shows the mechanism.", ""]
    for fig, c in items:
        star = " *" if c.get("primary") else ""
        out.append(f"- [{fig}: {c['claim']}](#{anchor(fig, c['claim'])}) — {c['source']}"
                   f"{star}: {c['verdict']}")
    return out + [""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the --out directory of a reproduce run")
    ap.add_argument("--before", type=Path, help="a README with an earlier verdict table")
    ap.add_argument("--docs", type=Path, default=None,
                    help=f"write the evidence file here (e.g. {DOCS})")
    args = ap.parse_args(argv)
    if not args.out.is_dir():
        ap.error(f"parameter 'out' = '{args.out}' is invalid: not a directory")
    docs, missing = load(args.out)
    if missing:
        print(f"note: no claims.json for {', '.join(missing)}", file=sys.stderr)
    before = before_table(args.before) if args.before else None
    print("\n".join(rows(docs, before)))
    if args.docs is not None:
        quick = any(doc.get("quick") for _, doc in docs)
        args.docs.parent.mkdir(parents=True, exist_ok=True)
        args.docs.write_text(verdicts_md(docs, "quick" if quick else "full"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
