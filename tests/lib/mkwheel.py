#!/usr/bin/env python3
"""mkwheel.py WHEEL MEMBER=FILE...: writes a wheel auditwheel reads, for the package suites' fixtures.

The wheel's name gives the package, version and tag (pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl); each
MEMBER=FILE argument adds FILE's bytes as MEMBER. The .dist-info holds WHEEL (with that tag), METADATA and a
RECORD listing every file with its sha256, as pip and auditwheel expect."""
import base64
import hashlib
import os
import sys
import zipfile

name = sys.argv[1]
parts = os.path.basename(name)[:-4].split('-')
pkg, ver = parts[0], parts[1]
di = f'{pkg}-{ver}.dist-info'
files = [(a.split('=', 1)[0], open(a.split('=', 1)[1], 'rb').read()) for a in sys.argv[2:]]
files += [(f'{di}/WHEEL', f'Wheel-Version: 1.0\nGenerator: fixture\nRoot-Is-Purelib: false\nTag: {"-".join(parts[2:])}\n'.encode()),
          (f'{di}/METADATA', f'Metadata-Version: 2.1\nName: {pkg}\nVersion: {ver}\n'.encode())]
rec = ''.join(f'{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()},{len(d)}\n'
              for n, d in files)
with zipfile.ZipFile(name, 'w', zipfile.ZIP_DEFLATED) as z:
    for n, d in files:
        z.writestr(n, d)
    z.writestr(f'{di}/RECORD', rec + f'{di}/RECORD,,\n')
