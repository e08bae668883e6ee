#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The reap project authors (see NOTICE).
"""gen.py - seeded generator of random valid bc programs.

Writes COUNT programs into OUT (prog0000.bc, ...), each a mix of the
language's features: arithmetic at random scales, relations and logic,
assignments and increments, arrays, if/else, bounded loops, functions with
autos and recursion, print and strings, ibase/obase changes, and (with -l,
given on the program's first line as "# options: -l") the math library;
about one program in seven is dense arithmetic on long numbers instead.
Both kinds raise small negative fractions to odd powers, which GNU bc cuts
to a negative zero (-0) that later operations carry on.
Values and exponents stay small so every program runs in milliseconds; the
test compares reap-bc with GNU bc on them, so no expected output is stored.
"""
import argparse
import os
import random

VARS = ["a", "b", "x", "y", "total", "n1", "v_2"]
ARRS = ["arr", "q"]


class Gen:
    def __init__(self, rnd, mathlib):
        self.r = rnd
        self.mathlib = mathlib
        self.funcs = []

    def number(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            return str(r.randint(0, 20))
        if k < 0.55:
            return "%d.%s" % (r.randint(0, 999), "".join(
                r.choice("0123456789") for _ in range(r.randint(1, 6))))
        if k < 0.65:
            return "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 4)))
        if k < 0.8:
            return str(r.randint(0, 10 ** r.randint(3, 30)))
        return str(r.randint(0, 99999))

    def named(self):
        r = self.r
        k = r.random()
        if k < 0.75:
            return r.choice(VARS)
        return "%s[%d]" % (r.choice(ARRS), r.randint(0, 12))

    def expr(self, depth=0):
        r = self.r
        if depth > 3:
            return r.choice([self.number(), self.named()])
        k = r.random()
        if k < 0.2:
            return self.number()
        if k < 0.32:
            return self.named()
        if k < 0.55:
            op = r.choice("+-*/%")
            return "(%s %s %s)" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if k < 0.6:
            # the base is a constant expression: a variable raised again and
            # again in a loop would grow without bound
            base = self.number()
            shape = r.random()
            if shape < 0.5:
                base = "(%s %s %s)" % (self.number(), r.choice("+-*/"), self.number())
            elif shape < 0.6:
                # a small negative fraction to an odd power: cut to the
                # scale, GNU bc keeps the sign, -0, which then flows on
                return "((-.%s%d) ^ %d)" % ("0" * r.randint(0, 3),
                                            r.randint(1, 9), r.choice([1, 3, 5]))
            return "(%s ^ %d)" % (base, r.randint(-3, 6))
        if k < 0.66:
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            return "(%s %s %s)" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if k < 0.7:
            op = r.choice(["&&", "||"])
            return "(%s %s %s)" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if k < 0.72:
            return "!" + self.expr(depth + 1)
        if k < 0.76:
            return "- " + self.expr(depth + 1)
        if k < 0.8:
            return "sqrt(%s)" % self.abs_expr(depth)
        if k < 0.83:
            return r.choice(["length", "scale"]) + "(%s)" % self.expr(depth + 1)
        if k < 0.87:
            n = self.named()
            return r.choice(["%s++", "%s--", "++%s", "--%s"]) % n
        if k < 0.9 and self.funcs:
            name, nargs = r.choice(self.funcs)
            if nargs < 0:  # a call written out already
                return name
            args = ", ".join(self.expr(depth + 2) for _ in range(nargs))
            return "%s(%s)" % (name, args)
        if k < 0.95 and self.mathlib:
            f = r.choice(["s", "c", "a", "l", "e"])
            arg = "%d.%d" % (r.randint(0, 5), r.randint(0, 999))
            if f == "l":
                arg = "(%s + 0.1)" % arg
            return "%s(%s)" % (f, arg)
        if k < 0.97 and self.mathlib:
            return "j(%d, %d.%d)" % (r.randint(-3, 3), r.randint(0, 4), r.randint(0, 99))
        return "(%s = %s)" % (self.named(), self.expr(depth + 1))

    def abs_expr(self, depth):
        # sqrt needs a non-negative argument: square something small
        e = self.expr(depth + 2)
        return "(%s)^2" % e

    def assign(self):
        r = self.r
        op = r.choice(["=", "=", "+=", "-=", "*=", "/=", "%=", "^="])
        rhs = self.expr(1) if op != "^=" else str(r.randint(0, 1))
        return "%s %s %s" % (self.named(), op, rhs)

    def string(self):
        r = self.r
        words = ["x", "hello", "bc", " ", "a long string that runs on",
                 "tab\\there", "q\\q", "back\\\\slash", "new\\nline", "\\r\\f"]
        return '"' + " ".join(r.choice(words) for _ in range(r.randint(1, 4))) + '"'

    def stmt(self, depth=0, in_loop=False, in_func=False):
        r = self.r
        k = r.random()
        if depth > 2 or k < 0.3:
            return self.expr()
        if k < 0.45:
            return self.assign()
        if k < 0.5:
            return "scale = %d" % r.randint(0, 30)
        if k < 0.55:
            return "print %s, %s, \"\\n\"" % (self.expr(), self.string())
        if k < 0.58:
            return self.string()
        if k < 0.66:
            s = "if (%s) %s" % (self.expr(1), self.block(depth, in_loop, in_func))
            if r.random() < 0.5:
                s += " else %s" % self.block(depth, in_loop, in_func)
            return s
        if k < 0.72:
            self.loops = getattr(self, "loops", 0) + 1
            v = "i%d" % self.loops
            return "for (%s = 0; %s < %d; %s++) %s" % (
                v, v, r.randint(0, 6), v, self.block(depth, True, in_func))
        if k < 0.77:
            v = r.choice(["w", "w2"])
            return "%s = %d; while (%s > 0) { %s--; %s }" % (
                v, r.randint(0, 5), v, v, self.stmts(depth + 1, True, in_func))
        if k < 0.8 and in_loop:
            return r.choice(["break", "continue"])
        if k < 0.83 and in_func:
            return "return (%s)" % self.expr(1)
        if k < 0.86:
            return "obase = %d; %s; obase = 10" % (
                r.choice([2, 3, 8, 16, 17, 25, 100, 1000]), self.expr(1))
        if k < 0.88:
            return "ibase = %d; %s; ibase = A" % (r.choice([2, 8, 16]), r.choice(["11", "101", "7.1", "1.01"]))
        if k < 0.9:
            return r.choice(["last", ".", "scale++", "--scale", "scale(last)",
                             "ibase++; 11; ibase = A", "obase--; 255; obase = A",
                             "if (last > 1000) halt"])
        return "{ %s }" % self.stmts(depth + 1, in_loop, in_func)

    def stmts(self, depth, in_loop, in_func):
        return "; ".join(self.stmt(depth + 1, in_loop, in_func)
                         for _ in range(self.r.randint(1, 3)))

    def block(self, depth, in_loop, in_func):
        return "{ %s }" % self.stmts(depth + 1, in_loop, in_func)

    def void_func(self, idx):
        name = "v%d" % idx
        body = "  print %s, \"\\n\"\n  %s\n  return" % (self.expr(2), self.assign())
        return name, "define void %s() {\n%s\n}" % (name, body)

    def array_func(self, idx):
        name = "s%d" % idx
        self.funcs.append(("%s(arr[], 6)" % name, -1))
        return ("define %s(v[], n) {\n  auto i, t\n"
                "  for (i = 0; i < n; i++) t += v[i]\n"
                "  v[0] = t\n  return (t)\n}" % name)

    def func(self, idx):
        r = self.r
        name = "f%d" % idx
        nargs = r.randint(0, 2)
        params = ["p%d" % i for i in range(nargs)]
        body = []
        body.append("  auto t, arr[]")
        body.append("  t = %s" % self.expr(2))
        for _ in range(r.randint(1, 4)):
            body.append("  " + self.stmt(1, False, True))
        if nargs and r.random() < 0.4:
            # bounded recursion on the first parameter
            body.append("  if (%s > 0 && %s < 30) t += %s(%s)" % (
                params[0], params[0], name,
                ", ".join(["%s - 1" % params[0]] + params[1:])))
        body.append("  return (t)")
        self.funcs.append((name, nargs))
        return "define %s(%s) {\n%s\n}" % (name, ", ".join(params), "\n".join(body))

    def program(self):
        r = self.r
        lines = []
        if self.mathlib:
            lines.append("# options: -l")
        lines.append("scale = %d" % r.randint(0, 25))
        for i in range(r.randint(0, 3)):
            lines.append(self.func(i))
        voids = []
        if r.random() < 0.3:
            name, text = self.void_func(0)
            lines.append(text)
            voids.append(name)
        if r.random() < 0.3:
            lines.append(self.array_func(0))
        for _ in range(r.randint(5, 25)):
            k = r.random()
            if voids and k < 0.05:
                lines.append("%s()" % voids[0])
            elif k < 0.1:
                # long results: line splitting at 70 columns
                lines.append("%s * %s * %s" % (str(r.randint(10 ** 25, 10 ** 40)),
                                               str(r.randint(10 ** 25, 10 ** 40)),
                                               self.number()))
            else:
                lines.append(self.stmt())
        if r.random() < 0.05:
            lines.append("quit")
            lines.append("1")
        return "\n".join(lines) + "\n"


def arith_program(r):
    """Dense arithmetic on long numbers at random scales and output bases."""
    def num():
        ip = str(r.randint(0, 10 ** r.randint(0, 120)))
        k = r.random()
        if k < 0.3:
            s = ip
        elif k < 0.6:
            s = ip + "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 60)))
        else:
            s = "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 30)))
        return ("-" if r.random() < 0.3 else "") + s
    out = []
    for _ in range(r.randint(10, 40)):
        out.append("scale = %d" % r.randint(0, 60))
        if r.random() < 0.25:
            out.append("obase = %d" % r.choice([2, 3, 7, 8, 16, 17, 36, 100, 999, 1000, 65536]))
        op = r.choice(["+", "-", "*", "/", "%", "^", "sqrt", "cmp", "-0"])
        a, b = num(), num()
        if op == "-0":
            # GNU bc's negative zero: a power cut to zero keeps its sign
            out.append("z = (-.%s1) ^ %d" % ("0" * r.randint(0, 40), r.choice([3, 5])))
            out.append("z; z %s (%s); (%s) %s z; -z; z + z; z - 0; z %% 7" % (
                r.choice(["+", "-", "*", "/", "%"]), b, a,
                r.choice(["+", "-", "*", "<", "==", ">="])))
        elif op == "^":
            out.append("(%s) ^ %d" % (a, r.randint(-5, 12)))
        elif op == "sqrt":
            out.append("sqrt(%s)" % a.lstrip("-"))
        elif op == "cmp":
            out.append("(%s) %s (%s)" % (a, r.choice(["<", "<=", "==", "!=", ">", ">="]), b))
        else:
            out.append("(%s) %s (%s)" % (a, op, b))
        out.append("obase = 10")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rnd = random.Random(a.seed)
    for i in range(a.count):
        if rnd.random() < 0.15:
            text = arith_program(rnd)
        else:
            text = Gen(rnd, rnd.random() < 0.3).program()
        with open(os.path.join(a.out, "prog%04d.bc" % i), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
