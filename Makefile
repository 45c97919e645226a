# gtool - gradient trace toolkit.  `make help` lists the targets.
VERSION = 0.1.0
VERSION_MAJOR = $(word 1,$(subst ., ,$(VERSION)))
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
PKGS = hdf5 libzstd zlib fftw3 fftw3f jansson libzip libisal

# Debian packages the build and the tests need; `make deps` installs the missing ones.
DEB_PKGS = gcc make pkg-config libhdf5-dev hdf5-tools libzstd-dev zstd zlib1g-dev libfftw3-dev \
	bats clang libxml2-utils bc time libopenmpi-dev openmpi-bin libjansson-dev jq g++ \
	hdf5-filter-plugin hdf5-filter-plugin-blosc-serial python3-h5py python3-numpy \
	python3-torch python3-pytest python3-sklearn libzip-dev \
	libclang-rt-14-dev libbz2-dev libssl-dev zsh fish libisal-dev
# libclang-rt-14-dev: clang's fuzzer and sanitizer runtimes (only recommended
# by clang, so --no-install-recommends leaves them out); libbz2-dev and
# libssl-dev: what `pkg-config --static --libs libzip` names, for the static
# examples
# Debian's own Python (numpy, h5py, torch come from Debian packages), never
# another python3 earlier on PATH
PYTHON = /usr/bin/python3

WARN = -Wall -Wextra -Wpedantic -Wshadow -Wcast-qual -Wcast-align \
	-Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition \
	-Wpointer-arith -Wundef -Wvla -Wformat=2 -Wwrite-strings -Wswitch-enum \
	-Wfloat-equal -Wimplicit-fallthrough -Wdeclaration-after-statement \
	-fno-common $(if $(DEVELOPER),-Werror)
OPT ?= -O2 -g
# Read when make reads this file: on a machine without the -dev packages
# they are empty, which is why check, demo and bench run `deps` first and
# then build in a second $(MAKE), which reads them again.
# Asked of pkg-config on first use, once (not when the Makefile is read):
# `make demo`, `make check` and `make bench` run `make deps` first and
# never expand them themselves, so a machine without the -dev packages
# yet gets them before pkg-config is asked.
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS)
# Every object is position-independent, so the one object tree serves the
# gtool binary, libgtool.a and libgtool.so (measured: the codecs run the same
# instructions, README "Speed and size"); hidden visibility keeps all but the
# GTOOL_API functions of api/ out of the shared library's symbol table.
PIC = -fPIC -fvisibility=hidden
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -DGT_VERSION=$(VERSION) $(OPT) $(WARN) \
	$(PKG_CFLAGS) -pthread $(PIC) $(CFLAGS)
SAN = -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) -fno-omit-frame-pointer
CFLAGS_ALL += $(if $(SANITIZE),$(SAN))
LDFLAGS_ALL = -pthread $(if $(SANITIZE),-fsanitize=$(SANITIZE)) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lm
# the gtool binary is linked without HDF5 and libzip (cmd/modules.c loads
# gtool-hdf5.so and gtool-npz.so)
PKG_LIBS_BIN = $(eval PKG_LIBS_BIN := $(shell pkg-config --libs $(filter-out hdf5 libzip,$(PKGS)) 2>/dev/null))$(PKG_LIBS_BIN)
LIBS_BIN = $(PKG_LIBS_BIN) -lm

LIB_SRC := $(sort $(wildcard lib/*.c lib/codecs/*.c))
FMT_SRC := $(sort $(wildcard formats/*.c))
ANA_SRC := $(sort $(wildcard analysis/*.c))
# engine/: what more than one front end needs (codec specs, the coding
# plan, the compress driver, in-memory coding); cmd/ and mpi/ call it
ENG_SRC := $(sort $(wildcard engine/*.c))
# front/: what both front ends (cmd/ and mpi/) share: printing
FRONT_SRC := $(sort $(wildcard front/*.c))
CMD_SRC := $(sort $(wildcard cmd/*.c)) $(FRONT_SRC)
CORE_SRC := $(LIB_SRC) $(FMT_SRC) $(ANA_SRC) $(ENG_SRC)
# libgtool (.a and .so): every layer below cmd/, the public API on top
API_SRC := $(sort $(wildcard api/*.c))
LIBGTOOL_SRC := $(sort $(CORE_SRC) $(API_SRC))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj = $(patsubst %.c,$(1)/obj/%.o,$(2))
LIB_OBJ := $(call obj,$(BUILD),$(LIB_SRC))
LIBGTOOL_OBJ := $(call obj,$(BUILD),$(LIBGTOOL_SRC))
SO_NAME = libgtool.so.$(VERSION_MAJOR)
SO_FILE = libgtool.so.$(VERSION)
SO_LIBS = $(BUILD)/$(SO_FILE) $(BUILD)/$(SO_NAME) $(BUILD)/libgtool.so
CORE_OBJ := $(call obj,$(BUILD),$(FMT_SRC) $(ANA_SRC) $(ENG_SRC))
CMD_OBJ := $(call obj,$(BUILD),$(CMD_SRC))
H5_OBJ := $(call obj,$(BUILD),formats/hdf5.c formats/h5obj.c formats/h5filter.c formats/h5api.c)
NPZ_OBJ := $(call obj,$(BUILD),formats/npz.c formats/npzapi.c)
MODULES = $(BUILD)/gtool-hdf5.so $(BUILD)/gtool-npz.so
# X(allreduce_model) is the command allreduce-model
COMMANDS := $(shell sed -n 's/^\tX(\([a-z_]*\)).*/\1/p' cmd/cmds.h | tr _ -)
LINKS := $(addprefix $(BUILD)/gtool-,$(COMMANDS))
# Open MPI: `gtool allreduce` runs $(BUILD)/gtool-mpi, built by mpicc when
# it is found (MPI=auto), always (MPI=1) or never (MPI=0).  libmpi stays out
# of the main binary: gtool needs no MPI to run, and --help works without it.
MPICC ?= mpicc
MPI ?= auto
ifeq ($(MPI),auto)
HAVE_MPI := $(if $(shell command -v $(MPICC) 2>/dev/null),1,)
else ifeq ($(MPI),0)
HAVE_MPI :=
else
HAVE_MPI := 1
endif
MPI_SRC := $(sort $(wildcard mpi/*.c))
MPI_OBJ := $(call obj,$(BUILD),$(MPI_SRC))
FRONT_OBJ := $(call obj,$(BUILD),$(FRONT_SRC))
MPI_BIN := $(if $(HAVE_MPI),$(BUILD)/gtool-mpi)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

.PHONY: report all deps check check-unit check-asan check-cli check-fuzz check-fuzz-run fuzz-build demo bench \
	install uninstall clean help lint funclen format-check valgrind fuzz check-examples \
	check-python convergence bench-python fixtures

all: $(BUILD)/gtool $(MODULES) $(BUILD)/libgtool.a $(SO_LIBS) $(BUILD)/gtool.pc $(LINKS) $(MPI_BIN)

help:
	@echo "make deps     install the Debian packages gtool needs (when missing)"
	@echo "make          build $(BUILD)/gtool, libgtool (.a, .so, gtool.pc) and the gtool-SUB links"
	@echo "              (and $(BUILD)/gtool-mpi for gtool allreduce when mpicc is found; MPI=0 skips)"
	@echo "make check    every test: unit (plain and ASan+UBSan), Bats, fuzz replay, libFuzzer, examples, pytest"
	@echo "make check-examples  examples/ and gtool.h built against a temporary install of libgtool"
	@echo "make check-python    the Python package's tests (pytest on tests/python)"
	@echo "make fuzz     libFuzzer on every target, FUZZ_SECONDS=$(FUZZ_SECONDS) each (clang)"
	@echo "make demo     run gtool on the bundled sample traces"
	@echo "make bench    throughput of stats and the codecs against zstd"
	@echo "make convergence  DDP on loopback through gtool's codecs against plain DDP (a few minutes)"
	@echo "make report   TRACES=$(TRACES): reports/<trace>/index.html for every *.h5"
	@echo "make install  PREFIX=$(PREFIX) DESTDIR=: binaries, libgtool, gtool.h, gtool.pc, the Python package, man pages, completions"
	@echo "make uninstall  the same PREFIX and DESTDIR: remove what install put there"

deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# Objects depend on the flags they were built with, as git's GIT-CFLAGS:
# a change of OPT, SANITIZE or PIC rebuilds them.
FLAGS_STAMP = $(BUILD)/obj/.cflags
ifeq ($(filter clean help deps demo check bench,$(MAKECMDGOALS)),)
$(shell mkdir -p $(BUILD)/obj && (echo '$(CFLAGS_ALL)' | cmp -s - $(FLAGS_STAMP) || \
	echo '$(CFLAGS_ALL)' > $(FLAGS_STAMP)))
endif

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# libgtool.a: the whole library, public API and internals
$(BUILD)/libgtool.a: $(LIBGTOOL_OBJ)
	@rm -f $@
	ar rcs $@ $^

# libgtool.so: the same objects; api/libgtool.map exports gtool_* only
$(BUILD)/$(SO_FILE): $(LIBGTOOL_OBJ) api/libgtool.map
	$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=api/libgtool.map \
		-Wl,--no-undefined $(LDFLAGS_ALL) -o $@ $(LIBGTOOL_OBJ) $(LIBS)

$(BUILD)/$(SO_NAME) $(BUILD)/libgtool.so: $(BUILD)/$(SO_FILE)
	@ln -sf $(if $(findstring $(SO_NAME),$@),$(SO_FILE),$(SO_NAME)) $@

# gtool.pc for PREFIX (install writes its own for the PREFIX it is given);
# Requires.private names Debian's .pc files
$(BUILD)/gtool.pc: gtool.pc.in Makefile
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(BUILD)/libgtool-core.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The binary without HDF5 and libzip: what reads and writes HDF5 files is
# gtool-hdf5.so beside it, what reads .npz archives gtool-npz.so, each
# loaded on first use (cmd/modules.c), so that the thirty-odd libraries
# libhdf5 needs and libzip's libcrypto are not loaded by every command.  A
# module holds its own copy of the code it calls and exports one symbol.
$(BUILD)/gtool: $(CMD_OBJ) $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a | $(MODULES)
	$(CC) $(LDFLAGS_ALL) -o $@ $(CMD_OBJ) $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a \
		$(LIBS_BIN)

$(BUILD)/gtool-hdf5.so: $(H5_OBJ) $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
$(BUILD)/gtool-npz.so: $(NPZ_OBJ) $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
$(MODULES):
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-z,defs -Wl,--as-needed -o $@ $(filter %.o,$^) \
		$(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LIBS)

$(BUILD)/gtool-%: $(BUILD)/gtool
	@ln -sf gtool $@

$(BUILD)/obj/mpi/%.o: mpi/%.c
	@mkdir -p $(dir $@)
	OMPI_CC=$(CC) $(MPICC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# gtool-mpi is a front end of its own: mpi/ and the engine, nothing of cmd/
$(BUILD)/gtool-mpi: $(MPI_OBJ) $(FRONT_OBJ) $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	OMPI_CC=$(CC) $(MPICC) $(LDFLAGS_ALL) -o $@ $(MPI_OBJ) $(FRONT_OBJ) \
		$(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LIBS)

# ---- HDF5 filter plugin (plugins/, man/gtool-h5filter.5) ------------------
# build/plugins/libH5Zgtool.so: gtool's codecs as HDF5 filter 400, for any
# HDF5 program through HDF5_PLUGIN_PATH.  Self-contained: lib/'s objects
# (compiled -fPIC -fvisibility=hidden like every object of the tree) are
# linked in statically; the version script exports only H5PLget_plugin_type
# and H5PLget_plugin_info.
PLUGIN_SRC := $(sort $(wildcard plugins/*.c))
PLUGIN_OBJ := $(call obj,$(BUILD),$(PLUGIN_SRC))
PLUGIN_SO = $(BUILD)/plugins/libH5Zgtool.so
PLUGIN_DIR = $(DESTDIR)$(PREFIX)/lib/hdf5/plugins

all: $(PLUGIN_SO)

$(PLUGIN_SO): $(PLUGIN_OBJ) $(LIB_OBJ) plugins/h5z_gtool.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,--version-script=plugins/h5z_gtool.map \
		-Wl,--as-needed -Wl,-z,defs -o $@ $(PLUGIN_OBJ) $(LIB_OBJ) $(LIBS)

$(BUILD)/fuzz/fuzz_h5filter $(BUILD)/libfuzzer/fuzz_h5filter: $(PLUGIN_SRC) $(wildcard plugins/*.h)

# make bench: the filter's cost over its codec (tools/h5filter-bench.c)
$(BUILD)/h5filter-bench: tools/h5filter-bench.c $(PLUGIN_SRC) $(wildcard plugins/*.h) $(BUILD)/libgtool.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)

install-h5filter: $(PLUGIN_SO)
	install -d $(PLUGIN_DIR)
	install -m 644 $(PLUGIN_SO) $(PLUGIN_DIR)/

uninstall-h5filter:
	rm -f $(PLUGIN_DIR)/libH5Zgtool.so

install: install-h5filter
uninstall: uninstall-h5filter
.PHONY: install-h5filter uninstall-h5filter
# ---- end of the HDF5 filter plugin block ----------------------------------

# ---- tests ------------------------------------------------------------
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< tests/fuzz/replay.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)

RESULTS = $(BUILD)/results

# Test inputs that no build can make again (.gtz and .ght files written by
# gtools of older formats) are kept in git as base64 text and decoded
# beside it before the tests that read them
FIXTURE_B64 := $(wildcard tests/fixtures/*.b64)
FIXTURE_OUT := $(FIXTURE_B64:.b64=)

$(FIXTURE_OUT): tests/fixtures/%: tests/fixtures/%.b64
	base64 -d $< > $@.tmp && mv $@.tmp $@

fixtures: $(FIXTURE_OUT)
# make check builds with this many jobs (the suites run up to 2 at a time
# on their own: tests/run-*.sh)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

check: deps
	@rm -rf $(RESULTS); mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory -j$(JOBS) all fixtures $(UNIT_BIN)
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-asan
	@$(MAKE) --no-print-directory check-cli
	@$(MAKE) --no-print-directory check-fuzz
	@$(MAKE) --no-print-directory check-fuzz-run
	@$(MAKE) --no-print-directory check-examples
	@$(MAKE) --no-print-directory check-python
	@sh tests/summary.sh $(RESULTS)

check-unit: $(UNIT_BIN) fixtures
	@mkdir -p $(RESULTS)
	@sh tests/run-unit.sh $(RESULTS)/unit.txt $(UNIT_BIN)

check-asan:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(BUILD)/asan SANITIZE=address,undefined OPT="-O1 -g" \
		RESULTS=$(RESULTS) check-unit-asan

check-unit-asan: $(UNIT_BIN) fixtures
	@mkdir -p $(RESULTS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		sh tests/run-unit.sh $(RESULTS)/unit-asan.txt $(UNIT_BIN)

check-cli: all fixtures
	@mkdir -p $(RESULTS)
	@GTOOL_BUILD=$(abspath $(BUILD)) sh tests/run-bats.sh $(RESULTS)/cli.txt tests/cli/*.bats

check-fuzz:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(BUILD)/asan SANITIZE=address,undefined OPT="-O1 -g" \
		RESULTS=$(RESULTS) check-fuzz-replay

check-fuzz-replay: $(FUZZ_BIN)
	@mkdir -p $(RESULTS)
	@sh tests/run-fuzz.sh $(RESULTS)/fuzz.txt $(FUZZ_BIN)

# ---- libFuzzer (clang) ---------------------------------------------------
# The library is compiled once into $(LF)/libgtool-fuzz.a, each target is
# linked against it; make rebuilds only what changed (-MMD dependencies).
# make check fuzzes each target FUZZ_CHECK_SECONDS from a scratch copy of its
# corpus; make fuzz FUZZ_SECONDS=60 keeps what it finds in $(BUILD)/fuzz-work.
LF = $(BUILD)/libfuzzer
LF_CC ?= clang
LF_CFLAGS = -std=c11 -D_GNU_SOURCE -DGT_VERSION=$(VERSION) -g -O1 $(PKG_CFLAGS) -pthread \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LF_OBJ := $(call obj,$(LF),$(LIB_SRC) $(FMT_SRC) $(ANA_SRC) $(ENG_SRC) $(API_SRC))
LF_BIN := $(patsubst tests/fuzz/%.c,$(LF)/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 30
FUZZ_CHECK_SECONDS ?= 5

$(LF)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(LF_CC) $(LF_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(LF)/libgtool-fuzz.a: $(LF_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LF)/fuzz_%: tests/fuzz/fuzz_%.c $(LF)/libgtool-fuzz.a
	$(LF_CC) $(LF_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(LF)/libgtool-fuzz.a $(PKG_LIBS) -lm

fuzz-build: $(LF_BIN)

# A build failure (no clang: make deps) counts every target as failed.
check-fuzz-run:
	@mkdir -p $(RESULTS)
	@if $(MAKE) --no-print-directory -s -j$(JOBS) fuzz-build; then \
		sh tests/fuzz/run-libfuzzer.sh $(FUZZ_CHECK_SECONDS) $(RESULTS)/fuzz-run.txt "" $(LF_BIN); \
	else \
		echo "fuzz run: cannot build the libFuzzer targets with $(LF_CC) (make deps installs clang)"; \
		echo "fuzz run: 0 passed, $(words $(LF_BIN)) failed"; \
		echo "0 $(words $(LF_BIN))" > $(RESULTS)/fuzz-run.txt; \
	fi

fuzz: fuzz-build
	@mkdir -p $(RESULTS)
	@sh tests/fuzz/run-libfuzzer.sh $(FUZZ_SECONDS) $(RESULTS)/fuzz-run.txt $(BUILD)/fuzz-work $(LF_BIN)

valgrind: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do valgrind -q --error-exitcode=100 --leak-check=full $$t >/dev/null || exit 1; done

# deps first, then a second make that reads PKG_CFLAGS with the packages in place
demo: deps
	@$(MAKE) --no-print-directory all
	@sh samples/demo.sh $(BUILD)

BENCH_BIN = $(BUILD)/bench_codec $(BUILD)/dump_grads $(BUILD)/bench_sparse $(BUILD)/bench_hist \
	$(BUILD)/h5filter-bench
$(BUILD)/bench_hist: tests/bench/bench_hist.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	$(CC) $(CFLAGS_ALL) -Ilib -o $@ $< $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)
$(BUILD)/bench_sparse: tests/bench/bench_sparse.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	$(CC) $(CFLAGS_ALL) -Ilib -o $@ $< $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)
$(BUILD)/bench_codec: tests/bench/bench_codec.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	$(CC) $(CFLAGS_ALL) -Ilib -o $@ $< $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)
$(BUILD)/dump_grads: tests/bench/dump_grads.c $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libgtool-core.a $(BUILD)/libgtool.a $(LDFLAGS_ALL) $(LIBS)

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BIN)
	@sh tests/bench.sh $(BUILD)
	@$(MAKE) --no-print-directory bench-python

# make report: stats, hist, compare and bench on every *.h5 in TRACES (a
# folder or one file) into reports/<name>/ (tools/report.sh).  The charts
# are drawn by gtool itself (analysis/svg.c, through `gtool plot` and
# `gtool hist --svg`) rather than gnuplot: no extra package to install, the
# same code the unit tests check for well-formed, escaped SVG, and charts
# that anyone who has gtool can redraw from the CSV files in the report.
TRACES ?= samples
REPORT_DIR ?= reports
REPORT_REPEAT ?= 11
report: all
	@sh tools/report.sh $(BUILD)/gtool $(TRACES) $(REPORT_DIR) $(REPORT_REPEAT)

# ---- install ------------------------------------------------------------
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
LIBDIR = $(DESTDIR)$(PREFIX)/lib
INCDIR = $(DESTDIR)$(PREFIX)/include
PCDIR = $(LIBDIR)/pkgconfig
# the Python package where Debian's python3 finds it: /usr/lib/python3/dist-packages
# for PREFIX=/usr, else PREFIX/lib/python3.X/dist-packages (as /usr/local is)
PYVER = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR = $(DESTDIR)$(PREFIX)/lib/$(if $(filter /usr,$(PREFIX)),python3,python$(PYVER))/dist-packages
MAN1 := $(notdir $(wildcard man/*.1))
MAN3 := $(notdir $(wildcard man/*.3))
MAN5 := $(notdir $(wildcard man/*.5))

install: all
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man3 $(MANDIR)/man5 $(COMPDIR) \
		$(ZSHDIR) $(FISHDIR) $(LIBDIR) $(PCDIR) $(INCDIR)
	install -m 755 $(BUILD)/gtool $(BINDIR)/gtool
	install -d $(LIBDIR)/gtool
	install -m 755 $(MODULES) $(LIBDIR)/gtool/
	$(if $(MPI_BIN),install -m 755 $(MPI_BIN) $(BINDIR)/gtool-mpi)
	for c in $(COMMANDS); do ln -sf gtool $(BINDIR)/gtool-$$c; done
	install -m 644 $(addprefix man/,$(MAN1)) $(MANDIR)/man1/
	install -m 644 $(addprefix man/,$(MAN3)) $(MANDIR)/man3/
	install -m 644 $(addprefix man/,$(MAN5)) $(MANDIR)/man5/
	install -m 644 completions/gtool.bash $(COMPDIR)/gtool
	for c in $(COMMANDS); do ln -sf gtool $(COMPDIR)/gtool-$$c; done
	install -m 644 completions/_gtool $(ZSHDIR)/_gtool
	install -m 644 completions/gtool.fish $(FISHDIR)/gtool.fish
	install -m 644 $(BUILD)/libgtool.a $(LIBDIR)/
	install -m 755 $(BUILD)/$(SO_FILE) $(LIBDIR)/
	ln -sf $(SO_FILE) $(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(LIBDIR)/libgtool.so
	install -m 644 api/gtool.h $(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' gtool.pc.in > $(PCDIR)/gtool.pc
	chmod 644 $(PCDIR)/gtool.pc
	install -d $(PYDIR)/gtool
	install -m 644 $(wildcard python/gtool/*.py) $(PYDIR)/gtool/

# exactly what install puts there (folders stay: they may be shared)
uninstall:
	rm -f $(BINDIR)/gtool $(BINDIR)/gtool-mpi $(addprefix $(BINDIR)/gtool-,$(COMMANDS))
	rm -f $(addprefix $(LIBDIR)/gtool/,$(notdir $(MODULES)))
	-rmdir $(LIBDIR)/gtool 2>/dev/null
	rm -f $(addprefix $(MANDIR)/man1/,$(MAN1)) $(addprefix $(MANDIR)/man3/,$(MAN3)) \
		$(addprefix $(MANDIR)/man5/,$(MAN5))
	rm -f $(COMPDIR)/gtool $(addprefix $(COMPDIR)/gtool-,$(COMMANDS))
	rm -f $(ZSHDIR)/_gtool $(FISHDIR)/gtool.fish
	rm -f $(LIBDIR)/libgtool.a $(LIBDIR)/$(SO_FILE) $(LIBDIR)/$(SO_NAME) $(LIBDIR)/libgtool.so
	rm -f $(INCDIR)/gtool.h $(PCDIR)/gtool.pc
	rm -rf $(PYDIR)/gtool

# examples/ and gtool.h, built against a temporary install with nothing but
# pkg-config (tests/run-examples.sh); results into $(RESULTS)/examples.txt
check-examples: all
	@mkdir -p $(RESULTS)
	@MAKE="$(MAKE)" CC="$(CC)" sh tests/run-examples.sh $(RESULTS)/examples.txt $(BUILD)

# ---- Python -------------------------------------------------------------
# python/gtool over build/libgtool.so.0 (ctypes); tests/python/ with pytest,
# counts into $(RESULTS)/pytest.txt
check-python: all
	@mkdir -p $(RESULTS)
	@PYTHON=$(PYTHON) GTOOL_BUILD=$(abspath $(BUILD)) sh tests/run-pytest.sh $(RESULTS)/pytest.txt

# The Python package's overhead against the C API, the DDP hook against plain
# DDP (python/bench/bench.py; part of make bench)
$(BUILD)/bench_api: python/bench/bench_api.c $(SO_LIBS)
	$(CC) $(CFLAGS_ALL) -Iapi -o $@ $< -L$(BUILD) -lgtool -Wl,-rpath,$(abspath $(BUILD))
bench-python: all $(BUILD)/bench_api
	@$(PYTHON) python/bench/bench.py $(BUILD)

# The convergence experiment: DDP on loopback with gtool's codecs in the
# gradient exchange (tools/convergence.py; README "gtool in Python and PyTorch")
CONVERGENCE_ARGS ?=
convergence: all
	$(PYTHON) tools/convergence.py --out $(BUILD)/convergence --gtool $(BUILD)/gtool $(CONVERGENCE_ARGS)

# ---- code checks --------------------------------------------------------
lint:
	@sh tests/lint.sh

funclen:
	@awk 'FNR==1{fn=""} /^[a-z].*\(/ && !/;$$/ {fn=FILENAME":"FNR" "$$0; start=FNR} /^}/ && fn!="" {print FNR-start, fn; fn=""}' \
		$(LIB_SRC) $(FMT_SRC) $(ANA_SRC) $(ENG_SRC) $(CMD_SRC) $(MPI_SRC) | sort -rn | head -20

format-check:
	@git clang-format --diff HEAD -- '*.c' '*.h' || true

clean:
	rm -rf $(BUILD)
	rm -f $(FIXTURE_OUT)

-include $(shell find $(BUILD)/obj $(LF) -name '*.d' 2>/dev/null)
