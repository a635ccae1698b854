#!/usr/bin/env python3
"""Writes conf/platform_blacklist.tsv from the installed auditwheel's policy data.

auditwheel lists, per policy, symbols of whitelisted libraries a wheel must not import (zlib's internals such as
gzflags, glibc functions newer than the policy's glibc). Its blacklist is per policy, the same for every
architecture. One row per tag and library; the legacy manylinux names (manylinux2014 ...) are rows of their own,
as in conf/manylinux.tsv and conf/platform_libs.tsv. Run: python3 conf/gen-platform-blacklist.py > conf/platform_blacklist.tsv
"""
import importlib.metadata
import json
import os
import sys

import auditwheel

HEADER = """\
# Symbols a platform tag forbids a wheel's ELF files to import from a library they need (x86_64 and every other
# architecture alike), from auditwheel {version}'s policy data (auditwheel/policy/manylinux-policy.json and
# musllinux-policy.json, "blacklist"), written by conf/gen-platform-blacklist.py. auditwheel rejects a tag when a
# file it tests (an extension module, or a member no other member needs) has the library as DT_NEEDED and a
# non-weak undefined .dynsym symbol of that name (by name, any version). Legacy manylinux names are rows of their
# own. Columns: tag, library, symbols (comma-separated). Used by trueline-check's package verdict and
# symbol-versions (docs/packages.md).
tag\tlibrary\tsymbols"""


def main():
    here = os.path.join(os.path.dirname(auditwheel.__file__), "policy")
    print(HEADER.format(version=importlib.metadata.version("auditwheel")))
    for family in ("manylinux", "musllinux"):
        with open(os.path.join(here, family + "-policy.json")) as fp:
            policies = sorted(json.load(fp), key=lambda p: -p["priority"])
        for p in policies:
            if p["name"] == "linux":
                continue
            for tag in [p["name"]] + list(p.get("aliases", [])):
                for lib in sorted(p["blacklist"]):
                    syms = sorted(p["blacklist"][lib])
                    if syms:
                        print(f"{tag}\t{lib}\t{','.join(syms)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
