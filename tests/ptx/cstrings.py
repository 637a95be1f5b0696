#!/usr/bin/env python3
"""cstrings.py: the strings a pass declared as byte arrays, readable.

  cstrings.py < OUT.ptx

Each ".global .align 1 .b8 NAME[N] = {b0, b1, ..., 0};" (a C string, as
the shadow pass writes vprintf's formats) is printed as NAME "TEXT", with
a newline as \\n, so that a test can check a format as text."""
import re
import sys

for m in re.finditer(r'\.global\s+\.align\s+1\s+\.b8\s+(\w+)\[\d+\]\s*=\s*\{([^}]*)\}', sys.stdin.read()):
    b = bytes(int(x) for x in m.group(2).split(','))
    print('%s "%s"' % (m.group(1), b.rstrip(b'\0').decode('latin-1').replace('\n', '\\n')))
