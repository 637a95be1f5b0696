# store-cmp.py A B N [TOL [STOL]]: two outputs of store-app.cu: the ints (k)
# equal bit for bit, the double arrays within TOL (rel-fro, default 1e-5; 0:
# bit for bit) of the first, the atomic sums within STOL (default 1e-4: f32
# atomics add 330,000 terms a bin over 20 iterations, each rounding to
# 6e-8; f64 atomics add in any order too, so two runs of one build differ
# by about 1e-15); exit 1 if not
import struct, sys
a, b, n = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), int(sys.argv[3])
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-5
stol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-4
nd = 5 * n
da, db = struct.unpack('%dd' % nd, a[:8 * nd]), struct.unpack('%dd' % nd, b[:8 * nd])
ka, kb = a[8 * nd:8 * nd + 4 * n], b[8 * nd:8 * nd + 4 * n]
sa, sb = struct.unpack('64d', a[8 * nd + 4 * n:]), struct.unpack('64d', b[8 * nd + 4 * n:])
ok = ka == kb
for name, x, y, t in (('arrays', da, db, tol), ('sums', sa, sb, stol)):
    num = sum((p - q) ** 2 for p, q in zip(x, y)) ** 0.5
    den = sum(p * p for p in x) ** 0.5 or 1
    print('%s: rel-fro %.3g (at most %g)' % (name, num / den, t))
    ok = ok and (x == y if t == 0 else num / den <= t)
print('ints equal' if ka == kb else 'INTS DIFFER')
sys.exit(0 if ok else 1)
