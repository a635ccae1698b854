#!/usr/bin/env bash
# trueline-cc with the real nvcc and ccache: the poisoning repro (NVCC_PREPEND_FLAGS), a toolchain change
# behind an unchanged driver (edited nvcc.profile), -ccbin from the environment, nvcc's own splitting of
# NVCC_*_FLAGS and -optf files (checked against nvcc --dryrun). Few, small compiles (-arch=sm_90).
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME/PATH)"; exit 0; }
cd "$T"
printf '__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x * 3; }\nint host_side(int x) { return x + 1; }\n' > k.cu
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || echo "# cuobjdump not installed: device line info judged by the fatbin entry identifier"
# Device line info: the cubin inside the object has .debug_line (cuobjdump extracts it); without the
# oracle, the fatbin entry identifier (the source name) that nvcc sets only under -lineinfo/-G.
device_lines() {
  if [ -n "$CUOBJDUMP" ]; then
    local d; d=$(mktemp -d "$T/x.XXXX")
    (cd "$d" && "$CUOBJDUMP" -xelf all "$T/$1" >/dev/null 2>&1) || return 1
    readelf -S "$d"/*.cubin 2>/dev/null | grep -qE '\] \.debug_line +'
  else
    readelf -p .nv_fatbin "$1" 2>/dev/null | grep -q 'k\.cu'
  fi
}
host_lines() { readelf -S "$1" 2>/dev/null | grep -qE '\] \.debug_line +'; }
NV=(-c -arch=sm_90 k.cu)

if have ccache; then
  export CCACHE_DIR=$T/ccache
  stats() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'; }

  # --- the poisoning repro ---------------------------------------------------------------------------------
  ccache nvcc "${NV[@]}" -o k0.o
  read -r h0 m0 < <(stats)
  NVCC_PREPEND_FLAGS=-lineinfo ccache nvcc "${NV[@]}" -o k1.o
  read -r h1 m1 < <(stats)
  # the repro itself is ccache's behaviour, what the checks below are measured against
  premise "bare ccache: NVCC_PREPEND_FLAGS=-lineinfo is a cache hit" test $((h1 - h0)) = 1 -a "$m1" = "$m0"
  premise "... returning the stale object (byte-identical to the plain build)" same_bytes k0.o k1.o
  premise "... whose cubin has no .debug_line" eval '! device_lines k1.o'
  # Device forcing off, so only the folded variable can bring -lineinfo.
  NVCC_PREPEND_FLAGS=-lineinfo TRUELINE_WRAPPER_DEVICE_LINEINFO=false trueline-cc ccache nvcc "${NV[@]}" -o k2.o
  read -r h2 m2 < <(stats)
  check "through trueline-cc: a miss" test $((m2 - m1)) = 1 -a "$h2" = "$h1"
  check "... and the cubin has .debug_line" device_lines k2.o
  check "... and the host code has .debug_line (forced -g1)" host_lines k2.o
  NVCC_PREPEND_FLAGS=-lineinfo TRUELINE_WRAPPER_DEVICE_LINEINFO=false trueline-cc ccache nvcc "${NV[@]}" -o k3.o
  read -r h3 m3 < <(stats)
  check "an identical call through trueline-cc is a hit" test $((h3 - h2)) = 1 -a "$m3" = "$m2"
  check "... giving the same object" same_bytes k2.o k3.o

  # --- toolchain change behind an unchanged driver -----------------------------------------------------------
  C=$T/cuda; mkdir -p "$C/bin"
  for f in "$CUDA_HOME"/bin/*; do ln -s "$f" "$C/bin/"; done
  for d in nvvm targets; do [ -e "$CUDA_HOME/$d" ] && ln -s "$CUDA_HOME/$d" "$C/$d"; done
  rm "$C/bin/nvcc" "$C/bin/nvcc.profile"
  cp -p "$CUDA_HOME/bin/nvcc" "$CUDA_HOME/bin/nvcc.profile" "$C/bin/"
  ccache "$C/bin/nvcc" "${NV[@]}" -o t0.o
  trueline-cc ccache "$C/bin/nvcc" "${NV[@]}" -o t1.o
  fp_before=$(trueline-cc --trueline-print-fingerprint "$C/bin/nvcc" "${NV[@]}")
  sed -i 's/^PTXAS_FLAGS.*/PTXAS_FLAGS     += -O0/' "$C/bin/nvcc.profile"
  touch -r "$CUDA_HOME/bin/nvcc" "$C/bin/nvcc"
  premise "nvcc.profile really gained the PTXAS_FLAGS entry" grep -q -- '-O0' "$C/bin/nvcc.profile"
  premise "nvcc itself kept size and mtime" test "$(stat -c %s.%Y "$C/bin/nvcc")" = "$(stat -c %s.%Y "$CUDA_HOME/bin/nvcc")"
  read -r ha ma < <(stats)
  ccache "$C/bin/nvcc" "${NV[@]}" -o t2.o
  read -r hb mb < <(stats)
  premise "bare ccache after the profile change: a (stale) hit" test $((hb - ha)) = 1 -a "$mb" = "$ma"
  premise "... the very object built before the change" same_bytes t0.o t2.o
  trueline-cc --trueline-explain ccache "$C/bin/nvcc" "${NV[@]}" -o t3.o 2>ex.txt
  read -r hc mc < <(stats)
  check "through trueline-cc after the change: a miss" test $((mc - mb)) = 1 -a "$hc" = "$hb"
  # the truth for the new object: bare nvcc of the changed toolchain, uncached
  "$C/bin/nvcc" "${NV[@]}" -lineinfo -Xcompiler=-g1 -o t3.bare.o # with the flags trueline-cc forces
  check "... and the new object differs from the old (ptxas -O0 took effect)" sh -c '[ -s "$1" ] && [ -s "$2" ] && ! cmp -s "$1" "$2"' _ t1.o t3.o
  check "... its device code is the changed toolchain's" sh -c '[ "$(readelf -x .nv_fatbin t3.o)" = "$(readelf -x .nv_fatbin t3.bare.o)" ] && readelf -S t3.o | grep -q nv_fatbin'
  contains "explain: nvcc.profile component listed" ex.txt "component nvcc.profile: [0-9a-f]{32} $C/bin/nvcc.profile"
  lacks "explain: the fingerprint changed" ex.txt "fingerprint: ${fp_before:-none}" 'fingerprint: [0-9a-f]{32}'

  # --- a shim in nvcc's place (a script exec'ing the toolkit's, as /usr/local/bin/nvcc is on some images) ----
  # Truth: nvcc -dryrun's TOP names the installation that runs; the shim's own directory has no nvcc.profile
  mkdir -p shim && printf '#!/bin/sh\nexec "%s" "$@"\n' "$C/bin/nvcc" > shim/nvcc && chmod +x shim/nvcc
  premise "nvcc -dryrun through the shim names the toolkit as TOP" sh -c "shim/nvcc -dryrun -c x.cu 2>&1 | grep -q '^#\\$ TOP=$C/bin/..'"
  trueline-cc --trueline-explain --trueline-print-fingerprint "$T/shim/nvcc" "${NV[@]}" > fps1.txt 2> exs.txt
  contains "a shim in nvcc's place: the nvcc behind it is the nvcc component" exs.txt "component nvcc: [0-9a-f]{32} $C/bin/nvcc( |\$)"
  contains "... the shim is a component of its own" exs.txt "component nvcc shim: [0-9a-f]{32} $T/shim/nvcc( |\$)"
  contains "... the toolkit's nvcc.profile is fingerprinted" exs.txt "component nvcc.profile: [0-9a-f]{32} $C/bin/nvcc.profile"
  sed -i 's/^PTXAS_FLAGS.*/PTXAS_FLAGS     += -O1/' "$C/bin/nvcc.profile"
  fps2=$(trueline-cc --trueline-print-fingerprint "$T/shim/nvcc" "${NV[@]}")
  differ "... a profile changed behind the unchanged shim changes the fingerprint" "$(cat fps1.txt)" "$fps2"

  # --- the closure memo: a ptxas rewritten in place (same size and mtime) behind a warm memo ----------------
  rm "$C/bin/ptxas"; cp -p "$CUDA_HOME/bin/ptxas" "$C/bin/ptxas"
  sleep 3 # outside the 2 s window in which nothing is memoized (wrapper/fingerprint/deps.h)
  fp_a=$(trueline-cc --trueline-print-fingerprint "$C/bin/nvcc" "${NV[@]}")
  trueline-cc --trueline-explain --trueline-print-fingerprint "$C/bin/nvcc" "${NV[@]}" >fp_b.txt 2>ex.txt
  contains "closure memo: a warm nvcc lookup comes from the memo" ex.txt 'closure: from the memo'
  check "... with the same fingerprint" test -n "$fp_a" -a "$fp_a" = "$(cat fp_b.txt)"
  printf 'X' | dd of="$C/bin/ptxas" bs=1 seek=100 conv=notrunc 2>/dev/null
  touch -r "$CUDA_HOME/bin/ptxas" "$C/bin/ptxas"
  premise "ptxas rewritten in place kept size and mtime" test "$(stat -c %s.%Y "$C/bin/ptxas")" = "$(stat -c %s.%Y "$CUDA_HOME/bin/ptxas")"
  trueline-cc --trueline-explain --trueline-print-fingerprint "$C/bin/nvcc" "${NV[@]}" >fp_c.txt 2>ex.txt
  differ "... the fingerprint changes" "$fp_a" "$(cat fp_c.txt)"
  contains "... the closure was walked again" ex.txt 'closure: walked'
else
  skip "ccache not installed: poisoning and toolchain-change tests"
fi

# --- -ccbin from NVCC_PREPEND_FLAGS chooses the host compiler to fingerprint -----------------------------
fp_gxx=$(NVCC_PREPEND_FLAGS='-ccbin g++' trueline-cc --trueline-print-fingerprint nvcc "${NV[@]}")
if have clang++; then
  NVCC_PREPEND_FLAGS='-ccbin clang++' trueline-cc --trueline-explain --trueline-print-fingerprint nvcc "${NV[@]}" >fp.txt 2>ex.txt
  differ "-ccbin g++ vs clang++ (via NVCC_PREPEND_FLAGS): different fingerprints" "$fp_gxx" "$(cat fp.txt)"
  contains "explain names the host compiler and where it came from" ex.txt 'host compiler: .*clang\+\+ \(from -ccbin\)'
  contains "... and fingerprints its driver" ex.txt 'component host driver: [0-9a-f]{32} .*clang'
else
  skip "-ccbin switch: clang++ not installed"
fi
same "the same -ccbin gives the same fingerprint" "$fp_gxx" "$(NVCC_PREPEND_FLAGS='-ccbin g++' trueline-cc --trueline-print-fingerprint nvcc "${NV[@]}")"

# --- nvcc's own splitting, checked against nvcc --dryrun ----------------------------------------------------
norm() { grep -vE '^#\$ (NVCC_(PRE|AP)PEND_FLAGS|_HERE_|_THERE_)=' | sed -E 's/tmpxft_[0-9a-f_]+/TMP/g'; }
dry_case() { # name, then env assignments as arguments to env
  local name=$1; shift
  env "$@" nvcc --dryrun "${NV[@]}" -o d.o 2>&1 | norm > want.txt; local rw=${PIPESTATUS[0]}
  env "$@" trueline-cc nvcc --dryrun "${NV[@]}" -o d.o 2>&1 | norm > got.txt; local rg=${PIPESTATUS[0]}
  if cmp -s want.txt got.txt && [ "$rw" = "$rg" ]; then pass "$name"; else
    fail "$name (status $rw vs $rg)"; diff want.txt got.txt | head -8 | sed 's/^/    | /'; fi
}
dry_case 'NVCC_PREPEND_FLAGS with double quotes: same sub-commands as nvcc' 'NVCC_PREPEND_FLAGS=-DA="x y" -DC="p q"r' 'NVCC_APPEND_FLAGS=-DZ=1  -DW=2'
dry_case "NVCC_PREPEND_FLAGS with single quotes: nvcc's failure reproduced" "NVCC_PREPEND_FLAGS=-DA='x y'"
dry_case "NVCC_PREPEND_FLAGS with a backslash: left to nvcc, same refusal" 'NVCC_PREPEND_FLAGS=-DA=x\ y'
printf '%s\n' '-DA="x y" -DB=p\ q' "-DS='s'" > opts.txt
nvcc --dryrun "${NV[@]}" -optf opts.txt -o d.o 2>&1 | norm > want.txt
trueline-cc --trueline-explain nvcc --dryrun "${NV[@]}" -optf opts.txt -o d.o 2>&1 | grep -v '^trueline-cc:' | norm > got.txt
check "-optf with quotes and backslashes: same sub-commands as nvcc" cmp -s want.txt got.txt
TRUELINE_EXPLAIN=1 trueline-cc nvcc --dryrun "${NV[@]}" -optf opts.txt -o d.o >/dev/null 2>ex.txt
contains "-optf folded (explain)" ex.txt 'folded: options file opts.txt'
contains "--dryrun: nothing forced" ex.txt 'nothing forced: dry run'
NVCC_APPEND_FLAGS=-G trueline-cc --trueline-explain --trueline-print-fingerprint nvcc "${NV[@]}" >/dev/null 2>ex.txt
contains "-G (from NVCC_APPEND_FLAGS): noted, -lineinfo not added" ex.txt 'note: -G present'
lacks "... really not added" ex.txt 'forced: -lineinfo' 'note: -G present'
