#!/usr/bin/env bash
# The provenance record binds the object's bytes (content digest "ch") and, with a key, is authenticated by a
# MAC (docs/provenance.md, "What a record binds"). Real ccache, private cache: a forged entry (the code of a
# -DV=666 build carrying the genuine -DV=1 object's .note.trueline, copied with objcopy) must be caught by the
# hook in ccache and by the waiting wrapper, counted, and repaired so that the served object's code is a
# fresh compile's. With a key: a record made with another key, or with none, is rejected; one made with the
# key verifies, and its MAC is the HMAC-SHA512-256 Python computes from the key file; a key file that cannot
# be read fails the compile with exit 2 naming it (or passes it through by [wrapper] on_error).
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have ccache || { skip "ccache not installed"; exit 0; }
unset CCACHE_BASEDIR CCACHE_DEPEND CCACHE_DIRECT CCACHE_NODIRECT CCACHE_IGNOREOPTIONS TRUELINE_PROVENANCE_KEY_FILE \
      TRUELINE_PROVENANCE_VERIFY_IN_CACHE
: > ccache.conf
export CCACHE_CONFIGPATH=$T/ccache.conf

printf '#ifndef V\n#define V 1\n#endif\nint scaled(int x) { return x * 3 + V; }\n' > s.c
# .text bytes of an object: the code (a record or debug info does not change them)
text_of() { objcopy -O binary --only-section=.text "$1" "$1.text" 2>/dev/null && [ -s "$1.text" ] && cat "$1.text"; }
same_text() { text_of "$1" > "$1.t" && text_of "$2" > "$2.t" && [ -s "$1.t" ] && cmp -s "$1.t" "$2.t"; }
stat_of() { trueline-cc --trueline-stats | awk -v k="$1" 'index($0, k) { print $NF }'; }
note_of() { rm -f "$2"; objcopy --dump-section .note.trueline="$2" "$1" /dev/null 2>/dev/null && [ -s "$2" ]; }
# A compiler that ignores its input and writes $FORGED: bare ccache then stores it, and its result file
# can be copied over another entry (entries do not name their key).
cat > forger <<'EOF'
#!/bin/sh
out=; prev=
for a; do [ "$prev" = -o ] && out=$a; prev=$a; case $a in -E) echo 'int forged_input;'; exit 0;; esac; done
cp "$FORGED" "$out"
EOF
chmod +x forger
# store_forged OBJ ENTRY: replaces the cache entry ENTRY (a result file) with one holding OBJ
store_forged() {
  local d; d=$(mktemp -d "$T/forge.XXXX")
  (cd "$d" && echo 'int unrelated;' > f.c && FORGED=$1 CCACHE_COMPILERTYPE=gcc ccache "$T/forger" -c f.c -o f.o) >/dev/null 2>&1
  local r; r=$(find "$CCACHE_DIR" -name '*R' -newer "$d/f.c" | head -1)
  [ -n "$r" ] && [ "$r" != "$2" ] && cp "$r" "$2"
}
# the genuine compile's record copied into another object, as an attacker would
graft_note() { # GENUINE POISONED OUT
  note_of "$1" "$3.note" && objcopy --remove-section=.note.trueline "$2" "$3" &&
    objcopy --add-section .note.trueline="$3.note" --set-section-flags .note.trueline=readonly "$3"
}

# --- 1. the forged entry, no key: caught by the hook in ccache and by the waiting wrapper ---
forged_case() { # NAME VERIFY_IN_CACHE
  local name=$1 dir=$T/$1
  mkdir -p "$dir" && cd "$dir" && cp "$T/s.c" .
  export CCACHE_DIR=$dir/cc XDG_CACHE_HOME=$dir/xdg TRUELINE_PROVENANCE_VERIFY_IN_CACHE=$2
  trueline-cc ccache gcc -O2 -c s.c -o genuine.o
  local r1; r1=$(find "$CCACHE_DIR" -name '*R' | head -1)
  gcc -O2 -g1 -DV=666 -c s.c -o evil.o
  graft_note genuine.o evil.o forged.o
  note_of forged.o forged.note
  premise "$name: the forged object carries the genuine record byte for byte" same_bytes forged.o.note forged.note
  premise "$name: the forged object's code is the -DV=666 code" sh -c "objdump -d forged.o | grep -q 0x29a"
  premise "$name: the forged object is in the cache under the genuine entry" store_forged "$dir/forged.o" "$r1"
  # strace shows where the hit was decided; LeakSanitizer does not run under ptrace
  local trace=; [ "$2" = true ] && have strace && [ -z "${TRUELINE_SANITIZED:-}" ] &&
    trace="strace -f -e trace=execve -o forged.trace"
  $trace trueline-cc ccache gcc -O2 -c s.c -o hit.o 2> hit.err; local rc=$?
  [ -n "$trace" ] && contains "$name: the hook in ccache rejected the hit (repair run started)" forged.trace 'trueline-hook-fixup'
  check "$name: the compile succeeds (recompiled)" [ $rc -eq 0 ]
  contains "$name: the replaced code is reported" hit.err 'bytes are not the ones its record was written for'
  same "$name: the mismatch is counted" "$(stat_of Mismatches:)" 1
  same "$name: the object was recompiled" "$(stat_of 'Recompiled after')" 1
  gcc -O2 -c s.c -o fresh.o
  check "$name: the served object's code is a fresh compile's" same_text hit.o fresh.o
  objdump -d hit.o > hit.dis
  lacks "$name: no -DV=666 code is served" hit.dis '0x29a' '<scaled>:'
  trueline-cc ccache gcc -O2 -c s.c -o hit2.o 2> hit2.err
  same "$name: the repaired entry is then served and verified without a mismatch" \
    "$(stat_of Mismatches:)/$(stat_of 'compiles verified:')" "1/3"
  check "$name: the repaired entry's code is a fresh compile's" same_text hit2.o fresh.o
  if [ -n "$trace" ]; then
    # the hook decides a content-bound hit in ccache's process: no repair run is started for a good one
    strace -f -e trace=execve -o hook.trace trueline-cc ccache gcc -O2 -c s.c -o hit3.o 2>/dev/null
    premise "$name: the hit ran ccache with the hook" grep -q 'ccache' hook.trace
    lacks "$name: a good content-bound hit is verified in ccache (no repair run)" hook.trace 'trueline-hook-fixup' 'execve'
  fi
  cd "$T"
}
forged_case hook true
forged_case waiting false

# an object larger than the 64 KiB the hook reads first: the rest is read for the digest, and a good hit is
# still decided in ccache
if have strace && have g++ && [ -z "${TRUELINE_SANITIZED:-}" ]; then
  mkdir -p "$T/big" && cd "$T/big"
  printf '#include <map>\n#include <string>\n#include <vector>\nstd::map<std::string, std::vector<int>> m;\nint n() { int s = 0; for (auto &p : m) s += (int)p.second.size() + (int)p.first.size(); return s; }\n' > big.cpp
  export CCACHE_DIR=$T/big/cc XDG_CACHE_HOME=$T/big/xdg TRUELINE_PROVENANCE_VERIFY_IN_CACHE=true
  trueline-cc ccache g++ -O2 -g -c big.cpp -o a.o
  premise "big object: larger than 64 KiB" [ "$(stat -c %s a.o)" -gt 65536 ]
  strace -f -e trace=execve -o big.trace trueline-cc ccache g++ -O2 -g -c big.cpp -o b.o 2> b.err
  premise "big object: the hit ran ccache" grep -q ccache big.trace
  lacks "big object: a good hit is verified in ccache (no repair run)" big.trace 'trueline-hook-fixup' 'execve'
  same "big object: both compiles verified, no mismatch" "$(stat_of Mismatches:)/$(stat_of 'compiles verified:')" "0/2"
  cd "$T"
fi

# --- 2. a record without a content digest (written before records had one) is accepted and counted ---
mkdir -p "$T/old" && cd "$T/old" && cp "$T/s.c" .
export CCACHE_DIR=$T/old/cc XDG_CACHE_HOME=$T/old/xdg TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false
trueline-cc ccache gcc -O2 -c s.c -o genuine.o
r1=$(find "$CCACHE_DIR" -name '*R' | head -1)
note_of genuine.o rec.bin
# the record without its ch= field, descsz adjusted (the format before the digest)
python3 - rec.bin old.bin <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
namesz, descsz, typ = struct.unpack('<III', b[:12])
desc = b[24:24 + descsz]
fields = [f for f in desc.split(b'\0') if f and not f.startswith(b'ch=')]
d = b''.join(f + b'\0' for f in fields); d += b'\0' * (-len(d) % 4)
open(sys.argv[2], 'wb').write(struct.pack('<III', namesz, len(d), typ) + b[12:24] + d)
PY
objcopy --remove-section=.note.trueline genuine.o old.o && objcopy --add-section .note.trueline=old.bin old.o
premise "old-format record: no ch field" sh -c '! grep -aq "ch=" old.bin && grep -aq "kh=" old.bin'
premise "old-format object in the cache" store_forged "$T/old/old.o" "$r1"
trueline-cc ccache gcc -O2 -c s.c -o hit.o 2> hit.err
same "old-format record: accepted (no mismatch), counted as not content-bound" \
  "$(stat_of Mismatches:)/$(stat_of 'not content-bound:')" "0/1"
check "old-format record: the cached object is served" same_text hit.o genuine.o
cd "$T"

# --- 3. the forged entry through a shared Redis remote cache (ccache remote_storage) ---
redis_case() {
  local port; port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no > "$T/redis.log" 2>&1 &
  local rpid=$!
  for _ in $(seq 50); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.1; done
  premise "redis-server answers on 127.0.0.1:$port" sh -c "redis-cli -p $port ping | grep -q PONG"
  mkdir -p "$T/redis" && cd "$T/redis" && cp "$T/s.c" .
  export CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$port XDG_CACHE_HOME=$T/redis/xdg
  unset TRUELINE_PROVENANCE_VERIFY_IN_CACHE
  CCACHE_DIR=$T/redis/A trueline-cc ccache gcc -O2 -c s.c -o a.o # machine A fills the remote cache
  # result entries (ccache's entry header: magic 0xccac, version, then type 0 = result, 1 = manifest)
  result_keys() {
    local k; for k in $(redis-cli -p "$port" --scan); do
      [ "$(redis-cli -p "$port" --raw GETRANGE "$k" 3 3 | od -An -tu1 | awk '{print $1}')" = 0 ] && echo "$k"
    done | sort
  }
  local before; before=$(result_keys)
  # the forged object stored by machine F under another key, then copied over A's entry in Redis
  gcc -O2 -g1 -DV=666 -c s.c -o evil.o && graft_note a.o evil.o forged.o
  (mkdir -p F && cd F && echo 'int unrelated;' > f.c &&
   FORGED=$T/redis/forged.o CCACHE_COMPILERTYPE=gcc CCACHE_DIR=$T/redis/F/cc ccache "$T/forger" -c f.c -o f.o) > /dev/null 2>&1
  local after genuine forged
  after=$(result_keys)
  forged=$(comm -13 <(echo "$before") <(echo "$after"))
  genuine=$before
  premise "Redis holds one genuine result entry and one forged" \
    [ -n "$genuine" -a -n "$forged" -a "$(echo "$genuine" | wc -l)" = 1 -a "$(echo "$forged" | wc -l)" = 1 ]
  premise "the forged entry replaces the genuine one in Redis" \
    sh -c "redis-cli -p $port COPY '$forged' '$genuine' REPLACE | grep -q 1"
  CCACHE_DIR=$T/redis/B trueline-cc ccache gcc -O2 -c s.c -o b.o 2> b.err # machine B, empty local cache
  check "redis: machine B's hit came from Redis" \
    sh -c "CCACHE_DIR=$T/redis/B ccache --print-stats | awk '\$1==\"remote_storage_hit\" && \$2>0 {ok=1} END {exit !ok}'"
  contains "redis: the forged remote entry is reported" b.err 'bytes are not the ones its record was written for'
  gcc -O2 -c s.c -o fresh.o
  check "redis: machine B's object code is a fresh compile's" same_text b.o fresh.o
  CCACHE_DIR=$T/redis/C trueline-cc ccache gcc -O2 -c s.c -o c.o 2> c.err # machine C gets the repaired entry
  lacks "redis: the repaired remote entry verifies on machine C (nothing reported)" c.err 'does not match'
  check "redis: machine C's object code is a fresh compile's" same_text c.o fresh.o
  same "redis: one mismatch in all (B's); B and C verified" \
    "$(stat_of Mismatches:)/$(stat_of 'compiles verified:')" "1/3"
  kill "$rpid" 2> /dev/null; wait "$rpid" 2> /dev/null
  unset CCACHE_REMOTE_STORAGE
  cd "$T"
}
if have redis-server && have redis-cli; then redis_case; else skip "redis-server/redis-cli not installed: no remote-cache case"; fi

# --- 4. a key ---
mkdir -p "$T/key" && cd "$T/key" && cp "$T/s.c" .
head -c 32 /dev/urandom > k1; head -c 32 /dev/urandom > k2
export CCACHE_DIR=$T/key/cc XDG_CACHE_HOME=$T/key/xdg
unset TRUELINE_PROVENANCE_VERIFY_IN_CACHE
# a trueline-cc built without libsodium refuses any key, and says so
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc gcc -c s.c -o probe.o 2> probe.err
if grep -q 'built without libsodium' probe.err; then
  contains "no MAC support: a configured key is refused, naming the key file" probe.err 'key_file = .*k1: this trueline-cc was built without libsodium'
  skip "record MACs: trueline-cc built without libsodium"
  exit 0
fi
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc ccache gcc -O2 -c s.c -o a.o 2> a.err
note_of a.o a.rec
# the MAC as HMAC-SHA512-256 (HMAC-SHA512 cut to 32 bytes) over the type and every field before mac=
mac_ok() { # RECORD KEYFILE
  python3 - "$1" "$2" <<'PY'
import hmac, hashlib, struct, sys
b = open(sys.argv[1], 'rb').read(); key = open(sys.argv[2], 'rb').read()
namesz, descsz, typ = struct.unpack('<III', b[:12])
desc = b[24:24 + descsz]
at = desc.find(b'\0mac=') + 1
if at <= 0: sys.exit(1)
mac = desc[at + 4:desc.index(b'\0', at)].decode()
want = hmac.new(key, struct.pack('<I', typ) + desc[:at], hashlib.sha512).digest()[:32].hex()
sys.exit(0 if mac == want else 1)
PY
}
check "key: the record's MAC is HMAC-SHA512-256 of the record with the key" mac_ok a.rec k1
check "key: the same computation with another key does not give it" eval '! mac_ok a.rec k2'
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc ccache gcc -O2 -c s.c -o b.o 2> b.err
same "key: the hit is kept and verified" "$(stat_of Mismatches:)/$(stat_of 'compiles verified:')" "0/2"
check "key: the hit is the cached object" same_bytes a.o b.o
# a record made with another key: the same compile in another cache with k2, its entry copied over k1's
r1=$(find "$CCACHE_DIR" -name '*R' | head -1)
(export CCACHE_DIR=$T/key/cc2 XDG_CACHE_HOME=$T/key/xdg2
 TRUELINE_PROVENANCE_KEY_FILE=$T/key/k2 trueline-cc ccache gcc -O2 -c s.c -o a.o)
r2=$(find "$T/key/cc2" -name '*R' | head -1)
premise "key: an entry made with another key" [ -n "$r1" -a -n "$r2" ]
cp "$r2" "$r1"
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc ccache gcc -O2 -c s.c -o c.o 2> c.err; rc=$?
check "other key: the compile succeeds (recompiled)" [ $rc -eq 0 ]
contains "other key: the MAC is reported as not verifying" c.err "MAC does not verify with the configured key"
same "other key: the mismatch is counted" "$(stat_of Mismatches:)" 1
note_of c.o c.rec
check "other key: the served object's record carries a k1 MAC" mac_ok c.rec k1
# a forged object carrying a k1-MACed record (the code replaced, the record copied)
gcc -O2 -g1 -DV=666 -c s.c -o evil.o
graft_note c.o evil.o forged.o
premise "key: a forged object with a genuine k1 record in the cache" store_forged "$T/key/forged.o" "$r1"
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc ccache gcc -O2 -c s.c -o d.o 2> d.err
contains "key, forged code: reported" d.err 'bytes are not the ones its record was written for'
gcc -O2 -c s.c -o fresh.o
check "key, forged code: the served object's code is a fresh compile's" same_text d.o fresh.o
# an entry without a MAC (stored without a key) is rejected when a key is configured
(export CCACHE_DIR=$T/key/cc3 XDG_CACHE_HOME=$T/key/xdg3; trueline-cc ccache gcc -O2 -c s.c -o a.o)
cp "$(find "$T/key/cc3" -name '*R' | head -1)" "$r1"
TRUELINE_PROVENANCE_KEY_FILE=$T/key/k1 trueline-cc ccache gcc -O2 -c s.c -o e.o 2> e.err
contains "no MAC with a key configured: rejected" e.err 'carries no MAC and a key is configured'
same "the rejections are counted" "$(stat_of Mismatches:)" 3
# [provenance] key_file in the configuration file
printf '[provenance]\nkey_file = %s\n' "$T/key/k1" > tl.ini
TRUELINE_CONFIG=$T/key/tl.ini trueline-cc ccache gcc -O2 -c s.c -o f.o 2> f.err
same "key_file from the configuration: the hit verifies" "$(stat_of Mismatches:)" 3
note_of f.o f.rec
check "key_file from the configuration: the record's MAC is k1's" mac_ok f.rec k1

# --- 5. a key file that cannot be used ---
expect_rc "missing key file: exit 2" 2 env TRUELINE_PROVENANCE_KEY_FILE=$T/key/nonexistent \
  trueline-cc ccache gcc -O2 -c s.c -o g.o 2> g.err
contains "missing key file: named, with the reason" g.err 'key_file = .*nonexistent: cannot read the key: No such file'
check "missing key file: the compile was not run" [ ! -e g.o ]
mkdir -p keydir; printf 'short\n' > short
expect_rc "a directory as key file: exit 2" 2 env TRUELINE_PROVENANCE_KEY_FILE=$T/key/keydir \
  trueline-cc ccache gcc -O2 -c s.c -o g.o 2> h.err
contains "a directory as key file: said" h.err 'keydir: expected a regular file of 16 to 4096 bytes'
expect_rc "a 6-byte key file: exit 2" 2 env TRUELINE_PROVENANCE_KEY_FILE=$T/key/short \
  trueline-cc ccache gcc -O2 -c s.c -o g.o 2> i.err
contains "a 6-byte key file: said" i.err 'short: expected a regular file of 16 to 4096 bytes .it has 6.'
TRUELINE_WRAPPER_ON_ERROR=passthrough TRUELINE_PROVENANCE_KEY_FILE=$T/key/nonexistent \
  trueline-cc ccache gcc -O2 -c s.c -o j.o 2> j.err; rc=$?
check "missing key file, on_error = passthrough: the compile runs" sh -c "[ $rc -eq 0 ] && [ -s j.o ]"
contains "missing key file, on_error = passthrough: still said" j.err 'nonexistent: cannot read the key'
