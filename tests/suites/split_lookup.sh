#!/usr/bin/env bash
# Line info split out of what ships, read back from the debug store: --symbolize, the audit and --coredump on
# the stripped build, given the store (--debug-store, or a real debuginfod serving it through DEBUGINFOD_URLS),
# answer as on the unstripped build; without the store the audit says so once per file. The stripped files
# and the store are made here without trueline (tests/lib/split_lines.py empties the line sections in place,
# eu-strip -f splits the host DWARF), so a reader that only understands its own writer's output fails.
. "$(dirname "$0")/../lib/harness.sh"
L=$TRUELINE_ROOT/tests/lib
SPLIT="python3 $L/split_lines.py"
TC=trueline-check
have python3 || { skip "python3 is needed to make the stripped fixtures"; exit 0; }
cd "$T" || exit 1
export DEBUGINFOD_CACHE_PATH=$T/debuginfod-client
unset DEBUGINFOD_URLS

# The helper (tests/lib/split_helper.c): the tool's own identity function, so that the parts written here are
# keyed as the split keys them (whether a stripped image and a core's relocated copy find them is what is
# tested), and the split's own cubin writers for a second, real, stripped cubin and store.
O=$TRUELINE_BUILD/obj/checker
# (under make asan the objects are instrumented: the helper links the sanitizer runtimes as they were built)
premise "the split helper builds against the build's objects" ${CC:-cc} -std=c11 -D_GNU_SOURCE \
  ${TRUELINE_SANITIZED:+-fsanitize=address,undefined} \
  -I"$TRUELINE_ROOT/include" -I"$TRUELINE_ROOT/checker" "$L/split_helper.c" "$O/read/device_identity.o" \
  "$O/read/store_lookup.o" "$O/read/debug_store.o" "$O/split/cubin_strip.o" "$O/split/cubin_layout.o" \
  "$TRUELINE_BUILD/lib/libtrueline.a" -lelf -lxxhash -lzstd -lz -ldl -o split_helper
devid() { ./split_helper id "$@"; }
# store_cubins STORE CUBIN...: one store part per cubin with code, under its identity
store_cubins() {
  local s=$1 c id; shift
  for c in "$@"; do id=$(devid "$c" 2>/dev/null) && $SPLIT store-part "$c" "$id" "$s" >/dev/null; done
}
# store_host STORE DEBUGFILE: the host debug file under its GNU build-id
store_host() {
  local id; id=$(readelf -n "$2" | awk '/Build ID:/ { print $3; exit }')
  [ -n "$id" ] && mkdir -p "$1/.build-id/${id:0:2}" && cp "$2" "$1/.build-id/${id:0:2}/${id:2}.debug"
}
# norm FILE: a report with the file names taken out, for comparing the stripped and the unstripped build's
norm() { sed -E 's/(shipped\/)?(lib[a-z]+|kern)(\.stripped)?\.(so|cubin)/FILE/g' "$1"; }

# --- host code: a C++ library, its DWARF split out by eu-strip -f -----------------------------------------
if have g++ && have eu-strip && have readelf && have objdump && have addr2line; then
  cat > host.cc <<'EOF'
static inline int sq(int x) { return x * x + 1; }
__attribute__((always_inline)) inline int twice(int x) { return sq(x) + sq(x + 3); }
extern "C" int api(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += twice(i) ^ i;
    return s;
}
extern "C" __attribute__((noinline)) int other(int x) { return api(x) * 3 + 1; }
EOF
  premise "g++ builds the host library" g++ -O2 -g -fPIC -shared -Wl,--build-id -o libhost.so host.cc
  mkdir -p hostdbg
  premise "eu-strip -f splits its DWARF" eu-strip -f hostdbg/libhost.debug -o libhost.stripped.so libhost.so
  premise "the debug file goes to the store" store_host store hostdbg/libhost.debug
  addrs=$(objdump -d --no-show-raw-insn libhost.so | awk '/<(api|other)>:/ {p=1; next} /^$/ {p=0}
          p && $1 ~ /:$/ { sub(":", "", $1); print "0x" $1 }')
  premise "objdump lists the library's instructions" test "$(echo "$addrs" | wc -w)" -gt 10
  $TC --symbolize libhost.so $addrs > host.full 2>&1
  $TC --symbolize libhost.stripped.so --debug-store store $addrs > host.store 2>&1; rc=$?
  check "host: --symbolize on the stripped library + store = on the unstripped ($(echo "$addrs" | wc -w) addresses)" \
    sh -c '[ '$rc' = 0 ] && grep -q "host.cc:" host.store && cmp -s host.full host.store'
  $TC --symbolize --addr2line libhost.stripped.so --debug-store store $addrs > host.a2l 2>/dev/null
  for a in $addrs; do addr2line -f -i -C -e libhost.so "$a"; done > host.oracle
  check "host: --addr2line through the store prints binutils addr2line's frames on the unstripped library" \
    same_bytes host.oracle host.a2l
  $TC --symbolize libhost.stripped.so $addrs > host.none 2>&1; rc=$?
  check "host: without the store, exit 2 naming the build-id and the way to give the store" \
    sh -c '[ '$rc' = 2 ] && grep -q "build-id [0-9a-f]*.*--debug-store or DEBUGINFOD_URLS" host.none'
  # the audit: the host DWARF from the store by build-id; without it, one note for the file
  hid=$(readelf -n hostdbg/libhost.debug | awk '/Build ID:/ { print $3; exit }')
  $TC --no-image-cache libhost.so > ha.full; $TC --no-image-cache --debug-store store libhost.stripped.so > ha.store
  norm ha.full > hlt.full; norm ha.store > hlt.store
  check "host audit: with the store, the unstripped library's report (every line of it)" \
    sh -c 'grep -q "file(s) checked" hlt.full && cmp -s hlt.full hlt.store'
  $TC --no-image-cache libhost.stripped.so > ha.none
  check "host audit: without the store, one 'line info split out; store not given' naming the build-id" \
    sh -c '[ "$(grep -c "\[line-tables\]" ha.none)" = 1 ] && grep -q "warning \[line-tables\] line info split out; store not given: .*build-id '"$hid"'" ha.none'
else
  skip "host part: g++, eu-strip (elfutils), readelf, objdump and addr2line are needed"
fi

# --- device code: a CUDA library, one TU with -lineinfo and one without ---------------------------------
have_nvcc || { skip "device part: nvcc not found (CUDA_HOME / PATH)"; exit 0; }
D=$TRUELINE_ROOT/tests/data/device
# uncompressed fatbin entries, so that split_lines.py can empty their line sections in place
premise "nvcc builds kern.o with -lineinfo" nvcc -O2 -g -lineinfo -no-compress -arch=sm_90 -Xcompiler -fPIC -c \
  -o kern.o "$D/kern.cu"
premise "nvcc builds kern_b.o without" nvcc -O2 -g -no-compress -arch=sm_90 -Xcompiler -fPIC -c -o kern_b.o "$D/kern_b.cu"
premise "nvcc links libmix.so" nvcc -no-compress -arch=sm_90 -shared -Xlinker --build-id -o libmix.so kern.o kern_b.o
premise "nvcc builds kern.cubin" nvcc -O2 -lineinfo -arch=sm_90 -cubin -o kern.cubin "$D/kern.cu"
mkdir -p devdbg
premise "the shipped library: host DWARF split out (eu-strip -f), device line sections emptied" \
  sh -c 'eu-strip -f devdbg/libmix.debug -o libmix.eu.so libmix.so && '"$SPLIT"' strip libmix.eu.so libmix.stripped.so'
premise "the shipped cubin: line sections emptied" $SPLIT strip kern.cubin kern.stripped.cubin
premise "the library's device images extracted" $TC --extract ex libmix.so
store_cubins store ex/*.cubin kern.cubin
store_host store devdbg/libmix.debug
premise "the store holds a part for kern.cu's cubin" test -s "store/.build-id/$(devid kern.cubin | cut -c1-2)/$(devid kern.cubin | cut -c3-).debug"
check "the stripped image keeps its identity (the store key)" sh -c '[ "$(./split_helper id kern.cubin)" = "$(./split_helper id kern.stripped.cubin)" ]'

# locations: every 16th byte of each kernel and device function of kern.cu's cubin
locs=$(readelf -sW kern.cubin | awk '$4 == "FUNC" && $3 > 0 { for (o = 0; o < $3; o += 16) printf "%s+0x%x\n", $NF, o }')
premise "kern.cubin has functions to ask about" test "$(echo "$locs" | wc -l)" -gt 20
$TC --symbolize libmix.so $locs > dev.full 2>&1
$TC --symbolize libmix.stripped.so --debug-store store $locs > dev.store 2>&1; rc=$?
check "device: --symbolize on the stripped library + store = on the unstripped ($(echo "$locs" | wc -l) locations)" \
  sh -c '[ '$rc' = 0 ] && grep -q "kern.cu:[0-9]" dev.store && cmp -s dev.full dev.store'
$TC --symbolize kern.cubin $locs > cub.full 2>&1
$TC --symbolize kern.stripped.cubin --debug-store store $locs > cub.store 2>&1
check "device: the same for a standalone cubin" sh -c 'grep -q "kern.cu:[0-9]" cub.store && cmp -s cub.full cub.store'
$TC --symbolize kern.stripped.cubin $locs > cub.none 2>cub.none.err
contains "device: without the store, --symbolize says the line info was split out and the store not given" \
  cub.none.err 'line info split out \(identity [0-9a-f]{32}\); store not given'
lacks "  and answers with no line" cub.none 'kern\.cu:' 'no line information for this offset'
# the split's own writers: tlck_cubin_strip_lines relays the cubin out, tlck_cubin_add_build_id writes the part
premise "the split's writers make a stripped cubin and its store part" sh -c \
  './split_helper strip kern.cubin kern.real.cubin && ./split_helper part kern.cubin realstore >/dev/null'
check "  the relaid-out cubin is smaller and keeps its identity" sh -c \
  '[ $(stat -c %s kern.real.cubin) -lt $(stat -c %s kern.cubin) ] && [ "$(./split_helper id kern.cubin)" = "$(./split_helper id kern.real.cubin)" ]'
$TC --symbolize kern.real.cubin --debug-store realstore $locs > real.store 2>&1
check "  --symbolize on it + its store = on the unstripped cubin" sh -c 'grep -q "kern.cu:[0-9]" real.store && cmp -s cub.full real.store'

# the audit: line-tables of the stripped build + store = of the unstripped build
$TC --no-image-cache libmix.so kern.cubin > audit.full; $TC --no-image-cache --debug-store store \
  libmix.stripped.so kern.stripped.cubin > audit.store
norm audit.full | grep '\[line-tables\]' > lt.full; norm audit.store | grep '\[line-tables\]' > lt.store
check "audit: the store gives the unstripped build's line-tables findings (kern_b.cu's kernels still missing)" \
  sh -c 'grep -q "plainOne.*no line rows" lt.full && cmp -s lt.full lt.store'
$TC --no-image-cache libmix.stripped.so kern.stripped.cubin > audit.none
check "audit: without the store, one 'line info split out; store not given' per file" \
  sh -c '[ "$(grep -c "line info split out; store not given" audit.none)" = 2 ] &&
         grep -q "^libmix.stripped.so: .*store not given" audit.none && grep -q "^kern.stripped.cubin: .*store not given" audit.none'
lacks "  and no finding per kernel of the split images" audit.none 'kern[AB].*no line rows' 'plainOne.*no line rows'
printf '[audit]\ndebug_store = %s\n' "$T/store" > store.ini
$TC --no-image-cache --config store.ini libmix.stripped.so kern.stripped.cubin > audit.cfg
norm audit.cfg | grep '\[line-tables\]' > lt.cfg
check "audit: [audit] debug_store in the configuration does what --debug-store does" cmp -s lt.full lt.cfg
TRUELINE_AUDIT_DEBUG_STORE=$T/store $TC --no-image-cache libmix.stripped.so kern.stripped.cubin > audit.env
norm audit.env | grep '\[line-tables\]' > lt.env
check "audit: so does TRUELINE_AUDIT_DEBUG_STORE" cmp -s lt.full lt.env
mkdir -p emptystore
$TC --no-image-cache --debug-store emptystore kern.stripped.cubin > audit.miss; rc=$?
check "audit: a store without the part: the image and its identity named, exit 1" \
  sh -c '[ '$rc' = 1 ] && grep -q "debug store has no part for 1 of 1 cubins .*identity $(./split_helper id kern.cubin)" audit.miss'

# the split mode itself (trueline-check --split): its shipped copy and store read back alike
if $TC --help | grep -q -- '--split'; then
  $TC --split --debug-store splitstore --output-dir shipped libmix.so > split.out 2>&1; rc=$?
  premise "--split writes the shipped libmix.so and its store" sh -c '[ '$rc' = 0 ] && [ -s shipped/libmix.so ] && [ -d splitstore/.build-id ]'
  $TC --symbolize shipped/libmix.so --debug-store splitstore $locs > split.sym 2>&1
  check "--split's output + its store: --symbolize = on the unstripped library" \
    sh -c 'grep -q "kern.cu:[0-9]" split.sym && cmp -s dev.full split.sym'
  $TC --no-image-cache --debug-store splitstore shipped/libmix.so kern.cubin > audit.split
  norm audit.split | grep '\[line-tables\]' > lt.split
  check "--split's output + its store: the audit's line-tables findings = the unstripped build's" cmp -s lt.full lt.split
  $TC --no-image-cache shipped/libmix.so > audit.split.none
  check "--split's output without the store: one 'split out' finding for its device code, none per kernel" \
    sh -c '[ "$(grep -c "line info split out; store not given" audit.split.none)" = 1 ] && ! grep -q "kern[AB].*no line rows" audit.split.none'
  # compressed entries (nvcc's default): the image cache keeps the split images' summaries, and the store's
  # line facts are taken after the cache answered, so a second audit from the cache is the first one
  premise "nvcc builds libz.so with compressed entries" nvcc -O2 -g -lineinfo -gencode arch=compute_90,code=sm_90 \
    -gencode arch=compute_90,code=compute_90 -Xcompiler -fPIC -shared -Xlinker --build-id -o libz.so "$D/kern.cu"
  premise "--split splits it" $TC --split --debug-store zstore --output-dir zout libz.so
  $TC --verbose --no-image-cache libz.so > z.full 2>/dev/null
  $TC --verbose --debug-store zstore zout/libz.so > z.first 2> z.first.err
  $TC --verbose --debug-store zstore zout/libz.so > z.second 2> z.second.err
  for r in z.full z.first z.second; do norm $r | grep '\[line-tables\]' | sed 's/^zout\///' > $r.lt; done
  check "image cache: stored on the first audit, answered on the second" \
    sh -c 'grep -q " [1-9][0-9]* stored" z.first.err && grep -q " [1-9][0-9]* hits, 0 misses" z.second.err'
  check "  both audits with the store: the unstripped build's line-tables findings" \
    sh -c 'grep -q "line coverage" z.full.lt && cmp -s z.full.lt z.first.lt && cmp -s z.full.lt z.second.lt'
else
  skip "trueline-check has no --split in this build: its output is not read back"
fi
$TC --debug-store kern.cubin kern.stripped.cubin > bad.out 2> bad.err; rc=$?
check "a --debug-store that is not a directory: exit 2, named" sh -c '[ '$rc' = 2 ] && grep -q "debug store kern.cubin: not a directory" bad.err'

# --- the GPU coredump of a stripped build ---------------------------------------------------------------
C=$TRUELINE_ROOT/tests/data/coredumps
HANG=$TRUELINE_ROOT/../shared/data/coredumps/hang
if have xz; then
  xz -dc "$C/hang.core.xz" > hang.core
  premise "hang.core: a copy with the relocated images' line sections emptied" $SPLIT strip-core hang.core hang.stripped.core
  if [ -f "$HANG" ]; then # the executable that made the core: its cubin is the store part, as a split writes it
    $TC --extract hangx "$HANG" >/dev/null
    store_cubins hangstore hangx/*.cubin
  else
    skip "coredump: $HANG absent; the store part is the core's own relocated image"
    $SPLIT relfimgs hang.core rel && store_cubins hangstore rel/*.cubin
  fi
  $TC --coredump hang.core > core.full
  $TC --coredump hang.stripped.core --debug-store hangstore > core.store; rc=$?
  # the same report but the core's name and the line saying where the lines came from
  keep() { grep -v -e '^hang' -e 'line info from debug store' "$1" > "$1.kept"; }
  keep core.full; keep core.store
  check "coredump: the stripped build's core + store gives the unstripped core's frames, file:line and inline chain" \
    sh -c '[ '$rc' = 0 ] && grep -q "hang.cu:2 in spin" core.full.kept && cmp -s core.full.kept core.store.kept'
  contains "  and says the lines came from the store" core.store 'line info from debug store hangstore/\.build-id/'
  $TC --coredump hang.stripped.core > core.none
  contains "coredump: without the store, the line info is said to be split out" core.none \
    'line info split out \(identity [0-9a-f]{32}\); store not given'
else
  skip "coredump part: xz is needed to unpack hang.core"
fi

# --- a real debuginfod serving the store ----------------------------------------------------------------
if have debuginfod && have debuginfod-find && have curl; then
  PORT=$(free_port)
  debuginfod -F "$T/store" -F "$T/hangstore" $([ -d "$T/splitstore" ] && echo -F "$T/splitstore") -p "$PORT" -d "$T/debuginfod.sqlite" -t0 -g0 > debuginfod.log 2>&1 &
  DPID=$!
  trap 'kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; rm -rf "$T"' EXIT
  export DEBUGINFOD_URLS=http://127.0.0.1:$PORT
  KID=$(devid kern.cubin)
  HID=$(readelf -n devdbg/libmix.debug | awk '/Build ID:/ { print $3; exit }')
  # wait (bounded) until the server has scanned the store: the device part and the host part resolve
  for _ in $(seq 1 60); do
    curl -sf -o /dev/null "$DEBUGINFOD_URLS/buildid/$KID/debuginfo" &&
      curl -sf -o /dev/null "$DEBUGINFOD_URLS/buildid/$HID/debuginfo" && break
    sleep 0.5
  done
  got=$(debuginfod-find debuginfo "$HID" 2>/dev/null)
  # two debug files of that build-id are served (eu-strip -f's and --split's): either is the answer
  check "debuginfod-find finds the host debug file in the store" sh -c '[ -n "'"$got"'" ] &&
    { cmp -s "'"$got"'" devdbg/libmix.debug || cmp -s "'"$got"'" "splitstore/.build-id/'"${HID:0:2}/${HID:2}"'.debug"; }'
  $TC --symbolize libmix.stripped.so $locs > dev.dfd 2>&1
  check "DEBUGINFOD_URLS, no --debug-store: --symbolize = on the unstripped library" cmp -s dev.full dev.dfd
  if [ -s shipped/libmix.so ]; then
    $TC --symbolize shipped/libmix.so $locs > split.dfd 2>&1
    check "DEBUGINFOD_URLS: --split's output = the unstripped library" cmp -s dev.full split.dfd
  fi
  $TC --no-image-cache libmix.stripped.so kern.stripped.cubin > audit.dfd
  norm audit.dfd | grep '\[line-tables\]' > lt.dfd
  check "DEBUGINFOD_URLS: the audit = on the unstripped build" cmp -s lt.full lt.dfd
  if [ -s hang.stripped.core ]; then
    $TC --coredump hang.stripped.core > core.dfd
    keep core.dfd
    check "DEBUGINFOD_URLS: --coredump on the stripped core = on the unstripped core" \
      sh -c 'grep -q "hang.cu:2 in spin" core.dfd.kept && cmp -s core.full.kept core.dfd.kept'
  fi
  if [ -s libhost.stripped.so ]; then
    $TC --symbolize libhost.stripped.so $addrs > host.dfd 2>&1
    check "DEBUGINFOD_URLS: host --symbolize = on the unstripped library" cmp -s host.full host.dfd
    a=$(echo "$addrs" | head -1)
    eu-addr2line -f -i -e libhost.stripped.so "$a" > eu.dfd 2>&1
    eu-addr2line -f -i -e libhost.so "$a" > eu.full 2>&1
    check "eu-addr2line finds the host debug file through debuginfod" sh -c 'grep -q "host.cc:" eu.dfd && cmp -s eu.full eu.dfd'
  fi
  unset DEBUGINFOD_URLS
else
  skip "debuginfod part: debuginfod, debuginfod-find (Debian: debuginfod) and curl are needed"
fi
