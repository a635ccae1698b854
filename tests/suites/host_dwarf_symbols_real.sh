#!/usr/bin/env bash
# dwarf-symbols on ordinary compiler output: a C++ library shaped like a real one (virtual bases, so C4/D4
# constructors in DWARF and thunks; templates; lambdas, stateless ones converted to function pointers (_FUN);
# local classes; std::call_once; cold paths; IPA clones) built with g++ and clang++ at -O0/-O2/-O3, a GNU TM
# transaction clone, a gfortran program. None of it is a defect, so none of it may be an error. Then the same
# library with the DWARF of an older build spliced in must still be one.
source "$(dirname "$0")/../lib/harness.sh"
have g++ && have objcopy && have readelf && have nm || { skip "g++/objcopy/readelf/nm missing"; exit 0; }
C=trueline-check
cd "$T" || exit 1

cat > shapes.cpp <<'CPP'
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace shapes {
struct Base {
    explicit Base(int id) : id_(id) {}
    virtual ~Base() { std::printf("~Base %d\n", id_); }
    virtual double area() const = 0;
    int id_;
};
struct Named : virtual Base {
    Named(int id, std::string n) : Base(id), name_(std::move(n)) {}
    ~Named() override { std::printf("~Named %s\n", name_.c_str()); }
    virtual const std::string &name() const { return name_; }
    std::string name_;
};
struct Coloured : virtual Base {
    Coloured(int id, unsigned c) : Base(id), colour_(c) {}
    ~Coloured() override { std::printf("~Coloured %u\n", colour_); }
    virtual unsigned colour() const { return colour_; }
    unsigned colour_;
};
struct Circle final : Named, Coloured {
    Circle(int id, double r) : Base(id), Named(id, "circle"), Coloured(id, 0xff0000u), r_(r) {}
    ~Circle() override { std::printf("~Circle\n"); }
    double area() const override { return 3.14159 * r_ * r_; }
    const std::string &name() const override { return name_; }
    unsigned colour() const override { return colour_ ^ 1u; }
    double r_;
};
struct Plain {
    Plain() : v(new int[4]()) {}
    ~Plain() { delete[] v; }
    int *v;
};
template <typename T, std::size_t N> struct Ring {
    std::array<T, N> a{};
    std::size_t head = 0;
    void push(const T &x) { a[head++ % N] = x; }
    T sum() const { T s{}; for (const T &x : a) s += x; return s; }
};
template <unsigned long N> unsigned long fixed_sum(const unsigned long *p)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < N; i++) s += p[i];
    return s;
}
__attribute__((noinline)) static void report_failure(const char *what, int code)
{
    std::fprintf(stderr, "failure: %s (%d)\n", what, code);
    std::abort();
}
// unlikely paths that GCC splits off into checked_sum(...).cold
int checked_sum(const std::vector<int> &v, int limit)
{
    int s = 0;
    for (std::size_t i = 0; i < v.size(); i++) {
        if (__builtin_expect(v[i] < 0, 0)) {
            std::string msg = "negative value at " + std::to_string(i);
            report_failure(msg.c_str(), v[i]);
        }
        s += v[i];
        if (__builtin_expect(s > limit, 0))
            throw std::runtime_error("limit exceeded: " + std::to_string(s));
    }
    return s;
}
struct Big { int a[16]; long b; };
static __attribute__((noinline)) long pick(Big big) { return big.a[3] + big.b; }  // pick.isra.0
long pick_one(int x) { Big b{}; b.a[3] = x; b.b = x * 2; return pick(b) + pick(b); }
using cb_t = int (*)(int);
cb_t make_callback(int which)
{
    if (which)
        return [](int x) { return x * 2 + 1; };
    return [](int x) { return x - 7; };
}
std::function<int(int)> make_adder(int k) { return [k](int x) { return x + k; }; }
// a lambda with a destructor of its own (it holds a string)
std::function<std::size_t(int)> make_measure(std::string s) { return [s](int x) { return s.size() + x; }; }
int local_class(int n)
{
    struct Counter {
        int c = 0;
        __attribute__((noinline)) void bump(int by) { c += by; }
        virtual ~Counter() {}
        virtual int get() const { return c; }
    };
    Counter c;
    for (int i = 0; i < n; i++) c.bump(i);
    return c.get();
}
static std::once_flag once;
static int table[64];
int lookup(int i)
{
    std::call_once(once, [] { for (int k = 0; k < 64; k++) table[k] = k * k; });
    return table[i & 63];
}
std::map<std::string, int> index_names(const std::vector<std::string> &names)
{
    std::map<std::string, int> m;
    int i = 0;
    for (const auto &n : names) m.emplace(n, i++);
    return m;
}
double total_area(int n)
{
    std::vector<std::unique_ptr<Base>> v;
    for (int i = 0; i < n; i++) v.emplace_back(new Circle(i, 1.0 + i));
    double a = 0;
    for (auto &p : v) a += p->area();
    Ring<double, 4> r;
    r.push(a);
    unsigned long arr[2] = { 1, 2 };
    return r.sum() + (double)fixed_sum<2>(arr) + (double)Plain().v[0];
}
const std::string &circle_name(const Circle &c) { const Named &n = c; return n.name(); }
unsigned circle_colour(const Circle &c) { const Coloured &k = c; return k.colour(); }
void *null_of(decltype(nullptr)) { return nullptr; }
} // namespace shapes
CPP

# Subprograms with code, counted from binutils' and elfutils' dumps: one per DW_AT_low_pc, one per range of a
# subprogram's DW_AT_ranges (binutils 2.40 prints only the first DWARF 5 range list, so elfutils lists them).
subprogram_oracle() {
  python3 - <(readelf --debug-dump=info "$1") <(eu-readelf --debug-dump=ranges "$1") <<'PY'
import re, sys
info, ranges = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lists, cur = {}, None
for line in ranges.splitlines():
    m = re.match(r"\s+Offset: ([0-9a-f]+), Index", line)
    if m:
        cur = int(m.group(1), 16); lists[cur] = 0; continue
    m = re.match(r"\s+(offset_pair|start_end|startx_endx|start_length|startx_length) (?:0x)?([0-9a-f]+), (?:0x)?([0-9a-f]+)$", line)
    if m and cur is not None:  # empty ranges (offset_pair 253, 253) hold no code
        a, b = int(m.group(2), 16), int(m.group(3), 16)
        lists[cur] += (b > 0) if m.group(1).endswith("length") else (b > a)
n, tag, attrs = 0, None, {}
def flush():
    global n
    if tag == "DW_TAG_subprogram":
        if "DW_AT_low_pc" in attrs: n += 1
        elif "DW_AT_ranges" in attrs: n += lists.get(attrs["DW_AT_ranges"], 0)
for line in info.splitlines():
    m = re.match(r"\s*<\d+><[0-9a-f]+>: Abbrev Number: \d+ \((DW_TAG_\w+)\)", line)
    if m or re.match(r"\s*<\d+><[0-9a-f]+>: Abbrev Number: 0", line):
        flush(); tag, attrs = (m.group(1) if m else None), {}; continue
    m = re.match(r"\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)", line)
    if m:
        v = m.group(2).strip()
        if m.group(1) == "DW_AT_ranges":
            v = int(re.findall(r"0x[0-9a-f]+", v)[-1], 16)
        attrs[m.group(1)] = v
flush()
print(n)
PY
}
json_field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r["files"][0]; print(r["summary"]["error"] if sys.argv[2]=="errors" else f["images"][0][sys.argv[2]])' "$1" "$2" 2>/dev/null; }
# has_sym FILE EXTENDED-REGEX: nm lists a defined function symbol matching it
has_sym() { nm --defined-only "$1" | awk '$2 ~ /^[TtWw]$/ { print $3 }' | grep -Eq -- "$2"; }

compilers=(g++); have clang++ && compilers+=(clang++)
# v2: the edit for the stale-DWARF case at the end (one signature, same code)
sed 's/unsigned circle_colour(const Circle &c)/unsigned circle_colour(Circle \&c)/' shapes.cpp > shapes_v2.cpp
# every C++ build up front, two at a time (each takes seconds)
for cc in "${compilers[@]}"; do
  for o in O0 O2 O3; do echo "$cc -std=c++17 -$o -g -fPIC -shared shapes.cpp -o lib-$cc-$o.so"; done
  echo "$cc -std=c++17 -O2 -g -fPIC -c shapes.cpp -o $cc-O2.o"
  echo "$cc -std=c++17 -O2 -g -fPIC -shared shapes_v2.cpp -o v2-$cc.so"
done > builds.txt
echo "g++ -std=c++17 -O2 -g1 -fPIC -shared shapes.cpp -o g1.so" >> builds.txt
xargs -P 2 -I{} sh -c '{} 2>>builds.err' < builds.txt
for cc in "${compilers[@]}"; do
  for o in O0 O2 O3; do
    lib=lib-$cc-$o.so
    premise "$cc -$o -g builds the library" test -s "$lib"
    "$C" --no-color --checks dwarf-symbols --format json "$lib" > "$lib.json" 2>"$lib.err"; echo $? > "$lib.rc"
    check "$cc -$o -g: no dwarf-symbols error (exit 0, 0 errors)" \
      sh -c '[ "$(cat "$1.rc")" = 0 ] && [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"summary\"][\"error\"])" "$1.json")" = 0 ]' _ "$lib"
    if have eu-readelf; then
      same "$cc -$o -g: every subprogram with code was read (count vs readelf and eu-readelf)" \
        "$(json_field "$lib.json" subprograms)" "$(subprogram_oracle "$lib")"
    else skip "eu-readelf missing: subprogram count not compared"; fi
  done
  obj=$cc-O2.o
  premise "$cc -O2 -g builds the object" test -s "$obj"
  "$C" --no-color --checks dwarf-symbols "$obj" > "$obj.txt" 2>&1; echo $? > "$obj.rc"
  check "$cc -O2 -g object (relocated DWARF): no dwarf-symbols error" \
    sh -c '[ "$(cat "$1.rc")" = 0 ] && grep -q "^1 file(s) checked: 0 error" "$1.txt"' _ "$obj"
done

# what the g++ build really holds, so that "no error" above covers these cases (nm and readelf, not trueline)
# clean LIB: LIB's dwarf-symbols report above is that library's, with subprograms read and no error (exit 0)
clean() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1] + ".json")); f = r["files"][0]
sys.exit(not (r["summary"]["error"] == 0 and f["path"] == sys.argv[1] and f["images"][0]["subprograms"] > 0))' "$1" 2>/dev/null &&
    [ "$(cat "$1.rc")" = 0 ]
}
g=lib-g++-O2.so
feature() {
  local what=$1 pattern=$2
  if has_sym "$g" "$pattern"; then check "$g has $what, passed without error" clean "$g"; else skip "$g: no $what here"; fi
}
feature "a .cold part" '\.cold$'
feature "an IPA clone (.isra/.constprop/.part)" '\.(isra|constprop|part)\.[0-9]+$'
feature "virtual and non-virtual thunks" '^_ZT[hv]'
feature "_FUN of a stateless lambda" '4_FUNE'
feature "a member of a local class" '^_ZZN6shapes11local_classEiEN7Counter4bumpEi$'
g=lib-g++-O0.so
feature "a lambda's destructor" '^_ZZN6shapes12make_measure.*UliE_D[12]Ev$'
for g in lib-g++-O0.so lib-g++-O2.so; do
  if readelf --debug-dump=info "$g" | grep -Eq 'linkage_name.*_ZN6shapes6Circle(C4|D4)E' &&
     has_sym "$g" '^_ZN6shapes6Circle(C[12]|D[012])E'; then
    check "$g describes the unified constructor/destructor (C4/D4) and has C1/C2/D0/D1/D2 symbols, passed without error" clean "$g"
  else skip "$g: no C4/D4 in DWARF here"; fi
done

# GCC gives no linkage name to entities over local types: call_once<lambda> is compared by its unqualified
# name, spelt "call_once<shapes::lookup(int)::<lambda()> >" in DWARF and "call_once<shapes::lookup(int)::
# {lambda()#1}>" by the demangler
if readelf --debug-dump=info lib-g++-O0.so | grep -q 'DW_AT_name.*: call_once<shapes::lookup(int)::<lambda()> >' &&
   has_sym lib-g++-O0.so '^_ZSt9call_onceIZN6shapes6lookupEiEUlvE_'; then
  check "lib-g++-O0.so has call_once<lambda> without a linkage name, passed without error" clean lib-g++-O0.so
else skip "g++ -O0 gave call_once<lambda> a linkage name here"; fi
# -g1, the level trueline-cc forces for gcc by default
premise "g++ -O2 -g1 builds the library" test -s g1.so
"$C" --no-color --checks dwarf-symbols g1.so > g1.txt 2>&1; echo $? > g1.rc
check "g++ -O2 -g1: no dwarf-symbols error" sh -c '[ "$(cat g1.rc)" = 0 ] && grep -q "^1 file(s) checked: 0 error" g1.txt'

# GCC LTO with several partitions: a clone's subprogram carries the clone's linkage name (..._M_copy...
# .isra.0) and its .cold part is a symbol of its own (..._M_copy....isra.0.cold); jsoncpp at -O3 -flto
cat > ltomap.cpp <<'CPP'
#include <cstdio>
#include <map>
#include <string>
#include <vector>
struct Key {
    std::string s;
    int n;
    bool operator<(const Key &o) const { return n < o.n || (n == o.n && s < o.s); }
};
struct Val { std::vector<int> v; };
std::map<Key, Val> copy_tree(const std::map<Key, Val> &m) { std::map<Key, Val> c = m; return c; }
int main(int argc, char **argv)
{
    std::map<Key, Val> m;
    for (int i = 0; i < argc * 10; i++) m[Key{argv[0], i}].v.push_back(i);
    std::printf("%zu\n", copy_tree(m).size());
    return 0;
}
CPP
if g++ -std=c++17 -flto -flto-partition=max -O3 -g ltomap.cpp -o ltomap 2>/dev/null &&
   readelf --debug-dump=info ltomap | grep -Eq 'DW_AT_linkage_name.*_M_copy.*\.isra\.[0-9]+$' &&
   has_sym ltomap '_M_copy.*\.isra\.[0-9]+\.cold$'; then
  "$C" --no-color --checks dwarf-symbols ltomap > lto.txt 2>&1; echo $? > lto.rc
  check "g++ -flto: a clone's .cold part against the clone's own linkage name is no error" \
    sh -c '[ "$(cat lto.rc)" = 0 ] && grep -q "^1 file(s) checked: 0 error" lto.txt'
else skip "g++ -flto gave no clone with its own linkage name here"; fi

# start-file functions with DWARF (glibc before 2.34 linked __libc_csu_init/__libc_csu_fini from
# libc_nonshared.a into every executable, built with -g in distributions' debug builds): their symbols are
# no user's, but their subprograms have them
if have gcc; then
  printf 'void __libc_csu_init(void) { }\nvoid __libc_csu_fini(void) { }\nint user_fn(int x) { return x + 1; }\n' > csu.c
  premise "gcc builds the start-file stand-in" gcc -O0 -g -fPIC -shared csu.c -o libcsu.so
  "$C" --no-color --checks dwarf-symbols libcsu.so > csu.txt 2>&1; echo $? > csu.rc
  check "__libc_csu_init/__libc_csu_fini with DWARF: their subprograms find their symbols (no error)" \
    sh -c 'nm libcsu.so | grep -q " T __libc_csu_init$" && [ "$(cat csu.rc)" = 0 ] && grep -q "^1 file(s) checked: 0 error" csu.txt'
fi

# GNU TM: the transaction clone (_ZGTt...) of a transaction_safe function
cat > tm.cpp <<'CPP'
static int counter;
__attribute__((transaction_safe)) int bump_counter(int by) { counter += by; return counter; }
int add_atomically(int by) { int r; __transaction_atomic { r = bump_counter(by); } return r; }
CPP
if g++ -fgnu-tm -O2 -g -fPIC -shared tm.cpp -o libtm.so 2>/dev/null && has_sym libtm.so '^_ZGTt'; then
  "$C" --no-color --checks dwarf-symbols libtm.so > tm.txt 2>&1; echo $? > tm.rc
  check "g++ -fgnu-tm: the transaction clone is no error" sh -c '[ "$(cat tm.rc)" = 0 ] && grep -q "^1 file(s) checked: 0 error" tm.txt'
else skip "g++ -fgnu-tm gave no transaction clone"; fi

# gfortran: the main program's symbol is MAIN__, its subprogram is named after the program unit
if have gfortran; then
  cat > prog.f90 <<'F90'
module geometry
  implicit none
contains
  pure function circle_area(r) result(a)
    real(8), intent(in) :: r
    real(8) :: a
    a = 3.14159d0 * r * r
  end function circle_area
end module geometry
program shapes_main
  use geometry
  implicit none
  integer :: i
  real(8) :: total
  total = 0
  do i = 1, 10
    total = total + circle_area(dble(i))
  end do
  call inner(total)
contains
  subroutine inner(t)
    real(8), intent(in) :: t
    print *, 'total', t
  end subroutine inner
end program shapes_main
F90
  for o in O0 O2; do
    premise "gfortran -$o -g builds the program" gfortran -$o -g prog.f90 -o prog-$o
    "$C" --no-color --checks dwarf-symbols prog-$o > prog-$o.txt 2>&1; echo $? > prog-$o.rc
    check "gfortran -$o -g: MAIN__ and contained procedures are no error" \
      sh -c '[ "$(cat "$1.rc")" = 0 ] && grep -q "^1 file(s) checked: 0 error" "$1.txt"' _ prog-$o
  done
  check "gfortran -O0: MAIN__, described by the subprogram shapes_main (readelf), passed without error" \
    sh -c 'nm prog-O0 | grep -q " MAIN__$" && readelf --debug-dump=info prog-O0 | grep -q "DW_AT_name.*: shapes_main" &&
      [ "$(cat prog-O0.rc)" = 0 ] && grep -q "^1 file(s) checked: 0 error" prog-O0.txt'
else skip "gfortran missing"; fi

# The real defect: the library rebuilt from an edited source, with the DWARF of the earlier build spliced in
# (what a debug file or cache entry of another build gives). v2 changes one signature without changing the
# code (circle_colour takes a non-const reference: a new mangled name at the same address).
premise "the edit applies" sh -c '! cmp -s shapes.cpp shapes_v2.cpp'
splice() { # splice OLD NEW OUT: NEW's code with OLD's .debug_* sections
  local args=() s
  for s in $(readelf -SW "$1" | grep -o '\.debug_[a-z_]*' | sort -u); do
    objcopy --dump-section "$s=$T/old$s" "$1" "$T/scratch.o" && args+=(--update-section "$s=$T/old$s")
  done
  objcopy "${args[@]}" "$2" "$3"
}
for cc in "${compilers[@]}"; do
  premise "$cc builds the edited library" test -s v2-$cc.so
  premise "the old DWARF splices into the new library" splice lib-$cc-O2.so v2-$cc.so stale-$cc.so
  new_sym=$(nm --defined-only v2-$cc.so | awk '$3 ~ /circle_colour/ { print $3 }')
  old_sym=$(nm --defined-only lib-$cc-O2.so | awk '$3 ~ /circle_colour/ { print $3 }')
  addr=$(nm --defined-only v2-$cc.so | awk '$3 ~ /circle_colour/ { sub(/^0+/, "", $1); print $1 }')
  # a fixture fact, not a claim about trueline: a set-up step
  premise "$cc: the edit changed the symbol (nm)" sh -c '[ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]' _ "$old_sym" "$new_sym"
  "$C" --no-color --checks dwarf-symbols stale-$cc.so > stale-$cc.txt 2>&1; echo $? > stale-$cc.rc
  check "$cc: spliced DWARF of the earlier build is an error (exit 1)" test "$(cat stale-$cc.rc)" = 1
  contains "$cc: ... naming the function whose signature changed, at its address, with the old name" stale-$cc.txt \
    "error \\[dwarf-symbols\\] shapes::circle_colour\\(shapes::Circle&\\): the DWARF subprogram at 0x$addr is named $old_sym, not this symbol"
  # the code is the same, so the other functions still agree: exactly one error
  check "$cc: ... and nothing else (1 error)" grep -q "^1 file(s) checked: 1 error" stale-$cc.txt
done
# The same defect in a relocatable object (a cache entry of the earlier build, whose code the edit does not
# change, served under the new signature): the symbol is the new build's, the DWARF the old one's
for cc in "${compilers[@]}"; do
  old_sym=$(nm --defined-only $cc-O2.o | awk '$3 ~ /circle_colour/ { print $3 }')
  new_sym=$(nm --defined-only v2-$cc.so | awk '$3 ~ /circle_colour/ { print $3 }')
  premise "$cc: the object's symbol takes the new signature" objcopy --redefine-sym "$old_sym=$new_sym" $cc-O2.o stale-$cc.o
  addr=$(nm --defined-only stale-$cc.o | awk '$3 ~ /circle_colour/ { sub(/^0+/, "", $1); print ($1 == "" ? "0" : $1) }')
  "$C" --no-color --checks dwarf-symbols stale-$cc.o > stale-$cc.o.txt 2>&1
  contains "$cc object: the stale DWARF is an error naming the function at its section offset" stale-$cc.o.txt \
    "error \\[dwarf-symbols\\] shapes::circle_colour\\(shapes::Circle&\\): the DWARF subprogram at 0x$addr is named $old_sym, not this symbol"
  check "$cc object: ... and nothing else (1 error)" grep -q "^1 file(s) checked: 1 error" stale-$cc.o.txt
done
