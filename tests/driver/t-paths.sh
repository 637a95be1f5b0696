#!/bin/sh
# Every file of the project that a comment or a document names is there
# (issue 50: comments and doc/DESIGN.md still named half2-cost.c,
# half2-div.c, transforms/target.c, output.c and trial.c after they moved
# or went, and a reader looked for them).
#
# Where: the comments of the C, CUDA, shell, Python and CMake files (and
# Python's docstrings), the // notes of the PTX tests, and the documents
# (README.md, doc/, the examples' READMEs, the man pages), in the files git
# lists (tracked, or new and not ignored). bench/results/ is a record of
# its day, and the fuzz corpora are data: neither is read.
# What: a word that ends in .c .h .md .sh .py .cu .yaml .ptx .test .txt,
# a man page's .1 or .5, or that starts bench/results/.
#  - a name with a folder is the project's when that folder is one of the
#    project's at the top (tests/driver/lib.sh) or under a folder above
#    the naming file (tune/tune.h's search/units.c, tests/ptx's
#    Inputs/x.ptx): it must be there, from the top or from one of those
#    folders; other folders are a user's (README.md's rng/gen.cu);
#  - a name alone that ends in .c .h .md .sh .py must be the name of a file
#    somewhere in the tree (k.cu, st.cu and the like are examples);
#  - a glob (fiset*.c, u-*.c, {lex,parse}.c) must match one; a name with a
#    placeholder in capitals (NAME-PART.c, bench/results/FILE) is a form,
#    not a file.
# What is named and is not the project's is listed below, with why; a
# name of the list, or a placeholder, that nothing names any more fails
# the test too, so the list stays what it says. This file is not read: it
# names the missing files above on purpose.
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
cd "$MPCC_SRC" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "skipped: not a git checkout (git lists the files)"; exit 77; }

printf 'testing every file a comment or a document names is there ... '
python3 - <<'PY'
import fnmatch, os, re, subprocess, sys

# named, and not files of the project
ALLOW = {
    'all.h', 'chibicc.h',          # QBE's and chibicc's headers (doc/STYLE.md's models)
    'cuda_fp16.h', 'cuda_bf16.h', 'cuda_runtime_api.h',  # CUDA's headers
    'a.c', 'b.c',                  # the form of tune.h's map (t-layers.sh, t-tune-contract.sh)
    'h.c',                         # an input name in a command line (u-options.c)
    'scale.h', 'cfg.h', 'h.h',     # headers that t-forms.sh and t-step-front.sh write
}
# capitals that stand for a name (NAME-PART.c, bench/results/FILE)
PLACEHOLDERS = {'FILE', 'NAME', 'PART', 'K'}
used = set()

ls = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
                    capture_output=True, text=True, check=True).stdout.split('\n')
files = [f for f in ls if f and os.path.exists(f)]
tracked = set(files)
dirs = set()
for f in files:
    d = os.path.dirname(f)
    while d:
        dirs.add(d)
        d = os.path.dirname(d)
names = {os.path.basename(f) for f in files}
tops = {f.split('/')[0] for f in files if '/' in f}


def c_comments(text):
    """the comments of C or CUDA text, strings and characters left out"""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j
            out.append(text[i + 2:j])
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(text[i + 2:j])
            i = j
        elif text[i] in '"\'':
            q, i = text[i], i + 1
            while i < n and text[i] not in (q, '\n'):
                i += 2 if text[i] == '\\' else 1
            i += 1
        else:
            i += 1
    return '\n'.join(out)


def hash_comments(text, py):
    """# comments outside quotes (and Python's triple-quoted strings)"""
    out = re.findall(r'"""(.*?)"""', text, re.S) if py else []
    for line in text.splitlines():
        q = None
        for i, c in enumerate(line):
            if q:
                q = None if c == q else q
            elif c in '"\'':
                q = c
            elif c == '#' and (i == 0 or line[i - 1] in ' \t') and not line.startswith('#!'):
                out.append(line[i + 1:])
                break
    return '\n'.join(out)


def readable(f):
    ext = os.path.splitext(f)[1]
    if f.startswith(('bench/results/', 'tests/fuzz/corpus')):
        return None
    try:
        text = open(f, encoding='utf-8', errors='replace').read()
    except OSError:
        return None
    if ext in ('.c', '.h', '.cu'):
        return c_comments(text)
    if ext in ('.sh', '.py') or os.path.basename(f) == 'CMakeLists.txt' or f.startswith('.ci/'):
        return hash_comments(text, ext == '.py')
    if ext in ('.ptx', '.test'):
        return '\n'.join(l for l in text.splitlines()
                         if l.lstrip().startswith('//') and not re.match(r'\s*//\s*[A-Z0-9-]+:', l))
    if ext == '.md' or re.match(r'man/[^/]*\.[0-9]$', f):
        return re.sub(r'\\f[BIRP]|\\&', '', text).replace('\\-', '-')
    return None


WORD = re.compile(r'(?<![\w./$<{-])'
                  r'((?:[\w.*{},-]+/)*[\w*{][\w.*{},-]*\.(?:c|h|md|sh|py|cu|yaml|ptx|test|txt|1|5)'
                  r'|bench/results/[\w.-]+)(?![\w/-])')


def braces(p):
    m = re.search(r'\{([^{}]*)\}', p)
    if not m:
        return [p]
    return [q for a in m.group(1).split(',') for q in braces(p[:m.start()] + a + p[m.end():])]


def there(p):
    for q in braces(p):
        if any(c in q for c in '*?['):
            if any(fnmatch.fnmatch(t, q) for t in tracked):
                return True
        elif q in tracked or q in dirs:
            return True
    return False


def bases(f):
    """the folders a name with a folder may start from: the top, and each above f"""
    d, out = os.path.dirname(f), ['']
    while d:
        out.append(d)
        d = os.path.dirname(d)
    return out


def wrong(f, p):
    """why p, named in f, is not there; None if it is, or is not the project's"""
    held = ({p} & ALLOW) | (set(re.split(r'[/._-]', p)) & PLACEHOLDERS)
    if held:
        used.update(held)
        return None
    if not re.search(r'[A-Za-z]', p.rsplit('.', 1)[0]):
        return None   # a number: 7.0.1
    if '/' not in p:
        if p.rsplit('.', 1)[-1] not in ('c', 'h', 'md', 'sh', 'py'):
            return None
        return None if any(fnmatch.fnmatch(b, q) for q in braces(p) for b in names) else 'no file of that name'
    first = p.split('/')[0]
    starts = [b for b in bases(f) if os.path.join(b, first) in dirs or (not b and first in tops)]
    if not starts:
        return None   # a user's folder
    if any(there(os.path.normpath(os.path.join(b, p))) for b in starts):
        return None
    return 'not there'


bad = []
for f in sorted(tracked - {'tests/driver/t-paths.sh'}):
    text = readable(f)
    for m in WORD.finditer(text or ''):
        p = m.group(1).rstrip('.')
        why = wrong(f, p)
        if why:
            bad.append('%s: %s names \'%s\': %s' % (f, 'a comment' if not f.endswith(('.md', '.1', '.5')) else 'it', p, why))
for w in sorted((ALLOW | PLACEHOLDERS) - used):
    bad.append('tests/driver/t-paths.sh: \'%s\' is in its lists, and nothing names it' % w)
if bad:
    print('failed')
    for b in sorted(set(bad)):
        print('  ' + b)
    sys.exit(1)
print('passed')
PY
