"""Builds the sbf package: a C extension compiled from the project's pure-C
core in ../../src/core (no copies) and the binding in sbf/.

    python3 -m venv --system-site-packages /tmp/sbf-venv
    /tmp/sbf-venv/bin/pip install --no-build-isolation ./clients/python

Needs python3-dev, python3-setuptools and libxxhash-dev (xxhash.h).
"""
import glob
import os

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
core = os.path.normpath(os.path.join(here, "..", "..", "src", "core"))
if not os.path.isfile(os.path.join(core, "common", "sbf_core.h")):
    raise SystemExit("sbf: the core sources are not at %s; build from a clone of the repository" % core)
# the core by subsystem, one folder each (docs/architecture.md); every folder
# is on the include path; sources relative to this directory, as setuptools
# wants them
core_dirs = sorted(d for d in glob.glob(os.path.join(core, "*")) if os.path.isdir(d))
core_srcs = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(core, "*", "*.c")))

extra = ["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter",
         "-Wno-sign-compare", "-Wno-missing-field-initializers",
         "-Wno-cast-function-type"]
extra += os.environ.get("SBF_PY_CFLAGS", "").split()
ldflags = os.environ.get("SBF_PY_LDFLAGS", "").split()

setup(
    name="sbf",
    version="1.4.0",
    description="Read, check and build PostgreSQL scalablebloom (sbf) values",
    packages=["sbf"],
    ext_modules=[Extension(
        "sbf._sbf",
        sources=["sbf/_sbf.c", "sbf/_sbf_info.c", "sbf/_sbf_build.c"] + core_srcs,
        include_dirs=core_dirs,
        depends=glob.glob(os.path.join(core, "*", "*.h")) + ["sbf/_sbf.h"],
        extra_compile_args=extra,
        extra_link_args=ldflags,
        libraries=["m"],
    )],
    python_requires=">=3.10",
)
