#!/usr/bin/env python3
"""parity.py — check `ftms-bridge decode` against the spec-literal oracle, frame by frame.

Why: contract §3 asks for bit-exact FTMS decoding. gen_frames.py writes random valid frames with their
expected decode straight from the FTMS 1.0 tables; this script feeds the same frames to
`ftms-bridge decode UUID` (stdin, one hex frame per line) and compares every JSON line field by field,
numbers as exact decimals. Keys ftms-bridge adds that the oracle never emits (e.g. `implausible`)
are ignored and counted. Any ftms-bridge mismatch -> exit 1, printing the first 10.

If the pyftms venv exists (scripts/pyftms-env.sh) the frames also go through scripts/pyftms_decode.py,
and where pyftms departs from the spec-literal decode is summarised. That part is informational only.

usage: parity.py [BIN] [--count 20000] [--seed 1] [--characteristics 2ad2,2ad1,...]
                 [--spaced] [--no-pyftms] [--pyftms-only]
Final line: "parity: N frames, M mismatches".
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
import gen_frames  # noqa: E402


def parse(line):
    try:
        v = json.loads(line, parse_float=Decimal, parse_int=Decimal)
        return v if isinstance(v, dict) else {"error": f"not a JSON object: {line[:80]}"}
    except ValueError:
        return {"error": f"not JSON: {line[:80]}"}


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a == b
    return type(a) is type(b) and a == b


def compare(exp, act, vocab, ignored: Counter):
    """Differences as (field, kind, expected, actual) tuples; ignored extra keys are counted."""
    if "error" in act and "error" not in exp:
        return [("*", "error", None, act["error"])]
    diffs = []
    for k, e in exp.items():
        if k not in act:
            diffs.append((k, "missing", e, None))
        elif not same(e, act[k]):
            diffs.append((k, "differs", e, act[k]))
    for k in act.keys() - exp.keys():
        if k in vocab:
            diffs.append((k, "unexpected", None, act[k]))
        else:
            ignored[k] += 1
    return diffs


def run(cmd, text):
    p = subprocess.run(cmd, input=text, capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    return p.returncode, lines, p.stderr.strip().splitlines()[:1]


def show(v):
    return str(v) if isinstance(v, Decimal) else json.dumps(v)


def classify(field, kind, e, a):
    """Name the way pyftms departs from the spec-literal value (for the informational report)."""
    if kind == "error":
        return f"frame rejected: {a.split(':')[0]}"
    if kind == "missing" and e is None:
        return f"{field}: 'not available' sentinel omitted instead of null"
    if kind == "missing" and isinstance(e, Decimal):
        return f"{field}: value omitted (all-ones read as 'not available')"
    if kind == "missing":
        return f"{field}: {'empty ' if e == '' else ''}value omitted"
    if kind == "differs" and isinstance(e, Decimal) and isinstance(a, Decimal):
        if abs(a - e) <= Decimal("1e-9") * max(1, abs(e)):
            return "binary float noise only (e.g. 191.92000000000002)"
        return f"{field}: different value"
    return f"{field}: {kind}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bin", nargs="?", default=str(ROOT / ".build/release/ftms-bridge"))
    ap.add_argument("--bin", dest="bin_opt")
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--characteristics", default=",".join(gen_frames.CHARACTERISTICS))
    ap.add_argument("--spaced", action="store_true", help="feed hex as '44 02 da 02'")
    ap.add_argument("--no-pyftms", action="store_true")
    ap.add_argument("--pyftms-only", action="store_true", help="skip ftms-bridge")
    a = ap.parse_args()
    binary = a.bin_opt or a.bin
    venv_py = ROOT / os.environ.get("PYFTMS_VENV", ".build-pyftms/venv") / "bin/python"
    use_py = not a.no_pyftms and venv_py.exists()
    if not a.pyftms_only and not os.access(binary, os.X_OK):
        print(f"parity: no ftms-bridge binary at {binary} (build it, or pass --bin)", file=sys.stderr)
        return 2

    total = bad = 0
    shown = []
    ignored = Counter()
    py_kinds = defaultdict(lambda: [0, None])      # category -> [frames, first example]
    py_summary = []
    vocab = gen_frames.vocabulary()
    for uuid in a.characteristics.lower().split(","):
        pairs = list(gen_frames.frames(uuid, a.count, a.seed))
        hexes = [d.hex(" ") if a.spaced else d.hex() for d, _ in pairs]
        expected = [parse(json.dumps(o)) for _, o in pairs]
        text = "\n".join(hexes) + "\n"

        if not a.pyftms_only:
            rc, lines, err = run([binary, "decode", uuid], text)
            total += len(pairs)
            n_bad = 0
            if len(lines) != len(pairs):
                n_bad = len(pairs)
                shown.append((uuid, "-", "-", [("*", f"{len(lines)} output lines for {len(pairs)} "
                                                f"frames, exit {rc} {' '.join(err)}", None, None)]))
            else:
                for i, (h, e, line) in enumerate(zip(hexes, expected, lines)):
                    if diffs := compare(e, parse(line), vocab, ignored):
                        n_bad += 1
                        if len(shown) < 10:
                            shown.append((uuid, i, h, diffs))
            if rc != 0 and n_bad == 0:
                shown.append((uuid, "-", "-", [("*", f"exit status {rc} {' '.join(err)}", None, None)]))
                n_bad = 1
            bad += n_bad
            print(f"{uuid} {gen_frames.NAMES[uuid]}: {len(pairs)} frames, {n_bad} mismatches")

        if use_py:
            rc, lines, err = run([str(venv_py), str(HERE / "pyftms_decode.py"), uuid], text)
            if len(lines) != len(pairs):
                py_summary.append(f"{uuid}: pyftms_decode failed (exit {rc}) {' '.join(err)}")
                continue
            frames_off = rejected = 0
            for h, e, line in zip(hexes, expected, lines):
                diffs = compare(e, act := parse(line), vocab, Counter())
                kinds = {classify(*d) for d in diffs}
                rejected += "error" in act
                frames_off += any(not k.startswith("binary float") for k in kinds)
                for k in kinds:
                    slot = py_kinds[(uuid, k)]
                    slot[0] += 1
                    slot[1] = slot[1] or (h, next(d for d in diffs if classify(*d) == k))
            py_summary.append(f"{uuid}: {frames_off}/{len(pairs)} frames differ beyond float "
                              f"noise ({rejected} rejected)")

    if use_py:
        print("\npyftms vs FTMS 1.0 (informational):")
        for line in py_summary:
            print("  " + line)
        for (uuid, kind), (n, (h, (field, _, e, act))) in sorted(py_kinds.items()):
            print(f"  {uuid} {n:6d} frames  {kind}\n"
                  f"                      e.g. {h}: {field} expected {show(e)}, pyftms {show(act)}")
    elif not a.no_pyftms:
        print(f"\n(pyftms comparison skipped: no venv at {venv_py}; run scripts/pyftms-env.sh)")
    if ignored:
        print("\nignored extra ftms-bridge keys: " + ", ".join(f"{k} x{n}" for k, n in ignored.items()))
    if shown:
        print("\nfirst ftms-bridge mismatches:")
        for uuid, i, h, diffs in shown[:10]:
            print(f"  {uuid} #{i} {h}")
            for field, kind, e, act in diffs:
                detail = {"*": "", "missing": f" (expected {show(e)})",
                          "unexpected": f" (got {show(act)})"}.get(
                    field if field == "*" else kind, f" (expected {show(e)}, got {show(act)})")
                print(f"      {field}: {kind}{detail}")
    print(f"parity: {total} frames, {bad} mismatches"
          + (" (ftms-bridge not run)" if a.pyftms_only else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
