#!/usr/bin/env python3
"""fnhash.py: fnhash() of ptx/print.c, computed again from the outside.

  mpcc-opt IN.ptx -p reprint | fnhash.py

For each .entry of the PTX printed from the IR, the FNV-1a hash (32 bits)
of its instructions, one a line as the canonical printer writes them
(labels, directives, braces and // comments left out), printed as "NAME
XXXXXXXX": a test compares it with what a pass reports it hashed."""
import re
import sys

text = re.sub(r'//[^\n]*', '', sys.stdin.read())
for m in re.finditer(r'\.entry\s+(\w+)\s*\(', text):
    body = text[text.index('{', m.end()):]
    depth, end = 0, 0
    for end, c in enumerate(body):
        depth += (c == '{') - (c == '}')
        if depth == 0:
            break
    h = 2166136261
    for line in body[1:end].split('\n'):
        s = line.strip()
        if not s or s[0] in '.{}' or s.endswith(':'):
            continue
        for c in (s + '\n').encode():
            h = ((h ^ c) * 16777619) & 0xffffffff
    print('%s %08x' % (m.group(1), h))
