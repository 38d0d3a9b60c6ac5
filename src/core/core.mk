# The pure-C core's sources, by subsystem (one folder each, see
# docs/architecture.md), for every Makefile that compiles them: set CORE to
# this folder's path, then include this file.  Every folder is on the include
# path, so a file names a header by its name alone.
CORE_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard $(CORE)/*/*.c $(CORE)/*/*.h))))
CORE_SRCS := $(wildcard $(CORE)/*/*.c)
CORE_HDRS := $(wildcard $(CORE)/*/*.h)
CORE_INC := $(addprefix -I,$(CORE_DIRS))
