#!/usr/bin/env python3
"""pngcheck.py FILE.png MIN_COLOURS — decode a PNG (8-bit RGB/RGBA, no
interlace; what Chromium writes) with zlib alone and fail unless it has at
least MIN_COLOURS distinct colours and at least 2% of its pixels differ from
the most common one: a blank or error page fails."""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("FAIL %s: not a PNG" % path)
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("FAIL %s: unsupported PNG (depth %d, colour type %d)" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = pixels(sys.argv[1])
    want = int(sys.argv[2])
    count = Counter()
    for r in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            count[r[x:x + 3]] += 1
    total = sum(count.values())
    top = count.most_common(1)[0][1]
    ok = len(count) >= want and (total - top) >= 0.02 * total
    print("%s: %dx%d, %d colours, %.1f%% not background" % (sys.argv[1], w, h, len(count), 100.0 * (total - top) / total))
    sys.exit(0 if ok else 1)


main()
