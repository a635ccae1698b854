#!/usr/bin/env bash
# Acceptance: projects shaped like real ones, built here through trueline-cc in front of ccache, audit with
# exit 0 and no error finding; code that is not the project's (the static CUDA runtime, nvcc's stubs and
# helpers, the device link, CMake's compiler probes) is reported once per origin as what it is. Deliberately
# broken builds are still found, each by the check that owns the defect.
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/host_fixtures.sh" # cov_oracle: functions without rows, from readelf's decodedline
. "$(dirname "$0")/../lib/accept_projects.sh"
have ccache || { skip "ccache not installed"; exit 0; }
have g++ || { skip "g++ not installed"; exit 0; }
W=$(command -v trueline-cc) || { fail "trueline-cc not on PATH"; exit 0; }
cd "$T" || exit 1
export CCACHE_DIR=$T/ccache

# audit NAME ARGS...: runs trueline-check into NAME.txt, its status into NAME.rc
audit() { local n=$1; shift; trueline-check --no-color "$@" > "$n.txt" 2> "$n.err"; echo $? > "$n.rc"; }
# clean NAME: exit 0, at least one file checked, no error finding; on failure the error lines are shown
clean() {
  local n=$1
  if [ "$(cat "$n.rc")" = 0 ] && grep -Eq '^[1-9][0-9]* file\(s\) checked: 0 error\(s\)' "$n.txt" &&
     ! grep -q ': error \[' "$n.txt"; then return 0; fi
  echo "    | exit $(cat "$n.rc")"; grep -E ': error|file\(s\) checked' "$n.txt" "$n.err" | head -20 | sed 's/^/    | /'
  return 1
}
# uncovered_matching FILE ERE: functions readelf's decoded line table gives no row, whose name matches
uncovered_matching() { cov_oracle "$1" | grep -cE "$2"; }

# ---- (1) CMake CUDA shared library: separable compilation, default static cudart, a __device__ function
# called across files, a 64-bit division in a kernel; trueline-cc;ccache as both launchers.
if have_nvcc && have cmake; then
  write_cuda_project cu
  if cmake -S cu -B cub "-DCMAKE_CUDA_COMPILER=$CUDA_HOME/bin/nvcc" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$W;ccache" \
       "-DCMAKE_CXX_COMPILER_LAUNCHER=$W;ccache" > cu.cfg.log 2>&1 && cmake --build cub -j2 > cu.build.log 2>&1; then
    pass "CMake CUDA library built through trueline-cc;ccache"
    so=cub/libkernels.so
    audit cu_so "$so"
    check "CMake CUDA .so: exit 0, no error finding" clean cu_so
    audit cu_dir cub/
    check "CMake CUDA build dir (trueline-check build/): exit 0, no error finding" clean cu_dir
    # what CMake's probes are: every ELF/archive/fatbin under CMakeFiles/<version>/, counted by magic here
    nprobe=$(find cub/CMakeFiles -mindepth 1 -maxdepth 1 -type d -name '[0-9]*.[0-9]*' -exec find {} -type f \; |
             while read -r f; do head -c 8 "$f" | od -An -tx1 | tr -d ' \n' | grep -Eq '^(7f454c46|213c617263683e0a|213c7468696e3e0a|50ed55ba)' && echo "$f"; done | wc -l)
    check "dir scan: the summary says it skipped the $nprobe CMake compiler-probe files" \
      sh -c "[ $nprobe -gt 0 ] && grep -q 'skipped $nprobe CMake compiler-probe files' cu_dir.txt"
    lacks "dir scan: no CompilerId / CMakeDetermineCompilerABI file audited" cu_dir.txt 'CompilerId|CMakeDetermineCompilerABI' \
      '^[1-9][0-9]* file\(s\) checked'
    contains "dir scan: the project's objects are audited" cu_dir.txt 'kernels\.dir/scale\.cu\.o|kernels\.dir/api\.cpp\.o'
    # libcudart_static: one grouped finding whose count is what readelf's line table leaves uncovered
    # (the device link's __cudaRegisterLinkedBinary* and nvcc's __cudaUnregisterBinaryUtil are not the runtime's)
    ncudart=$(cov_oracle "$so" | grep -vE '__cudaRegisterLinkedBinary|^__cudaUnregisterBinaryUtil' |
              grep -cE '^(libcudart_static_|cuda[A-Z]|__cuda|_ZN6cudart|_ZNK6cudart)')
    check "libcudart_static: one info finding naming its $ncudart uncovered functions (readelf count)" \
      sh -c "[ $ncudart -gt 100 ] && [ \$(grep -c '\[line-tables\].*libcudart_static' cu_so.txt) -eq 1 ] &&
             grep -q 'info \[line-tables\] $ncudart functions of libcudart_static have no line info; NVIDIA ships it without -g' cu_so.txt"
    # nvcc's 64-bit division helper is in the device code (cuobjdump's symbol list), reported once, at info
    CUOBJDUMP=$(find_pypi_tool cuobjdump)
    if [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -elf "$so" 2>/dev/null | grep -q '__cuda_sm20_div_u64'; then
      check "__cuda_sm20_div_u64 (in the cubin per cuobjdump): one info finding, as nvcc's helper" \
        sh -c "[ \$(grep -c '\[line-tables\].*__cuda_sm20_div_u64' cu_so.txt) -eq 1 ] && grep -q 'info \[line-tables\] .*nvcc.s device arithmetic helpers.*__cuda_sm20_div_u64' cu_so.txt"
    else
      skip "cuobjdump missing or the cubin has no __cuda_sm20_div_u64: helper grouping not asserted"
    fi
    # the device link's crt/link.stub unit (readelf names it) is the toolchain's, not "built outside the wrapper"
    if readelf --debug-dump=info "$so" 2>/dev/null | grep -q 'DW_AT_name.*link\.stub'; then
      contains "link.stub unit: reported as the CUDA device link's" cu_so.txt 'info \[provenance\] 1 compile unit made by the CUDA device link'
    else
      pass "link.stub unit: not in the DWARF of this build (device link compiled without -g)"
    fi
    lacks "provenance: nothing called built outside the wrapper" cu_so.txt 'built outside the wrapper|not built through trueline-cc' \
      '^1 file\(s\) checked'
    check "cmake_device_link.o (no compile record: nvcc -dlink output) is not called a missed compile" \
      sh -c "grep -q 'cmake_device_link\.o' cu_dir.txt && ! grep -q 'cmake_device_link\.o: .*not built through trueline-cc' cu_dir.txt"
  else
    fail "CMake CUDA library built through trueline-cc;ccache"; tail -20 cu.build.log cu.cfg.log | sed 's/^/    | /'
  fi
else
  skip "nvcc or cmake not found: CMake CUDA project skipped"
fi

# ---- (2) C++ library at -O3 -g: classes, ctors/dtors, virtuals, templates, lambdas, local classes and
# hot/cold splits (a throw on an unlikely path), with gcc and clang.
mkdir -p cpp
cat > cpp/shapes.hpp <<'EOF'
#pragma once
#include <memory>
#include <string>
#include <vector>
namespace geo {
struct Shape {
  explicit Shape(std::string n);
  virtual ~Shape();
  virtual double area() const = 0;
  const std::string &name() const { return name_; }
 private:
  std::string name_;
};
struct Circle : Shape { explicit Circle(double r); ~Circle() override; double area() const override; double r; };
struct Rect : Shape { Rect(double w, double h); double area() const override; double w, h; };
template <class T> T checked_div(T a, T b);
double total_area(const std::vector<std::unique_ptr<Shape>> &v);
int count_if_large(const std::vector<double> &v, double limit);
}
EOF
cat > cpp/shapes.cpp <<'EOF'
#include "shapes.hpp"
#include <algorithm>
#include <numeric>
#include <stdexcept>
namespace geo {
Shape::Shape(std::string n) : name_(std::move(n)) {
  if (__builtin_expect(name_.empty(), 0)) throw std::invalid_argument("shape without a name");
}
Shape::~Shape() = default;
Circle::Circle(double rr) : Shape("circle"), r(rr) {
  if (__builtin_expect(rr < 0, 0)) throw std::domain_error("negative radius " + std::to_string(rr));
}
Circle::~Circle() = default;
double Circle::area() const { return 3.14159265358979 * r * r; }
Rect::Rect(double ww, double hh) : Shape("rect"), w(ww), h(hh) {}
double Rect::area() const { return w * h; }
template <class T> T checked_div(T a, T b) {
  if (__builtin_expect(b == 0, 0)) throw std::overflow_error("division by zero");
  return a / b;
}
template int checked_div<int>(int, int);
template double checked_div<double>(double, double);
double total_area(const std::vector<std::unique_ptr<Shape>> &v) {
  struct Acc { double sum = 0; void add(const Shape &s) { sum += s.area(); } } acc;  // local class
  std::for_each(v.begin(), v.end(), [&acc](const std::unique_ptr<Shape> &s) { acc.add(*s); });
  return acc.sum;
}
int count_if_large(const std::vector<double> &v, double limit) {
  return (int)std::count_if(v.begin(), v.end(), [limit](double x) { return x > limit; });
}
}
EOF
cat > cpp/factory.cpp <<'EOF'
#include "shapes.hpp"
#include <stdexcept>
namespace geo {
std::vector<std::unique_ptr<Shape>> make_shapes(int n) {
  std::vector<std::unique_ptr<Shape>> v;
  for (int i = 0; i < n; i++) {
    if (i % 2) v.push_back(std::make_unique<Circle>(i));
    else v.push_back(std::make_unique<Rect>(i, i + 1));
  }
  if (__builtin_expect(v.size() > 1000000, 0)) throw std::length_error("too many shapes: " + std::to_string(n));
  return v;
}
}
EOF
for cxx in g++ clang++; do
  have $cxx || { skip "$cxx not installed"; continue; }
  d=cpp-$cxx
  mkdir -p $d
  if "$W" ccache $cxx -O3 -g -fPIC -c cpp/shapes.cpp -o $d/shapes.o && "$W" ccache $cxx -O3 -g -fPIC -c cpp/factory.cpp -o $d/factory.o &&
     $cxx -shared $d/shapes.o $d/factory.o -o $d/libgeo.so 2> $d/link.err; then
    audit $d "$d/libgeo.so" "$d/shapes.o" "$d/factory.o"
    check "C++ library -O3 -g ($cxx): exit 0, no error finding" clean $d
    if [ $cxx = g++ ]; then
      # the fixture really has hot/cold splits (nm), and none is reported as a function of its own
      ncold=$(nm "$d/libgeo.so" | grep -c '\.cold')
      check "g++ -O3 split $ncold functions into .cold parts (nm); none reported on its own" \
        sh -c "[ $ncold -gt 0 ] && ! grep -q 'clone \.cold\]: function' $d.txt"
    fi
  else
    fail "C++ library -O3 -g ($cxx) built"
  fi
done

# ---- (3) a pybind11 module at -O3 -g
if python3 -c 'import pybind11' 2>/dev/null; then
  mkdir -p py
  cat > py/fastmath.cpp <<'EOF'
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <numeric>
#include <vector>
namespace py = pybind11;
struct Stats { double mean = 0, max = 0; };
static Stats summarize(const std::vector<double> &v) {
  Stats s;
  if (v.empty()) throw std::invalid_argument("empty input");
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  for (double x : v) s.max = x > s.max ? x : s.max;
  return s;
}
PYBIND11_MODULE(fastmath, m) {
  py::class_<Stats>(m, "Stats").def_readonly("mean", &Stats::mean).def_readonly("max", &Stats::max);
  m.def("summarize", &summarize);
  m.def("add", [](int a, int b) { return a + b; });
}
EOF
  ext=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  # shellcheck disable=SC2046
  if "$W" ccache g++ -O3 -g -fPIC -fvisibility=hidden $(python3 -m pybind11 --includes) -c py/fastmath.cpp -o py/fastmath.o &&
     g++ -shared py/fastmath.o -o "py/fastmath$ext"; then
    check "pybind11 module works (python imports it, summarize([1,3]).mean == 2)" \
      sh -c "cd py && python3 -c 'import fastmath; assert fastmath.summarize([1.0, 3.0]).mean == 2.0 and fastmath.add(2, 3) == 5'"
    audit py "py/fastmath$ext"
    check "pybind11 module -O3 -g: exit 0, no error finding" clean py
  else
    fail "pybind11 module built"
  fi
else
  skip "pybind11 not importable: pybind11 module skipped"
fi

# ---- (4) a library that instantiates std:: templates over its own types
mkdir -p inst
cat > inst/catalog.cpp <<'EOF'
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
namespace shop {
struct Sku { int id; bool operator<(const Sku &o) const { return id < o.id; } bool operator==(const Sku &o) const { return id == o.id; } };
struct SkuHash { size_t operator()(const Sku &s) const { return std::hash<int>()(s.id); } };
struct Item { std::string name; double price; };
class Catalog {
 public:
  void add(Sku s, Item i) { by_sku_[s] = i; index_[s] = items_.size(); items_.push_back(std::make_shared<Item>(i)); }
  std::vector<Item> sorted_by_price() const {
    std::vector<Item> v;
    for (auto &p : by_sku_) v.push_back(p.second);
    std::sort(v.begin(), v.end(), [](const Item &a, const Item &b) { return a.price < b.price; });
    return v;
  }
  std::function<double(Sku)> pricer() const { return [this](Sku s) { auto it = by_sku_.find(s); return it == by_sku_.end() ? 0.0 : it->second.price; }; }
 private:
  std::map<Sku, Item> by_sku_;
  std::unordered_map<Sku, size_t, SkuHash> index_;
  std::vector<std::shared_ptr<Item>> items_;
};
}
double cheapest(int n) {
  shop::Catalog c;
  for (int i = 0; i < n; i++) c.add({i}, {"item" + std::to_string(i), 100.0 - i});
  auto v = c.sorted_by_price();
  return v.empty() ? 0 : c.pricer()({n - 1}) + v.front().price;
}
EOF
if "$W" ccache g++ -O2 -g -fPIC -c inst/catalog.cpp -o inst/catalog.o && g++ -shared inst/catalog.o -o inst/libcatalog.so; then
  nstd=$(nm -C --defined-only inst/libcatalog.so | grep -c 'std::.*shop::')
  check "std:: templates over the library's own types are instantiated in it ($nstd, nm)" test "$nstd" -gt 5
  audit inst inst/libcatalog.so inst/catalog.o
  check "library instantiating std:: over its own types: exit 0, no error finding" clean inst
else
  fail "library instantiating std:: templates built"
fi

# ---- broken builds: each defect found by the check that owns it
mkdir -p bad
printf 'int good_fn(int x) { return x * 3 + 1; }\n' > bad/good.c
printf 'int nodebug_helper(int x) { return x ^ 0x5a5a; }\nint nodebug_other(int x) { return nodebug_helper(x) + 7; }\n' > bad/nodebug.c
"$W" ccache gcc -O2 -fPIC -c bad/good.c -o bad/good.o
gcc -O2 -fPIC -c bad/nodebug.c -o bad/nodebug.o # linked in without -g, past the wrapper
gcc -shared bad/good.o bad/nodebug.o -o bad/libnog.so
audit nog bad/libnog.so
nnog=$(uncovered_matching bad/libnog.so '^nodebug_')
check "object without -g linked in: exit 1" test "$(cat nog.rc)" = 1
check "... line-tables error names each of its $nnog functions readelf finds uncovered" \
  sh -c "[ $nnog = 2 ] && grep -q 'error \[line-tables\] nodebug_helper: function' nog.txt && grep -q 'error \[line-tables\] nodebug_other: function' nog.txt"
lacks "... good_fn (with rows) is not named" nog.txt 'good_fn: function' '^1 file\(s\) checked'

# A stale object: its code no longer matches its DWARF (a symbol renamed after the compile, as a stale cache
# entry or a patched object would leave it). readelf shows the DWARF name that the symbol no longer has.
printf 'int price_of(int x) { return x * 5; }\nint tax_of(int x) { return x / 5; }\n' > bad/stale.c
"$W" ccache gcc -O2 -fPIC -c bad/stale.c -o bad/stale.o && objcopy --redefine-sym price_of=price_of_v2 bad/stale.o bad/stale2.o
gcc -shared bad/good.o bad/stale2.o -o bad/libstale.so
audit stale bad/libstale.so
check "stale object: DWARF still names price_of (readelf), the symbol is price_of_v2 (nm)" \
  sh -c "readelf --debug-dump=info bad/libstale.so | grep -q 'DW_AT_name.*: price_of\$' && nm bad/libstale.so | grep -q ' T price_of_v2\$'"
check "stale object: dwarf-symbols error names price_of_v2" sh -c "grep -q 'error \[dwarf-symbols\] price_of_v2' stale.txt"

# -static-libstdc++ without --exclude-libs: libstdc++'s own std:: code is exported from the library
printf '#include <string>\n#include <sstream>\nstd::string fmt(int x) { std::ostringstream o; o << x; return o.str(); }\n' > bad/fmt.cpp
"$W" ccache g++ -O2 -fPIC -c bad/fmt.cpp -o bad/fmt.o
if g++ -shared -static-libstdc++ bad/fmt.o -o bad/libstatic.so 2>/dev/null; then
  nstrong=$(nm -D --defined-only bad/libstatic.so | awk '$2 == "T"' | grep -c ' _ZNSt\| _ZNKSt')
  audit static bad/libstatic.so
  check "-static-libstdc++: $nstrong strong std:: symbols exported (nm -D); stl-leak error" \
    sh -c "[ $nstrong -gt 10 ] && grep -q 'error \[stl-leak\]' static.txt"
  lacks "-static-libstdc++: libstdc++'s functions are not blamed one by one by line-tables" static.txt 'error \[line-tables\] std::' \
    '^1 file\(s\) checked'
  # nor its file-local helpers (the demangler, the LSDA reader, the emergency pool), its templates whose
  # demangling starts with a return type, or its transaction clones: nm lists them in the library
  premise "-static-libstdc++: the library holds libstdc++'s d_print_comp and a transaction clone (nm)" sh -c \
    "nm bad/libstatic.so | grep -q ' d_print_comp' && nm bad/libstatic.so | grep -q ' _ZGTtNSt'"
  lacks "-static-libstdc++: no line-tables error at all (the stl-leak error is the one finding)" static.txt \
    'error \[line-tables\]' '^1 file\(s\) checked'
else
  skip "g++ cannot link -static-libstdc++"
fi
