#!/usr/bin/env bash
# Large package members go through an unlinked, mapped temporary file instead of the heap (checker/member_spill.h);
# TRUELINE_SPILL_MB sets the size from which they do (0: every member). The report must not depend on the path a
# member took: text and JSON byte-identical with every member spilled and with none, for a host library with a
# 2 MB blob and, where nvcc is found, a library with device code (whose pages the device reader releases once
# read). That the path is taken is shown by a TMPDIR that does not exist: only then is the member unreadable,
# with a message naming it and the directory, exit 2, the other input still checked.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }
printf 'int host_fn(int x) { return x * 3; }\n' > host.c
premise "fixtures: a -g shared library with a 2 MB random .blob section (readelf -S)" sh -c '
  gcc -g -shared -fPIC host.c -o libhost0.so && head -c 2097152 /dev/urandom > blob.bin &&
  objcopy --add-section .blob=blob.bin --set-section-flags .blob=readonly,data libhost0.so libhost.so &&
  readelf -SW libhost.so | grep -q "\.blob"'
members="pkg/libhost.so=libhost.so"
if have_nvcc && nvcc -shared -Xcompiler -fPIC -lineinfo -gencode arch=compute_80,code=sm_80 \
     -gencode arch=compute_90,code=sm_90 "$TRUELINE_ROOT/tests/data/device/kern.cu" -o libkern.so 2>/dev/null; then
  members="$members pkg/libkern.so=libkern.so"
  dev=1
else
  skip "device member: nvcc not found or cannot build kern.cu"
  dev=0
fi
W=spill-1.0-py3-none-manylinux_2_17_x86_64.whl
mkwheel $W $members

# every member spilled vs none; no image cache, so that device images are read in both runs
for m in 0 100000; do
  TRUELINE_SPILL_MB=$m trueline-check --no-image-cache $W > text-$m.txt 2> err-$m.txt; echo $? > rc-$m
  TRUELINE_SPILL_MB=$m trueline-check --no-image-cache --format json $W > json-$m.json 2> /dev/null
done
contains "the report names the host member" text-100000.txt "pkg/libhost\\.so"
check "text report: byte-identical with every member through the temporary file" cmp -s text-0.txt text-100000.txt
check "JSON report: byte-identical with every member through the temporary file" cmp -s json-0.json json-100000.json
same "exit status: the same" "$(cat rc-100000)" "$(cat rc-0)"
check "JSON lists the host member (and the device one where built)" python3 -c '
import json, sys
m = json.load(open("json-0.json"))["packages"][0]["members"]
want = ["pkg/libhost.so"] + (["pkg/libkern.so"] if '"$dev"' else [])
sys.exit(not all(any(x.endswith("!" + w) for x in m) for w in want))'
if [ "$dev" = 1 ]; then
  # oracle: the -gencode targets the fixture was built for
  check "device member through the temporary file: its images are read (archs sm_80 sm_90, as built)" python3 -c '
import json, sys
d = json.load(open("json-0.json"))
f = [x for x in d["files"] if x["path"].endswith("!pkg/libkern.so")]
sys.exit(not (f and len(f[0]["images"]) >= 2 and d["packages"][0]["verdict"]["archs"]["sass"] == "sm_80 sm_90"))'
fi

# the path is taken: a TMPDIR that does not exist makes a spilled member unreadable, and only a spilled one
TMPDIR=$T/none TRUELINE_SPILL_MB=0 trueline-check $W libhost.so > gone.txt 2>&1; echo $? > gone.rc
TMPDIR=$T/none TRUELINE_SPILL_MB=100000 trueline-check $W > kept.txt 2>&1
contains "TRUELINE_SPILL_MB=0, TMPDIR missing: the member is named with the directory" gone.txt \
  "$W!pkg/libhost\\.so.*cannot create a temporary file in $T/none"
same "... exit 2 (an unreadable input)" 2 "$(cat gone.rc)"
contains "... the plain library given beside it is still checked" gone.txt "^libhost\\.so|libhost\\.so: "
lacks "below the threshold the member stays in memory: no temporary file is needed" kept.txt \
  "cannot create a temporary file" "pkg/libhost\\.so"
