#!/usr/bin/env python3
"""sass.py FILE...: the machine code of every kernel in FILE, as the tests
compare it with nvcc's: one line per kernel and cubin,

    sm_90 _Z9BoxMullerPfPKji 1536 3f2a...   (arch, kernel, bytes of SASS, sha1)

FILE may be a cubin, a fatbin, an object or library from -c/-dc/-lib, or an
executable: every ELF cubin found inside is read (nvcc 13 compresses only the
PTX and debug images of a fatbin, so its cubins are there as they are). No
cuobjdump is needed, so the driver tests can check transformed SASS on a
machine without the CUDA driver tools."""
import hashlib
import struct
import sys

EM_CUDA = 190


def cubins(data):
    """the ELF images of machine EM_CUDA inside data"""
    at = data.find(b'\x7fELF')
    while at >= 0:
        if data[at + 4] == 2 and struct.unpack_from('<H', data, at + 18)[0] == EM_CUDA:
            yield at
        at = data.find(b'\x7fELF', at + 4)


def sections(data, at):
    """(name, offset, size) of each section of the ELF64 image at data[at:]"""
    shoff, = struct.unpack_from('<Q', data, at + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, at + 0x3a)
    hdrs = []
    for i in range(shnum):
        h = at + shoff + i * shentsize
        name, _typ, _flags, _addr, off, size = struct.unpack_from('<IIQQQQ', data, h)
        hdrs.append((name, off, size))
    stroff = hdrs[shstrndx][1]
    for name, off, size in hdrs:
        end = data.index(b'\0', at + stroff + name)
        yield data[at + stroff + name:end].decode(), at + off, size


def arch(data, at):
    flags, = struct.unpack_from('<I', data, at + 0x30)
    # e_flags: the sm number in bits 8..15 (ABI v1), or 0..7 (nvcc 13's images)
    sm = (flags >> 8) & 0xff if flags & 0xff00 else flags & 0xff
    return 'sm_%d' % sm


def main():
    for path in sys.argv[1:]:
        data = open(path, 'rb').read()
        for at in cubins(data):
            a = arch(data, at)
            for name, off, size in sections(data, at):
                if name.startswith('.text.'):
                    code = data[off:off + size]
                    print(a, name[6:], size, hashlib.sha1(code).hexdigest()[:16])


if __name__ == '__main__':
    main()
