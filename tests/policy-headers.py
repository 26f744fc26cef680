#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What each unit of the policy sees of the rules' private headers
(preflight/policy/policy-*.h but policy.h, the policy's face), for
tests/policy-headers.test.

A name of those headers (a struct, union or enum with its constants, a
macro, a function, a variable) is one rule's OWN when a single unit uses
it.  For each unit that includes a private header, directly or through
another, one line: UNIT, then the names of other units' own that it sees
(NAME:OWNER, comma-separated, or "-"), then every name it sees and never
uses (comma-separated, or "-").

Read as text, comments and strings taken out: a name is used where it
stands as a word (a struct or enum by its tag, an enum by any of its
constants too, a macro that names a function of the headers where that
function is).  A name that a type or a macro of the headers holds (the
struct in a struct, the release function behind a cleanup macro) goes
with it and is not judged alone.
"""
import os
import re
import subprocess
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "."


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def decls(text):
    """[(name, kind, words, body)]: WORDS are what counts as using it."""
    text = re.sub(r"\\\n", " ", strip(text))
    out, body = [], []
    for line in text.split("\n"):
        m = re.match(r"\s*#\s*define\s+(\w+)(.*)", line)
        if m:
            if not m.group(1).endswith("_H"):
                out.append((m.group(1), "macro", [m.group(1)], m.group(2)))
            continue
        if re.match(r"\s*[A-Z_]+\s*\(\s*[A-Z_]+\s*\)\s*$", line):
            # An X-macro's expansion: the header's own use of both.
            out.append((line.strip(), "expansion", [], line))
            continue
        if re.match(r"\s*#", line):
            continue
        body.append(line)
    text = "\n".join(body)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)", "", text)
    stmts, cur, depth = [], "", 0
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
        if ch == ";" and depth == 0:
            stmts.append(cur.strip())
            cur = ""
    for st in stmts:
        m = re.match(r"(struct|union|enum)\s+(\w+)?\s*\{", st)
        if m:
            consts = []
            if m.group(1) == "enum":
                inner = st[st.index("{") + 1 : st.rindex("}")]
                consts = [re.match(r"\s*(\w+)", e).group(1) for e in inner.split(",") if e.strip()]
            if m.group(2):
                name = m.group(1) + " " + m.group(2)
                out.append((name, "type", [name] + consts, st))
            else:
                out += [(k, "const", [k], st) for k in consts]
            continue
        if re.match(r"(struct|union|enum)\s+\w+\s*;$", st):
            continue  # a declaration ahead of use
        m = re.search(r"(\w+)\s*(\[\s*\w*\s*\])?\s*;$", st) if st.startswith("extern") else None
        m = m or re.search(r"(\w+)\s*\(", st)
        if m:
            out.append((m.group(1), "function", [m.group(1)], st))
    return out


def uses(text, word):
    return re.search(r"\b" + re.sub(r"\s+", r"\\s+", word) + r"\b", text) is not None


def main():
    files = subprocess.run(
        ["git", "-C", SRC, "ls-files", "--cached", "--others", "--exclude-standard", "*.c", "*.h"], capture_output=True, text=True, check=True
    ).stdout.split()
    headers = [f for f in files if re.match(r"preflight/(.*/)?policy-[^/]*\.h$", f)]
    base = {os.path.basename(h): h for h in headers}
    incl = {}
    for f in files:
        incl[f] = [base[n] for n in re.findall(r'#\s*include\s+"([^"]+)"', read(f)) if n in base]

    def seen(f):
        out, todo = [], list(incl[f])
        while todo:
            h = todo.pop()
            if h not in out:
                out.append(h)
                todo += incl[h]
        return out

    units = [f for f in files if f.endswith(".c") and seen(f)]
    text = {u: strip(read(u)) for u in units}
    names = {h: decls(read(h)) for h in headers}
    # A name that another declaration of the headers holds goes with it.
    held = set()
    for h in headers:
        for name, kind, _, body in names[h]:
            if kind == "function":
                continue
            if kind == "expansion":
                held.update(re.findall(r"\w+", body))
                continue
            for h2 in headers:
                for other, _, words, _ in names[h2]:
                    if other != name and any(uses(body, w) for w in words):
                        held.add(other)
    # A macro that names a function of the headers (a cleanup macro) is
    # used where that function is.
    functions = {n for h in headers for n, kind, _, _ in names[h] if kind == "function"}
    for h in headers:
        names[h] = [
            (n, kind, words + [f for f in functions if kind == "macro" and uses(body, f)], body)
            for n, kind, words, body in names[h]
        ]
    users = {}
    for h in headers:
        for name, _, words, _ in names[h]:
            users[name] = [u for u in units if any(uses(text[u], w) for w in words)]
    for u in sorted(units):
        foreign, unused = [], []
        for h in seen(u):
            for name, kind, _, _ in names[h]:
                if kind == "expansion" or name in held or u in users[name]:
                    continue
                unused.append(name)
                if len(users[name]) == 1:
                    foreign.append("%s:%s" % (name, os.path.basename(users[name][0])))
        print("%s\t%s\t%s" % (u, ",".join(foreign) or "-", ",".join(unused) or "-"))


main()
