#!/usr/bin/env python3
"""make.py — regenerate the hostile-input corpus in this folder from
tests/data/ok_two_steps.json (run from the repository root).  What gpudiag
must do with each file is in expect.tsv; tests/cli/test_hostile.sh checks it.
Large cases (1 MB names, 100 000 nested arrays, 10 000 streams) are made by
the test itself instead of being stored."""
import gzip, os, random
out = 'tests/data/hostile/'
src = open('tests/data/ok_two_steps.json', 'rb').read()
L = src.split(b'\n')
kern = [i for i, l in enumerate(L) if b'"cat": "kernel"' in l]
launch = [i for i, l in enumerate(L) if b'"cudaLaunchKernel"' in l]
lo = [i for i, l in enumerate(L) if b'"traceEvents"' in l][0]
hi = [i for i, l in enumerate(L) if i > lo and l.strip() in (b']', b'],')][0]
ev = list(range(lo + 1, hi))
assert all(L[i].lstrip().startswith(b'{') for i in ev)
def w(name, data): open(out + name, 'wb').write(data)
def sub(i, old, new):
    assert old in L[i], (i, old)
    return b'\n'.join(L[:i] + [L[i].replace(old, new, 1)] + L[i + 1:])
k = kern[0]
w('warn_ts_beyond_int64.json', sub(k, b'"ts": 990', b'"ts": 99999999999999999999999'))
w('warn_dur_beyond_double.json', sub(k, b'"dur": 20', b'"dur": 1e999'))
w('warn_dur_negative.json', sub(k, b'"dur": 20', b'"dur": -20'))
w('warn_dur_nan_string.json', sub(k, b'"dur": 20', b'"dur": "NaN"'))
w('warn_dur_nan_bare.json', sub(k, b'"dur": 20', b'"dur": NaN'))
# a bare word that starts like a literal: simdjson's On-Demand types it by its first byte
w('warn_ts_bad_literal.json', sub(k, b'"ts": 990', b'"ts": fmha5'))
w('warn_ts_zero.json', sub(k, b'"ts": 990', b'"ts": 0'))
w('ok_ts_negative.json', sub(k, b'"ts": 990', b'"ts": -990'))
w('ok_invalid_utf8_name.json', sub(k, b'"name": "void at::native', b'"name": "\xff\xfe\xc3( void at::native').replace(b'NVIDIA A100', b'NVIDIA \xb6A100'))
w('ok_nul_escaped_name.json', sub(k, b'"name": "void at::native', b'"name": "evil\\u0000void at::native'))
# out of order: events reversed
body = [L[i] for i in ev]
body = [b.rstrip(b',') for b in body]
rev = list(reversed(body))
first, last = ev[0], ev[-1]
w('ok_events_reversed.json', b'\n'.join(L[:first] + [b + b',' for b in rev[:-1]] + [rev[-1]] + L[last + 1:]))
w('ok_duplicate_correlation.json', sub(kern[1], b'"correlation": 1,', b'"correlation": 99,') if b'"correlation": 1,' in L[kern[1]] else sub(kern[1], b'"correlation": 1}', b'"correlation": 99}'))
def drop(idx):
    keep = [l for i, l in enumerate(L) if i not in idx]
    return b'\n'.join(keep)
w('ok_kernels_without_launches.json', drop(set(launch)))
# launch calls with copies/memsets but no kernel: input_kernels_missing, verdict unknown
# (DEFINITIONS "Time and events", kernel launch calls without kernels)
w('warn_launches_without_kernels.json', drop(set(kern)))
w('ok_bom.json', b'\xef\xbb\xbf' + src)
w('reject_utf16.json', src.decode('utf-8').encode('utf-16'))
w('reject_zstd.json.zst', b'\x28\xb5\x2f\xfd' + b'\0' * 60)
w('reject_events_not_array.json', b'{"traceEvents": {"ph": "X"}}\n')
w('reject_events_of_numbers.json', b'{"traceEvents": [1, 2, 3]}\n')
w('reject_bare_string.json', b'"traceEvents"\n')
w('ok_two_members.json.gz', gzip.compress(src[:3000], mtime=0) + gzip.compress(src[3000:], mtime=0))
# bytes after the last member: NUL padding is ignored silently (as gzip -d does); anything else is
# input_gzip_trailing_data, counted from the end of the member (DEFINITIONS "Time and events")
w('ok_gzip_nul_padding.json.gz', gzip.compress(src, mtime=0) + b'\0' * 512)
w('warn_gzip_trailing_garbage.json.gz', gzip.compress(src, mtime=0) + b'garbage after the last member\n')
# data after the JSON document: only the first document counts (input_trailing_data at len(src))
w('warn_trailing_data.json', src + b'GARBAGE {{{\n')
w('warn_two_documents.json', src + src)
g = bytearray(gzip.compress(src, mtime=0)); g[3] |= 0x20
w('reject_gzip_reserved_flags.json.gz', bytes(g))
w('warn_missing_comma.json', sub(ev[5], b'},', b'}'))
w('ok_ids_beyond_int64.json', sub(k, b'"External id": 9', b'"External id": 99999999999999999999999'))
