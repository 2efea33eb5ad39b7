"""Builds board_ext (Cython) and installs the project's packages."""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

DEBUG = os.environ.get("GO_DEBUG_CYTHON") == "1"
directives = dict(language_level=3, boundscheck=DEBUG, wraparound=DEBUG,
                  cdivision=True, initializedcheck=DEBUG, nonecheck=False)


def _march():
    """x86-64-v3 (AVX2, BMI2: tzcnt, shlx) where this machine has it, else v2.
    The extensions are built on the machine that runs them (make build)."""
    try:
        with open("/proc/cpuinfo") as fh:
            flags = set(fh.read().split())
    except OSError:
        return "-march=x86-64-v2"
    return "-march=x86-64-v3" if {"avx2", "bmi1", "bmi2", "fma"} <= flags else "-march=x86-64-v2"


cflags = ["-O3", _march()] if not DEBUG else ["-O0", "-g"]

HERE = os.path.dirname(os.path.abspath(__file__))
PYX = sorted(glob.glob(os.path.join(HERE, "board_ext", "*.pyx")) +
             glob.glob(os.path.join(HERE, "engine", "*.pyx")))
exts = [Extension(os.path.relpath(f, HERE)[:-4].replace(os.sep, "."), [os.path.relpath(f, HERE)],
                  include_dirs=[np.get_include()], extra_compile_args=cflags)
        for f in PYX]

setup(
    name="gomcts",
    version="0.1.0",
    packages=find_packages(include=["board_ext", "engine", "engine.*", "nets", "nets.*", "tools", "tools.*"]),
    py_modules=["gtp_main", "tomlconf", "atomicio"],
    ext_modules=cythonize(exts,
                          compiler_directives=directives),
    zip_safe=False,
)
