#!/usr/bin/env python3
"""Contracts every a * b + c of an LLVM IR file into fma(a, b, c), as nvcc
does in device code (--fmad=true, its default).

    python3 fma_contract.py in.ll out.ll

nvcc fuses a multiplication into each addition or subtraction that uses it,
even when the product is used elsewhere too (LLVM's "aggressive" FMA fusion
of the NVPTX back end), so that an error-free transformation written as
p = a * b; e = fma(a, b, -p); ... (x - p) ... has x - p computed as
fma(-a, b, x): the rounding error of p is then subtracted twice.  GCC and
clang on x86-64 fuse only a product with no other use, so they never show
this on the CPU.  This script applies the aggressive rule to clang's IR
(made with -ffp-contract=fast, which marks every operation "contract";
-fno-vectorize -fno-slp-vectorize keep it scalar, as device code is): for
each fadd / fsub whose operand is an fmul (or the fneg of one), in any
block of the function,

    fadd (fmul a, b), c        -> fma(a, b, c)
    fsub (fmul a, b), c        -> fma(a, b, -c)
    fsub c, (fmul a, b)        -> fma(-a, b, c)
    fadd (fneg (fmul a, b)), c -> fma(-a, b, c)

the left operand first when both are products.  The tests of tests/c built
on such objects (make fused, make cuda-mock-fused) show what contraction
does to the numbers, with the core's own sources, on a CPU.  Prints how
many additions it fused to stderr.
"""
import re
import sys

NAME = r"%[-a-zA-Z$._0-9]+"
OPERAND = r"[^,\s]+"
FLAGS = r"((?:(?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc)\s+)*)"
BINOP = re.compile(r"^(\s*)(" + NAME + r") = (fadd|fsub|fmul) " + FLAGS +
                   r"double (" + OPERAND + r"), (" + OPERAND + r")\s*$")
FNEG = re.compile(r"^\s*(" + NAME + r") = fneg " + FLAGS + r"double (" +
                  OPERAND + r")\s*$")
DECL = "declare double @llvm.fma.f64(double, double, double)"


def fresh(name, tag):
    """A new local name from an existing one (never starting with a digit:
    %23 is an unnamed value, %fn.23 a named one)."""
    return "%" + tag + "." + name[1:]


def fuse_function(lines):
    products, negated = {}, {}
    for line in lines:
        m = BINOP.match(line)
        if m and m.group(3) == "fmul" and "contract" in m.group(4):
            products[m.group(2)] = (m.group(5), m.group(6))
            continue
        m = FNEG.match(line)
        if m and m.group(3) in products:
            negated[m.group(1)] = products[m.group(3)]
    out, fused = [], 0
    for line in lines:
        m = BINOP.match(line)
        if not m or m.group(3) == "fmul" or "contract" not in m.group(4):
            out.append(line)
            continue
        indent, res, op, flags, x, y = m.groups()
        pre, call = [], None
        if op == "fadd":
            for p, q in ((x, y), (y, x)):
                if p in products:
                    a, b = products[p]
                    call = (a, b, q)
                    break
                if p in negated:
                    a, b = negated[p]
                    na = fresh(res, "fna")
                    pre.append(f"{indent}{na} = fneg double {a}")
                    call = (na, b, q)
                    break
        else:
            if x in products:
                a, b = products[x]
                ny = fresh(res, "fny")
                pre.append(f"{indent}{ny} = fneg double {y}")
                call = (a, b, ny)
            elif y in products:
                a, b = products[y]
                na = fresh(res, "fna")
                pre.append(f"{indent}{na} = fneg double {a}")
                call = (na, b, x)
        if call is None:
            out.append(line)
            continue
        out.extend(pre)
        out.append(f"{indent}{res} = call {flags}double @llvm.fma.f64("
                   f"double {call[0]}, double {call[1]}, double {call[2]})")
        fused += 1
    return out, fused


def main(src, dst):
    with open(src) as f:
        lines = f.read().split("\n")
    out, body, total, inside = [], [], 0, False
    for line in lines:
        if line.startswith("define "):
            inside, body = True, [line]
        elif inside:
            body.append(line)
            if line.startswith("}"):
                fused_body, n = fuse_function(body)
                out.extend(fused_body)
                total += n
                inside = False
        else:
            out.append(line)
    if total and not any(l.startswith("declare double @llvm.fma.f64(")
                         for l in out):
        out.append(DECL)
    with open(dst, "w") as f:
        f.write("\n".join(out))
    sys.stderr.write(f"{src}: {total} additions fused\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: fma_contract.py in.ll out.ll")
    main(sys.argv[1], sys.argv[2])
