#!/usr/bin/env python3
"""mkconda.py PKG.tar.bz2 MEMBER=FILE...: writes a conda package in the .tar.bz2 format for the split suites:
info/index.json, info/files and info/paths.json (each member's _path, path_type, sha256 in hex and
size_in_bytes, keys sorted and indented as conda-build writes them), then the members."""
import hashlib
import io
import json
import sys
import tarfile

out = sys.argv[1]
files = [(a.split('=', 1)[0], open(a.split('=', 1)[1], 'rb').read()) for a in sys.argv[2:]]
paths = {"paths": [{"_path": n, "path_type": "hardlink", "sha256": hashlib.sha256(d).hexdigest(),
                    "size_in_bytes": len(d)} for n, d in files], "paths_version": 1}
info = [("info/index.json", json.dumps({"name": "pkg", "version": "1.0"}).encode()),
        ("info/files", "".join(n + "\n" for n, _ in files).encode()),
        ("info/paths.json", json.dumps(paths, indent=2, sort_keys=True).encode())]
with tarfile.open(out, "w:bz2") as t:
    for n, d in info + files:
        ti = tarfile.TarInfo(n)
        ti.size = len(d)
        ti.mode = 0o755 if '.so' in n else 0o644
        t.addfile(ti, io.BytesIO(d))
