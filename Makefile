# trueline — build, test, demo.  `make help` lists the targets.
#
# Sources are found by wildcard so that adding a file to lib/, wrapper/ or a checker/ layer needs no edit here.

CC       ?= cc
BUILD    ?= build
PREFIX   ?= /usr/local
VERSION  := 0.1.0

# Cross builds (make CC=aarch64-linux-gnu-gcc): the target is what the compiler builds for (-dumpmachine). pkg-config
# then reads the target's .pc files (Debian multiarch: /usr/lib/<triple>/pkgconfig; a <triple>-pkg-config where
# one is installed).
TARGET_TRIPLE := $(shell $(CC) -dumpmachine 2>/dev/null)
TARGET_ARCH   := $(firstword $(subst -, ,$(TARGET_TRIPLE)))
ifneq ($(filter-out $(shell uname -m),$(TARGET_ARCH)),)
ifeq ($(origin PKG_CONFIG),undefined)
PKG_CONFIG := $(if $(shell command -v $(TARGET_TRIPLE)-pkg-config 2>/dev/null),$(TARGET_TRIPLE)-pkg-config,\
  env PKG_CONFIG_LIBDIR=/usr/lib/$(TARGET_TRIPLE)/pkgconfig:/usr/share/pkgconfig pkg-config)
endif
endif

PKG_CONFIG ?= pkg-config
PKGS     := libelf libzstd liblz4 libxxhash inih libarchive
# libdwarf: every 0.x/2.x release installs libdwarf.pc (so PKG_CONFIG_PATH picks one installed elsewhere);
# Debian 12's 20210528 has none, and its headers are in a fixed directory. libiberty never ships a .pc.
DWARF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdwarf 2>/dev/null || echo -I/usr/include/libdwarf)
DWARF_LIBS   := $(shell $(PKG_CONFIG) --libs libdwarf 2>/dev/null || echo -ldwarf)
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(DWARF_CFLAGS) -I/usr/include/libiberty
WARN     := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS   ?= -O2 -g
CPPFLAGS ?=
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -DTRUELINE_VERSION='"$(VERSION)"' -Iinclude $(WARN)
# The user's CPPFLAGS and CFLAGS come before the dependencies' include directories, as autotools orders them:
# `make CPPFLAGS=-I/opt/libdwarf/include` compiles against that header, not the system copy.
ALL_CFLAGS := $(BASE_CFLAGS) -Ichecker -Iwrapper $(CPPFLAGS) $(CFLAGS) $(DEP_CFLAGS) $(SAN)
LDFLAGS  ?=
ALL_LDFLAGS := $(LDFLAGS) $(SAN)

# The wrapper sits in front of every compile: it links only what it needs (no DWARF, no decompressors).
# libelf: the provenance stamp and the cache-hit verification read and write .note.trueline; the
# fingerprint reads the toolchain's DT_NEEDED through lib/elf_file.c, which links libzstd.
WRAPPER_LIBS := $(shell $(PKG_CONFIG) --libs libelf libzstd libxxhash inih 2>/dev/null || echo -lelf -lzstd -lxxhash -linih) -liberty -lz -lpthread
# libsodium: the MAC of provenance records when a key is configured (wrapper/provenance/provenance_mac.c). Optional: without
# it the build has no MAC support and a configured key is an error.
SODIUM       := $(shell $(PKG_CONFIG) --exists libsodium 2>/dev/null && echo yes)
ifeq ($(SODIUM),yes)
BASE_CFLAGS  += -DTL_HAVE_SODIUM
ALL_CFLAGS   += -DTL_HAVE_SODIUM $(shell $(PKG_CONFIG) --cflags libsodium)
WRAPPER_LIBS += $(shell $(PKG_CONFIG) --libs libsodium)
SODIUM_LIBS  := $(shell $(PKG_CONFIG) --libs libsodium)
endif
# jansson: reading envelopes, statements and key files (checker/attest/). The attestation modes need it and
# libsodium; without either they say they are not built in.
JANSSON      := $(shell $(PKG_CONFIG) --exists jansson 2>/dev/null && echo yes)
ifeq ($(SODIUM)$(JANSSON),yesyes)
ALL_CFLAGS   += -DTL_HAVE_ATTEST $(shell $(PKG_CONFIG) --cflags jansson)
SODIUM_LIBS  += $(shell $(PKG_CONFIG) --libs jansson)
endif
CHECKER_LIBS := $(DWARF_LIBS) $(shell $(PKG_CONFIG) --libs libelf libzstd liblz4 libxxhash inih libarchive 2>/dev/null || echo -lelf -lzstd -llz4 -lxxhash -linih -larchive) -liberty -lz -lpthread
# libdebuginfod: --coredump, --symbolize and the audit ask the servers of DEBUGINFOD_URLS for debug-store parts
# (checker/read/debug_store.c). Optional like libsodium: without its header only a local --debug-store is read.
# The library is opened when a lookup needs it (dlopen, as elfutils' libdw does), not linked: the static wheel
# build and a machine without libcurl's closure still run, and say so when DEBUGINFOD_URLS is set.
DEBUGINFOD   := $(shell $(PKG_CONFIG) --exists libdebuginfod 2>/dev/null && echo yes)
ifeq ($(DEBUGINFOD),yes)
ALL_CFLAGS   += -DTL_HAVE_DEBUGINFOD $(shell $(PKG_CONFIG) --cflags libdebuginfod)
endif

LIB_SRC     := $(sort $(wildcard lib/*.c))
WRAPPER_DIRS := wrapper wrapper/understand wrapper/fingerprint wrapper/provenance wrapper/run
# In the order of the files' names, not of their folders: the link order, and so trueline-cc's code layout on
# the hit path, stays what it was before the phase folders (names are unique across the folders).
WRAPPER_ALL := $(wildcard $(WRAPPER_DIRS:%=%/*.c))
WRAPPER_SRC := $(foreach f,$(sort $(notdir $(WRAPPER_ALL))),$(filter %/$(f),$(WRAPPER_ALL)))
CHECKER_SRC := $(sort $(wildcard checker/*.c checker/read/*.c checker/checks/*.c checker/report/*.c checker/tools/*.c checker/tools/coredump/*.c checker/split/*.c checker/attest/*.c))
UNIT_SRC    := $(sort $(wildcard tests/unit/*.c))

LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
WRAPPER_OBJ := $(WRAPPER_SRC:%.c=$(BUILD)/obj/%.o)
CHECKER_OBJ := $(CHECKER_SRC:%.c=$(BUILD)/obj/%.o)
# checker/main.c is the only object with a main(); unit tests link every other checker object.
CHECKER_CORE_OBJ := $(filter-out $(BUILD)/obj/checker/main.o,$(CHECKER_OBJ))
WRAPPER_CORE_OBJ := $(filter-out $(BUILD)/obj/wrapper/main.o,$(WRAPPER_OBJ))
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

LIBTL := $(BUILD)/lib/libtrueline.a

# libtrueline-hook.so: preloaded into ccache to verify a cache hit in ccache's own process
# (wrapper/provenance/verify_in_cache.c). Self-contained, no libelf (why: wrapper/hook/note_section.c), so that ccache's
# scope gains one object with one exported symbol. Built against glibc like the ccache it is loaded into, never with sanitizers (a sanitized library
# cannot be preloaded into an unsanitized program).
PIC_CFLAGS  := $(BASE_CFLAGS) -Iwrapper $(DEP_CFLAGS) -O2 -g -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections
HOOK_OBJ    := $(patsubst %.c,$(BUILD)/obj-hook/%.o,wrapper/hook/verify_hook.c wrapper/hook/note_section.c wrapper/provenance/record_check.c wrapper/provenance/prov_stats.c lib/note.c lib/diag.c)
HOOK_LIB    := $(BUILD)/lib/trueline/libtrueline-hook.so

.PHONY: all deps deps-demo test unit asan demo install clean fuzz bench help check-deps wheel
all: check-deps $(BUILD)/bin/trueline-cc $(BUILD)/bin/trueline-check $(HOOK_LIB)

help:
	@echo "make            build build/bin/trueline-cc and build/bin/trueline-check"
	@echo "make deps       install missing packages for building and testing (apt, dnf or pacman, and the PyPI"
	@echo "                oracles into VENV=build/venv, when root; else print the commands); 'make deps-demo'"
	@echo "                installs only what the demo needs"
	@echo "make demo       build + the bundled example through trueline-cc and trueline-check"
	@echo "make test       deps + build + the whole test suite (unit + suites)"
	@echo "make asan       the whole test suite under ASan + UBSan"
	@echo "make fuzz       build the libFuzzer targets (clang)"
	@echo "make bench      run bench/ and write bench/recorded/benchmarks.md"
	@echo "make install PREFIX=/usr/local [DESTDIR=/staging]"
	@echo "make wheel      BUILD/dist/trueline-*.whl: pip install puts both tools on PATH (CC=aarch64-linux-gnu-gcc: aarch64)"
	@echo "dependencies elsewhere: PKG_CONFIG_PATH=/opt/x/lib/pkgconfig, CPPFLAGS=-I..., LDFLAGS=-L... (before the system's)"

# The package names per distribution are in .ci/deps.sh: build (compile trueline), demo (+ ccache), test (+ the tools
# the test suites compare against: the distribution's packages, then the PyPI oracles in the virtual environment VENV,
# which the suites put on their PATH).
VENV ?= $(BUILD)/venv
deps:
	@TRUELINE_VENV=$(abspath $(VENV)) sh .ci/deps.sh test
deps-demo:
	@sh .ci/deps.sh demo

# Compiles and links a program that includes every dependency's header, with the flags the build uses, so that a
# library installed anywhere the user's flags or pkg-config point is found, and a missing one is named by the compiler.
DEPS_PROBE_HDRS := libelf.h gelf.h libdwarf.h dwarf.h demangle.h libiberty.h zstd.h lz4.h xxhash.h ini.h zlib.h archive.h
check-deps:
	@mkdir -p "$(BUILD)"
	@printf '$(foreach h,$(DEPS_PROBE_HDRS),#include <$(h)>\n)int main(void) { return 0; }\n' > "$(BUILD)/check-deps.c"
	@$(CC) $(ALL_CFLAGS) "$(BUILD)/check-deps.c" -o "$(BUILD)/check-deps" $(ALL_LDFLAGS) $(CHECKER_LIBS) 2> "$(BUILD)/check-deps.log" \
	  || { grep -m3 -E 'error|cannot find' "$(BUILD)/check-deps.log" | sed 's/^/  /' >&2; \
	       echo "trueline: build dependencies missing or not found with these flags; run 'make deps' (packages: sh .ci/deps.sh --list build)," >&2; \
	       echo "  or point the build at them: PKG_CONFIG_PATH=DIR/lib/pkgconfig, CPPFLAGS=-IDIR/include, LDFLAGS=-LDIR/lib" >&2; exit 1; }
	@$(if $(SODIUM),,echo "trueline: libsodium not found (pkg-config libsodium): built without record MACs ([provenance] key_file); 'make deps' installs it" >&2)
	@$(if $(SODIUM),$(if $(JANSSON),,echo "trueline: jansson not found (pkg-config jansson): built without --attest/--verify-attestation; 'make deps' installs it" >&2))

# Where trueline-check looks for conf/manylinux.tsv (and conf/platform_libs.tsv, conf/platform_blacklist.tsv) when it is neither beside the binary (PREFIX/share/trueline)
# nor in the source tree above it: the installed data directory, then this source tree (a BUILD elsewhere).
$(BUILD)/obj/checker/conf_file.o: ALL_CFLAGS += -DTL_DATADIR='"$(PREFIX)/share/trueline"' \
  -DTL_SOURCE_CONF='"$(abspath conf)"'

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj-hook/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -MMD -MP -c $< -o $@

# --gc-sections drops what the hook does not reach (lib/note.c's argv hash and its xxHash calls).
# -z noseparate-code: two segments (code with its read-only data, then data) instead of four; ccache's
# loader maps the hook on every cache hit, and the two extra mappings were two mmaps and two page faults
# of ~15 KB of code and tables.
$(HOOK_LIB): $(HOOK_OBJ) wrapper/hook/verify.map
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(HOOK_OBJ) -Wl,--version-script=wrapper/hook/verify.map -Wl,--gc-sections -Wl,-z,defs -Wl,-z,now -Wl,-O1 -Wl,-z,noseparate-code

$(LIBTL): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# trueline-cc runs once per compile, so it is linked statically (except under sanitizers): it starts ~1 ms
# faster than dynamically linked on the hit path (bench/wrapper.sh, bench/libc.sh, bench/recorded/benchmarks.md).
# It is linked against glibc: the static archives it needs (libelf, libzstd, libxxhash, libinih, libiberty, zlib,
# libsodium) are built against glibc wherever they are packaged, and a musl build would link them into a musl
# binary through shims for glibc's fortified entry points (docs/internals/wrapper-hit-path.md says what that cost).
# Static only where every archive exists (Debian ships them; other distributions may not: then dynamic).
STATIC_ARCHIVES := libc.a libelf.a libzstd.a libxxhash.a libinih.a libiberty.a libz.a $(if $(SODIUM),libsodium.a)
STATIC_MISSING   = $(foreach a,$(STATIC_ARCHIVES),$(if $(findstring /,$(shell $(CC) -print-file-name=$(a))),,$(a)))
WRAPPER_STATIC  = $(if $(strip $(SAN)$(STATIC_MISSING)),,-static)
$(BUILD)/bin/trueline-cc: $(WRAPPER_OBJ) $(LIBTL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(WRAPPER_STATIC) -o $@ $(WRAPPER_OBJ) $(LIBTL) $(WRAPPER_LIBS)

$(BUILD)/bin/trueline-check: $(CHECKER_OBJ) $(LIBTL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CHECKER_OBJ) $(LIBTL) $(CHECKER_LIBS) $(SODIUM_LIBS)

# Unit tests: tests/unit/<name>.c links against lib/ plus the front ends' non-main objects.
$(BUILD)/tests/%: tests/unit/%.c $(CHECKER_CORE_OBJ) $(WRAPPER_CORE_OBJ) $(LIBTL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CHECKER_CORE_OBJ) $(WRAPPER_CORE_OBJ) $(LIBTL) $(CHECKER_LIBS) $(SODIUM_LIBS) $(ALL_LDFLAGS)

# The decompression floor bench/device.sh states the device audit against (bench/zstd_floor.c).
$(BUILD)/bench/zstd_floor: bench/zstd_floor.c $(CHECKER_CORE_OBJ) $(WRAPPER_CORE_OBJ) $(LIBTL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CHECKER_CORE_OBJ) $(WRAPPER_CORE_OBJ) $(LIBTL) $(CHECKER_LIBS) $(SODIUM_LIBS) $(ALL_LDFLAGS)

unit: all $(UNIT_BIN)

# deps first, then a fresh make: what deps installed (libsodium, the static archives) decides how the rest is built
test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BIN)
	@TRUELINE_BUILD=$(abspath $(BUILD)) TRUELINE_VENV=$(abspath $(VENV)) bash tests/run.sh

asan:
	$(MAKE) BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CFLAGS="-O1 -g" all unit
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  TRUELINE_BUILD=$(abspath build-asan) TRUELINE_VENV=$(abspath $(VENV)) TRUELINE_SANITIZED=1 bash tests/run.sh

# The demo needs the build dependencies and ccache (nvcc when present); the test suites' tools are not its business.
demo: deps-demo
	@echo "building trueline..."
	@mkdir -p "$(BUILD)" && $(MAKE) --no-print-directory -s all > "$(BUILD)/demo-build.log" 2>&1 \
	  || { tail -20 "$(BUILD)/demo-build.log" >&2; echo "trueline: build failed (log: $(BUILD)/demo-build.log)" >&2; exit 1; }
	@echo "building trueline... done"
	@TRUELINE_BUILD=$(abspath $(BUILD)) sh examples/demo.sh

fuzz:
	$(MAKE) -C fuzz

bench: all $(BUILD)/bench/zstd_floor
	@TRUELINE_BUILD=$(abspath $(BUILD)) sh bench/run.sh

# Every path quoted: PREFIX and DESTDIR may hold blanks.
install: all
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/trueline" "$(DESTDIR)$(PREFIX)/share/man/man1" \
	  "$(DESTDIR)$(PREFIX)/lib/trueline"
	install -m 755 "$(BUILD)/bin/trueline-cc" "$(BUILD)/bin/trueline-check" "$(DESTDIR)$(PREFIX)/bin/"
	install -m 644 "$(HOOK_LIB)" "$(DESTDIR)$(PREFIX)/lib/trueline/"
	install -m 644 conf/trueline.ini "$(DESTDIR)$(PREFIX)/share/trueline/trueline.ini"
	for f in conf/*.tsv; do [ ! -f "$$f" ] || install -m 644 "$$f" "$(DESTDIR)$(PREFIX)/share/trueline/" || exit 1; done
	install -m 644 docs/man/trueline-cc.1 docs/man/trueline-check.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"

# make wheel: $(BUILD)/dist/trueline-VERSION-py3-none-manylinux_2_NN_ARCH.whl (packaging/make_wheel.py; README.md
# "Wheel"). It holds trueline-cc as built (static), a trueline-check linked statically against every library but
# glibc, the hook, the data files and the man pages, installed where the tools look for them beside their bin/.
# Zip and tar are all the archive formats the checker asks libarchive for; their closure is these archives (not
# pkg-config --static's, which names libacl and libxml2 that Debian ships no .a of and the two formats never call).
# --gc-sections: the zip writer (--split of wheels) takes one helper from archive_write_set_format.o, whose
# table names every writer, xar's libxml2 calls among them; unreferenced, they are dropped instead of linked.
WHEEL_CHECKER_LIBS := -Wl,--gc-sections -Wl,-Bstatic -ldwarf -lelf -larchive -lnettle -llzma -lbz2 -lzstd -llz4 -lxxhash -linih -liberty -lz \
                      $(if $(SODIUM),-lsodium) $(if $(SODIUM),$(if $(JANSSON),-ljansson)) -Wl,-Bdynamic -lpthread
# packaging/wheel_glibc_floor.c: libarchive's zip writer would otherwise need GLIBC_2.36 (its comment says why).
$(BUILD)/wheel/trueline-check: $(CHECKER_OBJ) $(LIBTL) packaging/wheel_glibc_floor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $(BUILD)/wheel/wheel_glibc_floor.o packaging/wheel_glibc_floor.c
	$(CC) $(ALL_LDFLAGS) -Wl,--wrap=arc4random_buf -o $@ $(CHECKER_OBJ) $(BUILD)/wheel/wheel_glibc_floor.o $(LIBTL) $(WHEEL_CHECKER_LIBS)

wheel: all $(BUILD)/wheel/trueline-check
	python3 packaging/make_wheel.py --version $(VERSION) --out "$(BUILD)/dist" \
	  --cc "$(BUILD)/bin/trueline-cc" --check "$(BUILD)/wheel/trueline-check" --hook "$(HOOK_LIB)" \
	  --data conf/trueline.ini $(wildcard conf/*.tsv) --man docs/man/trueline-cc.1 docs/man/trueline-check.1

clean:
	rm -rf $(BUILD) build-asan

-include $(LIB_OBJ:.o=.d) $(WRAPPER_OBJ:.o=.d) $(CHECKER_OBJ:.o=.d) $(HOOK_OBJ:.o=.d)
