# sbf: scalable Bloom filter type for PostgreSQL (PGXS build)

EXTENSION = sbf
MODULE_big = sbf
# sbf--1.1.sql to sbf--1.4.sql (fresh installs) are built from
# the 1.0 script and the update scripts, so a fresh install and an updated one
# cannot drift apart; the older ones stay, so CREATE EXTENSION sbf VERSION
# '1.1' (or '1.2', '1.3') works
DATA = sql/sbf--1.0.sql sql/sbf--1.0--1.1.sql sql/sbf--1.1--1.2.sql \
	sql/sbf--1.2--1.3.sql sql/sbf--1.3--1.4.sql
DATA_built = sql/sbf--1.1.sql sql/sbf--1.2.sql sql/sbf--1.3.sql sql/sbf--1.4.sql
PGFILEDESC = "sbf - scalable Bloom filter with an embedded HyperLogLog"

# the pure-C core by subsystem (src/core/<folder>, docs/architecture.md) and
# the PostgreSQL glue (src/pg); every core folder is on the include path
CORE = src/core
include $(CORE)/core.mk
GLUE_SRCS = $(wildcard src/pg/*.c)
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

# regress files: sql/<name>.sql against expected/<name>.out; sbf_setup runs
# first and creates the helpers the others share (schema sbf_regress)
REGRESS = sbf_setup $(sort $(patsubst sql/%.sql,%,$(filter-out sql/sbf--% sql/sbf_setup.sql,$(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=sbf

# make installcheck runs the regress files against the running server of the
# installation PG_CONFIG names; the TAP tests (test/t, they start their own
# servers) run with make prove_installcheck, see test/run_all.sh
PROVE_TESTS = test/t/*.pl

PG_CPPFLAGS = $(CORE_INC)
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-cast-function-type
ifneq ($(WERROR),)
PG_CFLAGS += -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

sql/sbf--1.1.sql: sql/sbf--1.0.sql sql/sbf--1.0--1.1.sql
	{ echo '/* sbf--1.1.sql: install script for sbf 1.1, built by the Makefile from sbf--1.0.sql and sbf--1.0--1.1.sql; do not edit */'; \
	  sed -e '1d' sql/sbf--1.0.sql; sed -e '1,/\\quit/d' sql/sbf--1.0--1.1.sql; } > $@

sql/sbf--1.2.sql: sql/sbf--1.0.sql sql/sbf--1.0--1.1.sql sql/sbf--1.1--1.2.sql
	{ echo '/* sbf--1.2.sql: install script for sbf 1.2, built by the Makefile from sbf--1.0.sql, sbf--1.0--1.1.sql and sbf--1.1--1.2.sql; do not edit */'; \
	  sed -e '1d' sql/sbf--1.0.sql; sed -e '1,/\\quit/d' sql/sbf--1.0--1.1.sql; \
	  sed -e '1,/\\quit/d' sql/sbf--1.1--1.2.sql; } > $@

sql/sbf--1.3.sql: sql/sbf--1.0.sql sql/sbf--1.0--1.1.sql sql/sbf--1.1--1.2.sql sql/sbf--1.2--1.3.sql
	{ echo '/* sbf--1.3.sql: install script for sbf 1.3, built by the Makefile from sbf--1.0.sql and the update scripts to 1.3; do not edit */'; \
	  sed -e '1d' sql/sbf--1.0.sql; sed -e '1,/\\quit/d' sql/sbf--1.0--1.1.sql; \
	  sed -e '1,/\\quit/d' sql/sbf--1.1--1.2.sql; sed -e '1,/\\quit/d' sql/sbf--1.2--1.3.sql; } > $@

sql/sbf--1.4.sql: sql/sbf--1.0.sql sql/sbf--1.0--1.1.sql sql/sbf--1.1--1.2.sql sql/sbf--1.2--1.3.sql sql/sbf--1.3--1.4.sql
	{ echo '/* sbf--1.4.sql: install script for sbf 1.4, built by the Makefile from sbf--1.0.sql and the update scripts to 1.4; do not edit */'; \
	  sed -e '1d' sql/sbf--1.0.sql; sed -e '1,/\\quit/d' sql/sbf--1.0--1.1.sql; \
	  sed -e '1,/\\quit/d' sql/sbf--1.1--1.2.sql; sed -e '1,/\\quit/d' sql/sbf--1.2--1.3.sql; \
	  sed -e '1,/\\quit/d' sql/sbf--1.3--1.4.sql; } > $@

# the TAP tests alone (needs a PostgreSQL configured with --enable-tap-tests;
# initdb refuses root, so test/run_all.sh runs this as user postgres)
prove_installcheck:
	$(prove_installcheck)
.PHONY: prove_installcheck

# PGXS tracks no header dependencies (unless PostgreSQL was configured with
# --enable-depend): every object depends on every header of the core and the
# glue, so a changed struct never links with objects built against the old one
$(OBJS): $(CORE_HDRS) $(wildcard src/pg/*.h)
