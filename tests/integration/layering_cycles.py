#!/usr/bin/env python3
"""Finds circles between the modules of each lib/ stage (called by layering.sh).

A module is a .c file; its header is the .h of the same name.  Module A depends on module B
of the same stage when
  - A's .c or .h includes B's header (a type or a promise of B), or
  - A's .c names a function that B's .c defines and exports (a call, or a callback handed
    on).
A rough reading of the sources, not a compiler's: comments and strings are dropped,
exported functions are the definitions at the start of a line without `static`, and a
name is a use wherever it appears.  Rough, but it errs towards seeing a dependency, never
towards hiding one.  Every circle (a strongly connected set of two or more modules) is
printed with why each of its edges is there; the exit status is 1 when there is one.

    layering_cycles.py LIB_DIR [STAGE...]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)\.h"', re.M)
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b([a-z_][a-z0-9_]*)\s*\([^;]*?\)\s*\n\{', re.M)
WORD = re.compile(r'\b[a-z_][a-z0-9_]*\b')


def strip(text, strings=True):
    """The text without comments and (strings) string and character literals, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif strings and c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def read(path):
    """(the includes of a file, its text without comments and literals)"""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    return INCLUDE.findall(strip(text, strings=False)), strip(text)


def stage_graph(stage_dir):
    """{module: {other: [reasons]}} for the stage's modules."""
    files = sorted(os.listdir(stage_dir))
    modules = [f[:-2] for f in files if f.endswith('.c')]
    src = {m: read(os.path.join(stage_dir, m + '.c')) for m in modules}
    hdr = {m: read(os.path.join(stage_dir, m + '.h'))
           for m in modules if os.path.exists(os.path.join(stage_dir, m + '.h'))}
    exported = {}
    for m in modules:
        for name in DEFINITION.findall(src[m][1]):
            exported.setdefault(name, m)
    edges = {m: {} for m in modules}
    for m in modules:
        for where, (incs, _) in (('.c', src[m]), ('.h', hdr.get(m, ([], '')))):
            for inc in incs:
                if inc != m and inc in edges:
                    edges[m].setdefault(inc, []).append('%s%s includes %s.h' % (m, where, inc))
        seen = set()
        for word in WORD.findall(src[m][1]):
            other = exported.get(word)
            if other and other != m and word not in seen:
                seen.add(word)
                edges[m].setdefault(other, []).append('%s.c uses %s()' % (m, word))
    return edges


def circles(edges):
    """The strongly connected sets of two or more modules (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    lib = sys.argv[1]
    stages = sys.argv[2:] or sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    found = 0
    for stage in stages:
        edges = stage_graph(os.path.join(lib, stage))
        for comp in circles(edges):
            found += 1
            print('lib/%s/: a circle between %s:' % (stage, ', '.join(comp)))
            for a in comp:
                for b in comp:
                    for why in edges[a].get(b, [])[:3]:
                        print('    %s -> %s: %s' % (a, b, why))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
