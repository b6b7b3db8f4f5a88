"""The setuptools side of pyproject.toml: the `_probity` extension is built by the project's
CMake build, not by setuptools' compiler.

PROBITY_CMAKE_BUILD_DIR=DIR reuses a configured build tree (only its `_probity` target is built,
its configuration is left as it is); without it a build tree of its own is configured under
setuptools' build directory, build-wheel/ or $PROBITY_WHEEL_BUILD_BASE (Release, no tests or
benchmarks; ccache and Ninja when installed).
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(probity VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("PROBITY_CMAKE_BUILD_DIR")
        if not build:
            build = str(pathlib.Path(self.build_temp).resolve() / "cmake")
            configure = ["cmake", "-S", str(ROOT), "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                         f"-DPython3_EXECUTABLE={sys.executable}", "-DPROBITY_BUILD_TESTS=OFF",
                         "-DPROBITY_BUILD_BENCH=OFF", "-DPROBITY_BUILD_PYTHON=ON"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):
                configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build, "--target", "_probity", "-j",
                        str(os.cpu_count() or 1)], check=True)
        built = sorted((pathlib.Path(build) / "python" / "probity").glob("_probity*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in {build} made no _probity extension")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


class BuildPy(build_py):
    """The package and, inside it, the prompt templates (the module finds them next to itself)."""

    def run(self):
        super().run()
        prompts = pathlib.Path(self.build_lib) / "probity" / "prompts"
        prompts.mkdir(parents=True, exist_ok=True)
        for template in sorted((ROOT / "prompts").glob("*.txt")):
            shutil.copyfile(template, prompts / template.name)


setup(
    version=VERSION,
    packages=["probity"],
    package_dir={"probity": "python/probity"},
    ext_modules=[Extension("probity._probity", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPy},
    # Not ./build, the CMake build tree of scripts/build.sh.
    options={"build": {"build_base": os.environ.get("PROBITY_WHEEL_BUILD_BASE", "build-wheel")}},
)
