"""cgprof.py - the two steps of tools/bench/cgprof.sh.

  cgprof.py counts OUT FN    one run's count per instruction of the JIT
                             function FN (callgrind's name: its address)
                             from OUT/cg.3 and OUT/cg.8 to OUT/per.json;
                             prints the end of its code (to dump)
  cgprof.py report OUT TOP   with OUT/jit.s (the dump, disassembled): the
                             total, the counts covering the most
                             instructions, the TOP costliest runs of
                             instructions with one count; OUT/cg.s
"""
import collections
import json
import re
import sys


def counts(path, fn):
    """Per instruction address of function fn: its cost (callgrind's
    positions are `instr line`; names are compressed as (id) name)."""
    names, c = {}, collections.Counter()
    inside, addr, line, skip = False, 0, 0, False

    def rel(tok, last):
        if tok == "*":
            return last
        if tok[0] in "+-":
            return last + int(tok[1:], 0) * (1 if tok[0] == "+" else -1)
        return int(tok, 0)

    for text in open(path):
        text = text.rstrip("\n")
        m = re.match(r"(c?fn)=\((\d+)\)\s*(.*)", text)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                inside = names.get(m.group(2)) == fn
            continue
        if not inside:
            continue
        if text.startswith("calls="):
            skip = True  # the next line is the call's inclusive cost
            continue
        t = text.split()
        if len(t) < 3 or text[0].isalpha():
            continue
        addr, line = rel(t[0], addr), rel(t[1], line)
        if skip:
            skip = False
            continue
        c[addr] += int(t[2])
    return c


def step_counts(out, fn):
    a, b = counts(out + "/cg.3", fn), counts(out + "/cg.8", fn)
    per = {k: (b[k] - a.get(k, 0)) / 5 for k in b}
    json.dump({str(k): v for k, v in per.items()}, open(out + "/per.json", "w"))
    print(hex(max(per) + 64))


def step_report(out, top):
    per = {int(k): v for k, v in json.load(open(out + "/per.json")).items()}
    rows = []
    for text in open(out + "/jit.s"):
        m = re.match(r"\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)", text)
        if m and m.group(3):
            rows.append((int(m.group(1), 16), m.group(3)))
    total = sum(per.values()) or 1
    known = {a for a, _ in rows}
    print("native code: %.0f instructions a run; %d of %d counted addresses in the dump"
          % (total, sum(1 for k in per if k in known), len(per)))
    byn = collections.Counter()
    for v in per.values():
        byn[v] += v
    print("counts covering the most instructions (count: instructions a run):")
    for n, v in sorted(byn.items(), key=lambda x: -x[1])[:12]:
        print("  %9.0f: %.2fM (%.1f%%)" % (n, v / 1e6, 100 * v / total))
    runs, cur = [], None
    for addr, text in rows:
        n = per.get(addr, 0)
        if cur and cur[1] == n and not cur[3]:
            cur[2] += 1
        else:
            cur = [addr, n, 1, False]
            runs.append(cur)
        if text.startswith(("j", "ret", "call")):
            cur[3] = True
    print("costliest runs of one count:")
    for r in sorted((r for r in runs if r[1]), key=lambda r: -r[1] * r[2])[:top]:
        print("  %#x  count %.0f  %d instructions  %.1f%%" % (r[0], r[1], r[2], 100 * r[1] * r[2] / total))
    with open(out + "/cg.s", "w") as f:
        for addr, text in rows:
            f.write("%9.0f %x %s\n" % (per.get(addr, 0), addr, text))
    print("annotated disassembly: %s/cg.s" % out)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "counts":
        step_counts(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        step_report(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: cgprof.py counts OUT FN | report OUT TOP")
