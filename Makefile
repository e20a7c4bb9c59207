# Makefile for budgetkernel (PGXS)
#
#   make && make install          build and install the extension
#   make installcheck             pg_regress suite (test/sql -> expected/)
#   make prove                    pgTAP suite (test/pgtap) on $(PGDATABASE)
#   make unittest                 core unit tests, no server needed
#   make layercheck               calls flow down the layers, no cycle

EXTENSION  = budgetkernel
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = $(EXTENSION)

# Every core and PostgreSQL-layer source; new files are picked up.  The
# core's folders are its layers, lowest first: base, kernel, learners,
# parts, model, merge, refit, format (test/layers.sh checks that calls
# flow down them).
CORE_SRCS  = $(sort $(wildcard src/core/*/*.c))
PGL_SRCS   = $(sort $(wildcard src/pg/*.c))
OBJS       = $(CORE_SRCS:.c=.o) $(PGL_SRCS:.c=.o)

# Every SQL object is written once, in sql/objects/*.sql (a file per
# topic, in install order).  make writes the current version's install
# script from them, and each update script sql/budgetkernel--FROM--TO.sql
# from sql/updates/FROM--TO.sql (its header and hand-written changes) and
# the objects' blocks marked new or changed in TO (sql/new_objects.awk).
# Released versions keep the install scripts they shipped (for the upgrade
# test), and 0.1.0 -> 0.2.0 its hand-written update (forms it drops and
# renames, not only new objects).
SQL_OBJECTS = $(sort $(wildcard sql/objects/*.sql))
SQL_UPDATES = $(patsubst sql/updates/%.sql,sql/$(EXTENSION)--%.sql,$(wildcard sql/updates/*.sql))
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql $(SQL_UPDATES)
DATA       = sql/$(EXTENSION)--0.1.0.sql sql/$(EXTENSION)--0.2.0.sql \
             sql/$(EXTENSION)--0.3.0.sql \
             sql/$(EXTENSION)--0.1.0--0.2.0.sql
PGFILEDESC = "budgetkernel - budgeted kernel classifiers trained by aggregates"

TESTS        = $(sort $(wildcard test/sql/*.sql))
REGRESS      = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)

# LAPACKE and BLAS (Debian: liblapacke-dev, libopenblas-dev): the unit
# tests' reference for the core's own linear algebra (src/core/base/bk_linalg.c);
# nothing that reaches a model calls them (doc/maintainers.md, Determinism)
LINALG_CFLAGS := $(shell pkg-config --cflags lapacke blas 2>/dev/null)
LINALG_LIBS   := $(or $(shell pkg-config --libs lapacke blas 2>/dev/null),-llapacke -lblas)
# exp and log come from src/core/base/bk_fmath.c; libm for sqrt and the like
MATH_LIBS     := -lm

PG_CPPFLAGS += -Isrc/core -DBK_EXTVERSION='"$(EXTVERSION)"'
# -ffp-contract=off: no a*b+c fused into one FMA (one rounding instead of
# two).  The AVX2 clones cannot fuse (target "avx2" without "fma"), but
# the scalar code could wherever the ISA has FMA: aarch64, s390x, a
# -march with FMA, and the JIT, which compiles the bitcode below for the
# host CPU.  GCC's default outside ISO C mode is fast and clang's is on;
# C99 mode, the unit tests' and the benchmark driver's, implies off, and
# they pass it too, so every build computes the same bits
# (doc/maintainers.md, Determinism, rule 4; test/fpflags.sh checks it).
PG_CFLAGS   += -Wall -Wextra -Wno-unused-parameter -ffp-contract=off

# The learning core is compiled as its unit tests compile it: PostgreSQL's
# -fwrapv (signed overflow wraps) and -fno-strict-aliasing are for the
# server's own code; under them the core's loops over x[i + k] lost their
# vector instructions and reloaded through pointers (the glue keeps them).
# -fvisibility=hidden: the core's functions are the library's own, not
# symbols the backend exports to every other library it loads; its calls
# between files are then direct, not through the PLT (0.6 % of the core's
# instructions on two-feature rows), and the glue's SQL functions, which
# must stay visible, are not in the core.
$(CORE_SRCS:.c=.o): CFLAGS += -fno-wrapv -fstrict-aliasing -fvisibility=hidden
# the server module calls no BLAS or LAPACK: it links the C library's libm
# only, and loads no OpenBLAS (whose threads a backend does not want)
SHLIB_LINK  += $(MATH_LIBS)

# The programs on the core without PostgreSQL (unit tests, fuzz targets,
# the fixture writer, the benchmark driver) share its C library
# environment, test/common/bk_stdenv.c.
STDENV      = test/common/bk_stdenv.c
CORE_DEPS   = $(STDENV) test/common/bk_stdenv.h $(CORE_SRCS) $(wildcard src/core/*.h)
UNIT_CC     = gcc
UNIT_CFLAGS = -std=c99 -O2 -ffp-contract=off -Wall -Wextra -Wno-unused-parameter -Isrc/core -Itest/common $(LINALG_CFLAGS)

# Core unit tests: test/unit/*.c, one program (bk_test.h lists the modules)
UNIT_SRCS   = $(sort $(wildcard test/unit/*.c))
UNIT_BIN    = test/unit/test_core
EXTRA_CLEAN = $(UNIT_BIN) $(UNIT_BIN).*.log
# the cross-built unit binaries of test/cross.sh ARCH (and their logs above)
EXTRA_CLEAN += $(UNIT_BIN).aarch64 $(UNIT_BIN).s390x

all: sql/$(EXTENSION)--$(EXTVERSION).sql $(SQL_UPDATES)

# the objects' files joined by one blank line
sql/$(EXTENSION)--$(EXTVERSION).sql: $(SQL_OBJECTS)
	awk 'FNR == 1 && NR > 1 { print "" } { print }' $(SQL_OBJECTS) >$@

# an update to TO: its hand-written part, then the objects new or changed
# in TO, then what the hand-written epilogue does once they exist (for
# 0.4.0: moving the user's views onto the new forms; sql/updates/*.after)
sql/$(EXTENSION)--%.sql: sql/updates/%.sql $(SQL_OBJECTS) sql/new_objects.awk $(wildcard sql/updates/*.after)
	{ cat $<; awk -v version=$(lastword $(subst --, ,$*)) -f sql/new_objects.awk $(SQL_OBJECTS); \
	  if [ -f sql/updates/$*.after ]; then cat sql/updates/$*.after; fi; } >$@

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The LLVM bitcode PGXS builds for JIT inlining (%.bc, where the server
# was built --with-llvm) is compiled by clang with BITCODE_CFLAGS, not
# CFLAGS, and Makefile.global sets them: added here, after the include.
# The same -ffp-contract=off as the objects, and the core's bitcode with
# the core's -fno-wrapv -fstrict-aliasing, so that the code the JIT
# inlines means what the library's objects do.
BITCODE_CFLAGS += -ffp-contract=off
$(CORE_SRCS:.c=.bc): BITCODE_CFLAGS += -fno-wrapv -fstrict-aliasing

# The PostgreSQL layer includes only bk_core.h from the core.
$(PGL_SRCS:.c=.o): src/pg/bk_pg.h src/pg/bk_compat.h src/core/bk_core.h
$(CORE_SRCS:.c=.o): $(wildcard src/core/*.h)

$(UNIT_BIN): $(UNIT_SRCS) test/unit/bk_test.h $(CORE_DEPS)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS) $(STDENV) $(CORE_SRCS) $(LINALG_LIBS) $(MATH_LIBS)

# The unit binary under several OpenBLAS kernel families (the fingerprint
# test, test/unit/test_fingerprint.c, proves the same model bytes under
# each): Prescott (OpenBLAS's fallback for CPUs it does not know),
# Haswell, SkylakeX where the CPU has AVX-512, and OpenBLAS's own choice
# for this CPU (OPENBLAS_CORETYPE unset).
UNIT_CORETYPES = Prescott Haswell $(if $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo y),SkylakeX) native

# The calls between source files flow one way, down the core's layers;
# no core file is over 1,000 lines (test/layers.sh reads the objects);
# every source file is named in doc/maintainers.md (test/maintainers_map.sh);
# every SQL object is written once, in sql/objects (test/sql_once.sh);
# no FMA in the core's source, -ffp-contract=off on every compile line,
# LLVM bitcode included (test/fpflags.sh reads make -n's output)
.PHONY: layercheck
layercheck: all
	sh test/layers.sh
	sh test/maintainers_map.sh
	sh test/sql_once.sh
	$(MAKE) -s -n -B all $(UNIT_BIN) | WITH_LLVM=$(with_llvm) sh test/fpflags.sh

.PHONY: unittest
unittest: $(UNIT_BIN)
	@failed=0; \
	for ct in $(UNIT_CORETYPES); do \
		if [ $$ct = native ]; then set -- env -u OPENBLAS_CORETYPE; else set -- env OPENBLAS_CORETYPE=$$ct; fi; \
		if "$$@" OPENBLAS_NUM_THREADS=1 ./$(UNIT_BIN) > $(UNIT_BIN).$$ct.log 2>&1; then \
			echo "ok   $(UNIT_BIN) (OPENBLAS_CORETYPE=$$ct): $$(tail -n 1 $(UNIT_BIN).$$ct.log)"; \
		else \
			grep -E '^not ok|FINGERPRINTS' $(UNIT_BIN).$$ct.log; \
			echo "FAIL $(UNIT_BIN) (OPENBLAS_CORETYPE=$$ct): $$(tail -n 1 $(UNIT_BIN).$$ct.log)"; \
			failed=$$((failed + 1)); \
		fi; \
	done; \
	if [ $$failed -ne 0 ]; then exit 1; fi

# Fuzz targets (test/fuzz): the model decoder (format), the parameter parser
# (params), training from parameters or a base model, whose result must
# pass the validator (learn), merging two models (merge), and the parser of
# LIBSVM model text of bk_import, with the exports of what it reads (import).
#   make fuzzcheck   gcc + AddressSanitizer/UBSan, a seeded mutation run of
#                    BK_FUZZ_ITERATIONS inputs per target (part of check.sh)
#   make fuzz        libFuzzer builds (clang; Debian: clang, libclang-rt-dev),
#                    run e.g. test/fuzz/fuzz_format_libfuzzer -max_total_time=600
# Leak detection is off: an error longjmps out of the core, and the memory
# it leaves behind belongs to the caller (a memory context in the server).
# fuzz_seeds.c (the seed models of format and learn) and fuzz_model.c (a
# model from the input, decoded, encoded and checked) are linked into every
# target.
# sanitizers of the libFuzzer builds: make fuzz
# LIBFUZZER_SAN=fuzzer,undefined,float-cast-overflow keeps UBSan and drops
# AddressSanitizer, several times faster, for runs of ten million inputs
# Every sanitizer report stops the run (-fno-sanitize-recover=all), and
# UBSan checks float-to-integer conversions too (float-cast-overflow, which
# -fsanitize=undefined leaves out): a report is a finding, never a line in
# a log that the run goes past.
LIBFUZZER_SAN   ?= fuzzer,address,undefined,float-cast-overflow
# optimisation of the libFuzzer builds.  For the long fuzz_learn runs:
# make fuzz LIBFUZZER_OPT="-O2 -fsanitize-coverage-ignorelist=test/fuzz/coverage-ignore.txt"
# (twice as many inputs a second: no coverage counters in the
# branch-free vector arithmetic the list names; UBSan still checks it)
LIBFUZZER_OPT   ?= -O1
FUZZ_TARGETS     = format params learn merge import
FUZZ_SHARED      = test/fuzz/fuzz_seeds.c test/fuzz/fuzz_model.c
FUZZ_SAN         = -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
BK_FUZZ_ITERATIONS ?= 100000
EXTRA_CLEAN     += $(FUZZ_TARGETS:%=test/fuzz/fuzz_%_check) $(FUZZ_TARGETS:%=test/fuzz/fuzz_%_libfuzzer)

test/fuzz/fuzz_%_check: test/fuzz/fuzz_%.c test/fuzz/driver.c $(FUZZ_SHARED) test/fuzz/fuzz_common.h $(CORE_DEPS)
	$(UNIT_CC) $(UNIT_CFLAGS) -O1 -g $(FUZZ_SAN) -o $@ $< test/fuzz/driver.c $(FUZZ_SHARED) $(STDENV) $(CORE_SRCS) $(LINALG_LIBS) $(MATH_LIBS)

test/fuzz/fuzz_%_libfuzzer: test/fuzz/fuzz_%.c $(FUZZ_SHARED) test/fuzz/fuzz_common.h $(CORE_DEPS)
	clang -std=c99 $(LIBFUZZER_OPT) -g -Isrc/core -Itest/common $(LINALG_CFLAGS) -fsanitize=$(LIBFUZZER_SAN) -fno-sanitize-recover=all \
		-o $@ $< $(FUZZ_SHARED) $(STDENV) $(CORE_SRCS) $(LINALG_LIBS) $(MATH_LIBS)

.PHONY: fuzzcheck fuzz
fuzzcheck: $(FUZZ_TARGETS:%=test/fuzz/fuzz_%_check)
	@failed=0; \
	for t in $^; do \
		echo "== $$t"; \
		OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 BK_FUZZ_ITERATIONS=$(BK_FUZZ_ITERATIONS) ./$$t || { echo "FAIL $$t"; failed=$$((failed + 1)); }; \
		dir=test/fuzz/regress/$$(basename $$t | sed 's/^fuzz_//; s/_check$$//'); \
		if [ -d $$dir ]; then \
			inputs=$$(ls $$dir | grep -v '\.md$$' | sed "s|^|$$dir/|"); \
			for size in 20 0; do \
				OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 BK_FUZZ_DEFAULT_SIZE=$$size ./$$t $$inputs > /dev/null && \
					echo "$$t: $$(echo $$inputs | wc -w) regression inputs of $$dir replayed (BK_FUZZ_DEFAULT_SIZE=$$size)" || \
					{ echo "FAIL $$t on the inputs of $$dir (BK_FUZZ_DEFAULT_SIZE=$$size)"; failed=$$((failed + 1)); }; \
			done; \
		fi; \
	done; \
	if [ $$failed -ne 0 ]; then echo "$$failed fuzz target(s) failed"; exit 1; fi

fuzz: $(FUZZ_TARGETS:%=test/fuzz/fuzz_%_libfuzzer)

# Crafted models for the SQL tests of the resource limits (test/sql/limits.sql)
CRAFT_BIN    = test/fixtures/bk_craft
EXTRA_CLEAN += $(CRAFT_BIN)

$(CRAFT_BIN): test/fixtures/bk_craft.c $(CORE_DEPS)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(STDENV) $(CORE_SRCS) $(LINALG_LIBS) $(MATH_LIBS)

# A test module that calls aggregate support functions as a distributed
# engine does, with no call expression (test/sql/generic_caller.sql loads
# it by its path; never installed)
CALLER_SO    = test/fixtures/bk_generic_caller.so
EXTRA_CLEAN += $(CALLER_SO)

$(CALLER_SO): test/fixtures/bk_generic_caller.c
	$(CC) $(CFLAGS) $(CFLAGS_SL) $(CPPFLAGS) -shared -o $@ $< $(LDFLAGS) $(LDFLAGS_SL)

installcheck: $(CRAFT_BIN) $(CALLER_SO)

# The tests run the programs of the server's major first in PATH: pg_dump,
# pg_restore and psql called by the tests (test/sql/dump_restore.sql) and
# the psql of pg_prove must match the server they talk to, and Debian's
# /usr/bin wrappers pick the newest installed client instead.
installcheck prove tutorialcheck shardcheck: export PATH := $(bindir):$(PATH)

PG_PROVE ?= pg_prove
.PHONY: prove
prove:
	$(PG_PROVE) --dbname $(or $(PGDATABASE),postgres) test/pgtap/*.sql

# The distributed recipes (test/shards) on this cluster as coordinator and
# two shard clusters named by BK_SHARD1_HOST/PORT and BK_SHARD2_HOST/PORT,
# which test/check.sh starts (start_shards in test/lib.sh).  Needs
# postgres_fdw (contrib) and PL/Proxy (postgresql-15-plproxy).
.PHONY: doccheck tutorialcheck
# the links between the markdown pages: every file and anchor exists
# (test/doclinks.sh; no server needed)
doccheck:
	bash test/doclinks.sh

# doc/tutorial.md's and README.md's SQL, each run in order in a fresh
# database and checked (test/tutorial.sh), after the links of the docs
tutorialcheck: doccheck
	bash test/tutorial.sh

.PHONY: shardcheck
shardcheck:
	@if [ -z "$$BK_SHARD1_PORT" ] || [ -z "$$BK_SHARD2_PORT" ]; then \
		echo "shardcheck: BK_SHARD1_HOST/PORT and BK_SHARD2_HOST/PORT name no shard clusters (bash test/check.sh starts them)"; \
		exit 1; fi
	$(pg_regress_installcheck) --inputdir=test/shards --load-extension=$(EXTENSION) shards

# Benchmark harness (test/bench): the bare learning core over rows in
# memory, built with the unit tests' flags.
BENCH_BIN    = test/bench/bk_bench
EXTRA_CLEAN += $(BENCH_BIN)

$(BENCH_BIN): test/bench/bk_bench.c $(CORE_DEPS)
	$(UNIT_CC) $(UNIT_CFLAGS) -D_GNU_SOURCE -o $@ $< $(STDENV) $(CORE_SRCS) $(LINALG_LIBS) $(MATH_LIBS)

.PHONY: bench-core
bench-core: $(BENCH_BIN)
