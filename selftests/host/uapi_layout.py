#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Proves that every header of ours in include/uapi/rdma equals the installed
kernel's header of the same name as ABI: the same macros with the same
values (function-like ones evaluated on sample arguments), the same
enumerators and values, the same structs/unions with the same size and
member names, types, offsets and bit-fields. Usage: uapi_layout.py OURS SYS"""
import os
import re
import subprocess
import sys
import tempfile

SAMPLE_ARGS = ["0x1401", "7", "3", "1", "2"]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.stderr.write(p.stderr[-3000:])
        raise SystemExit("command failed: %s" % " ".join(cmd))
    return p.stdout


def inc_dir(tmp, side, rdma_dir):
    d = os.path.join(tmp, side)
    os.makedirs(d)
    os.symlink(rdma_dir, os.path.join(d, "rdma"))
    return d


def tu(tmp, name, header, body=""):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("#include <linux/types.h>\n#include <linux/netlink.h>\n")
        if header:
            f.write("#include <rdma/%s>\n" % header)
        f.write(body)
    return path


def macros(tmp, inc, header, side):
    base = run(["gcc", "-dM", "-E", tu(tmp, side + "-base.c", None)])
    full = run(["gcc", "-dM", "-E", "-I", inc, tu(tmp, side + "-m.c", header)])
    known = {l.split()[1] for l in base.splitlines()}
    # Only what the rdma headers themselves define (not what they include).
    mine = set()
    rdma_dir = os.path.join(inc, "rdma")
    for h in [h for h in os.listdir(rdma_dir) if h.endswith(".h")]:
        with open(os.path.join(rdma_dir, h)) as f:
            mine |= set(re.findall(r"^\s*#\s*define\s+(\w+)", f.read(), re.M))
    out = {}
    for l in full.splitlines():
        m = re.match(r"#define (\w+)(\(([^)]*)\))?\s*(.*)", l)
        if not m or m.group(1) in known or m.group(1) not in mine:
            continue
        name, params, value = m.group(1), m.group(3), m.group(4)
        if params is None and value == "":
            continue  # include guards
        if params is None and value.startswith('"'):
            out[name] = "str"  # compare the text, not the literal's address
            continue
        out[name] = None if params is None else len([p for p in params.split(",") if p.strip()])
    return out


def is_expr(tmp, inc, header, side, expr):
    src = tu(tmp, side + "-x.c", header, "long long x = (long long)(%s);\n" % expr)
    p = subprocess.run(["gcc", "-w", "-fsyntax-only", "-I", inc, src], capture_output=True)
    return p.returncode == 0


def expansion(tmp, inc, header, side, name, nargs):
    # Declarator-style macros (e.g. RDMA_UAPI_PTR) have no value: compare
    # what they expand to on placeholder arguments instead.
    call = "%s(%s)" % (name, ", ".join("arg%d" % i for i in range(nargs)))
    src = tu(tmp, side + "-e.c", header, "@@ %s @@\n" % call)
    text = run(["gcc", "-E", "-P", "-I", inc, src])
    m = re.search(r"@@(.*?)@@", text, re.S)
    return "%s expands to %s" % (call, " ".join(m.group(1).split()))


def eval_macros(tmp, inc, header, side, names):
    lines = ['#include <stdio.h>', 'int main(void) {']
    extra = []
    for name, nargs in sorted(names.items()):
        if nargs not in (None, "str"):
            expr = "%s(%s)" % (name, ", ".join(SAMPLE_ARGS[:nargs]))
            if not is_expr(tmp, inc, header, side, expr):
                extra.append(expansion(tmp, inc, header, side, name, nargs))
                continue
        if nargs == "str":
            lines.append('printf("%%s = \\"%%s\\"\\n", "%s", %s);' % (name, name))
            continue
        expr = name if nargs is None else "%s(%s)" % (name, ", ".join(SAMPLE_ARGS[:nargs]))
        lines.append('printf("%%s = %%lld\\n", "%s", (long long)(%s));' % (expr.replace('"', ''), expr))
    lines.append("return 0; }")
    src = tu(tmp, side + "-eval.c", header, "\n".join(lines) + "\n")
    exe = os.path.join(tmp, side + "-eval")
    run(["gcc", "-w", "-I", inc, "-o", exe, src])
    return run([exe]).splitlines() + extra


def num(v):
    # The same offset prints as "0" or "0x00" depending on the DWARF form
    # the compiler picked (implicit_const vs data1) for the whole CU.
    try:
        return str(int(v, 0))
    except (TypeError, ValueError):
        return v


def dwarf(tmp, inc, header, side):
    src = tu(tmp, side + "-d.c", header)
    obj = os.path.join(tmp, side + "-d.o")
    run(["gcc", "-g", "-fno-eliminate-unused-debug-types", "-c", "-I", inc, "-o", obj, src])
    text = run(["llvm-dwarfdump", "--debug-info", obj])
    out, stack = [], []
    cur = None
    for l in text.splitlines():
        m = re.match(r"0x[0-9a-f]+:(\s+)(DW_TAG_\w+|NULL)", l)
        if m:
            depth = len(m.group(1))
            while stack and stack[-1][0] >= depth:
                stack.pop()
            cur = {"tag": m.group(2), "depth": depth}
            stack.append((depth, cur))
            continue
        m = re.match(r"\s+(DW_AT_\w+)\s+\((.*)\)$", l)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
            cur["parents"] = [s[1] for s in stack[:-1]]
            if "entries" not in cur:
                cur["entries"] = True
                out.append(cur)
    rows = []

    def ours(e):
        # Enumerators and some members carry no file: their parent does.
        for x in [e] + e["parents"][::-1]:
            if "DW_AT_decl_file" in x:
                return "/rdma/" in x["DW_AT_decl_file"]
        return False
    for e in out:
        if not ours(e):
            continue
        name = e.get("DW_AT_name", "").strip('"')
        owner = ".".join(p.get("DW_AT_name", "<anon>").strip('"') for p in e["parents"]
                         if p["tag"] in ("DW_TAG_structure_type", "DW_TAG_union_type"))
        if e["tag"] == "DW_TAG_enumerator":
            rows.append("enum %s = %s" % (name, e.get("DW_AT_const_value")))
        elif e["tag"] in ("DW_TAG_structure_type", "DW_TAG_union_type") and name:
            rows.append("%s %s size %s" % (e["tag"][7:], name, e.get("DW_AT_byte_size")))
        elif e["tag"] == "DW_TAG_member":
            ty = re.sub(r"^0x[0-9a-f]+ ", "", e.get("DW_AT_type", ""))
            rows.append("member %s.%s type %s at %s bits %s/%s" % (
                owner, name, ty, num(e.get("DW_AT_data_member_location")),
                e.get("DW_AT_data_bit_offset", "-"), e.get("DW_AT_bit_size", "-")))
    return sorted(set(rows))


def main():
    ours_dir, sys_dir = sys.argv[1], sys.argv[2]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        inc_o = inc_dir(tmp, "ours", os.path.abspath(ours_dir))
        inc_s = inc_dir(tmp, "sys", os.path.abspath(sys_dir))
        for header in sorted(os.listdir(ours_dir)):
            if not header.endswith(".h"):
                continue
            if not os.path.exists(os.path.join(sys_dir, header)):
                print("FAIL: %s has no system counterpart" % header)
                failed += 1
                continue
            mo = macros(tmp, inc_o, header, "ours")
            ms = macros(tmp, inc_s, header, "sys")
            dump_o = ["macro %s" % l for l in eval_macros(tmp, inc_o, header, "ours", mo)]
            dump_s = ["macro %s" % l for l in eval_macros(tmp, inc_s, header, "sys", ms)]
            dump_o += dwarf(tmp, inc_o, header, "ours")
            dump_s += dwarf(tmp, inc_s, header, "sys")
            only_o = sorted(set(dump_o) - set(dump_s))
            only_s = sorted(set(dump_s) - set(dump_o))
            if only_o or only_s:
                failed += 1
                print("FAIL: %s differs from %s" % (header, sys_dir))
                for l in only_o[:40]:
                    print("  ours only:   " + l)
                for l in only_s[:40]:
                    print("  system only: " + l)
            else:
                print("ok: %s (%d macros/enumerators/members compared)" % (header, len(dump_o)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
