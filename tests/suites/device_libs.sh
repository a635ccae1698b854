#!/usr/bin/env bash
# The CUDA toolkit's own libraries as read-only inputs: every device entry decodes, and the container/entry/
# kind/arch counts equal an independent count (cuobjdump -all from PyPI when installed, tests/lib script always).
. "$(dirname "$0")/../lib/harness.sh"
[ -n "$CUDA_HOME" ] || { skip "no CUDA toolkit (nvcc / CUDA_HOME)"; exit 0; }
L=$TRUELINE_ROOT/tests/lib
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || skip "cuobjdump (pip install nvidia-cuda-cuobjdump) absent: counts checked by tests/lib/fatbin_count.py only"
for lib in libcublasLt.so.13 libnccl.so.2; do
  f=$(ls "$CUDA_HOME"/lib64/$lib "$CUDA_HOME"/lib/$lib "$CUDA_HOME"/targets/*/lib/$lib 2>/dev/null | head -1)
  [ -n "$f" ] || { skip "$lib not in $CUDA_HOME"; continue; }
  trueline-check --list --format json "$f" >"$T/$lib.json" 2>"$T/$lib.err"; rc=$?
  check "$lib: --list exits 0 (every entry decodes)" test $rc -eq 0 -a -s "$T/$lib.json"
  head -3 "$T/$lib.err" | sed 's/^/    | /'
  python3 - "$T/$lib.json" >"$T/$lib.mine" <<'PY'
import collections, json, sys
f = json.load(open(sys.argv[1]))["files"][0]
im = f["images"]
errs = [i for i in im if i["error"]]
print("containers=%d elf=%d ptx=%d other=0" % (len({(i["section"], i["container"]) for i in im}),
      sum(i["kind"] == "cubin" for i in im), sum(i["kind"] == "ptx" for i in im)))
h = collections.Counter(("elf" if i["kind"] == "cubin" else "ptx", i["sm"]) for i in im)
for (k, a), n in sorted(h.items()):
    print("%s %s_%d %d" % (k, "sm" if k == "elf" else "compute", a, n))
print("errors=%d zstd=%d" % (len(errs), sum(i["codec"] == "zstd" for i in im)), file=sys.stderr)
PY
  python3 "$L/fatbin_count.py" "$f" >"$T/$lib.indep"
  if cmp -s "$T/$lib.mine" "$T/$lib.indep"; then pass "$lib: $(head -1 "$T/$lib.mine"), per-arch histogram equal to tests/lib/fatbin_count.py"
  else fail "$lib: counts differ from the script"; diff "$T/$lib.mine" "$T/$lib.indep" | head -5 | sed 's/^/    | /'; fi
  errs=$(python3 -c 'import json,sys; print(sum(1 for i in json.load(open(sys.argv[1]))["files"][0]["images"] if i["error"]))' "$T/$lib.json")
  check "$lib: no entry has a decode error (${errs:-no report})" test "${errs:-1}" -eq 0
  if [ -n "$CUOBJDUMP" ]; then
    c=$("$CUOBJDUMP" -all -lelf -lptx "$f" 2>/dev/null | awk '/^ELF file/{e++} /^PTX file/{p++} END{print "elf=" e+0 " ptx=" p+0}')
    m=$(head -1 "$T/$lib.mine" | sed 's/containers=[0-9]* //; s/ other=0//')
    if [ "$c" = "$m" ]; then pass "$lib: $m equals cuobjdump -all -lelf -lptx"; else fail "$lib: $m vs cuobjdump $c"; fi
  fi
done
