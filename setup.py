"""Builds the optional compiled modules: the engines arena/games/vandtia.py, tractor.py and
cherki.py, the states' own deltas arena/games/marks.py and the observation deltas
arena/sandbox/deltas.py, compiled by Cython as the extensions ``arena.games._vandtia``,
``_tractor``, ``_cherki``, ``_marks`` and ``arena.sandbox._deltas``
(each module's types in the .pxd beside it). Where they cannot be built (no C compiler,
``ARENA_PURE=1``) the install goes on without them and the same modules run as plain
Python; a module uses its extension only when it was built from its very source
(``arena.games.compiled_build``)."""

import hashlib
import os
import shutil
from pathlib import Path

from setuptools import Extension, setup

#: as ``arena.games.COMPILED`` (this file runs before arena is importable)
COMPILED = ["arena.games.vandtia", "arena.games.tractor", "arena.games.cherki",
            "arena.games.marks", "arena.sandbox.deltas"]
ext_modules = []
try:
    from Cython.Build import cythonize
except ImportError:  # a build without its build requirements (--no-build-isolation)
    cythonize = None
if cythonize is not None and os.environ.get("ARENA_PURE", "") in ("", "0"):
    extensions = []
    for module in COMPILED:
        package, _, name = module.rpartition(".")
        folder = package.replace(".", "/")
        build = Path("build/cython") / folder
        build.mkdir(parents=True, exist_ok=True)
        source = Path(f"{folder}/{name}.py")
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        # the copy says which source it was compiled from
        (build / f"_{name}.py").write_text(source.read_text(encoding="utf-8")
                                           + f'\nSOURCE_SHA256 = "{digest}"\n', encoding="utf-8")
        if Path(f"{folder}/{name}.pxd").exists():
            shutil.copyfile(f"{folder}/{name}.pxd", build / f"_{name}.pxd")
        # without debug information, at -O2: the build takes half the time (31 s against 57
        # on two cores) and the engines run as fast or faster than at Python's -g -O3
        extensions.append(Extension(f"{package}._{name}", [str(build / f"_{name}.py")],
                                    extra_compile_args=["-g0", "-O2"]))
    ext_modules = cythonize(
        extensions,
        include_path=["build/cython"],  # where _vandtia.pxd is found as arena/games/_vandtia.pxd
        compiler_directives={"language_level": 3, "annotation_typing": False},
        nthreads=os.cpu_count() or 1, quiet=True)
    for extension in ext_modules:  # cythonize's copies drop the flag: a failed compile
        extension.optional = True  # leaves the pure module, it does not stop the install

# the extensions compile side by side, one per core
setup(ext_modules=ext_modules, options={"build_ext": {"parallel": os.cpu_count() or 1}})
