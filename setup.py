"""Builds the optional compiled engines: arena/games/vandtia.py, tractor.py and cherki.py
compiled by Cython, as the extensions ``arena.games._vandtia``, ``_tractor`` and ``_cherki``
(their types in the .pxd beside each). Where they cannot be built (no C compiler,
``ARENA_PURE=1``) the install goes on without them and the same modules run as plain
Python; an engine uses its extension only when it was built from its very source
(``arena.games.compiled_build``)."""

import hashlib
import os
import shutil
from pathlib import Path

from setuptools import Extension, setup

ENGINES = ["vandtia", "tractor", "cherki"]
ext_modules = []
try:
    from Cython.Build import cythonize
except ImportError:  # a build without its build requirements (--no-build-isolation)
    cythonize = None
if cythonize is not None and os.environ.get("ARENA_PURE", "") in ("", "0"):
    build = Path("build/cython/arena/games")
    build.mkdir(parents=True, exist_ok=True)
    for name in ENGINES:
        source = Path(f"arena/games/{name}.py")
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        # the copy says which source it was compiled from
        (build / f"_{name}.py").write_text(source.read_text(encoding="utf-8")
                                           + f'\nSOURCE_SHA256 = "{digest}"\n', encoding="utf-8")
        if Path(f"arena/games/{name}.pxd").exists():
            shutil.copyfile(f"arena/games/{name}.pxd", build / f"_{name}.pxd")
    ext_modules = cythonize(
        # without debug information, at -O2: the build takes half the time (31 s against 57
        # on two cores) and the engines run as fast or faster than at Python's -g -O3
        [Extension(f"arena.games._{name}", [str(build / f"_{name}.py")],
                   extra_compile_args=["-g0", "-O2"]) for name in ENGINES],
        include_path=["build/cython"],  # where _vandtia.pxd is found as arena/games/_vandtia.pxd
        compiler_directives={"language_level": 3, "annotation_typing": False},
        nthreads=os.cpu_count() or 1, quiet=True)
    for extension in ext_modules:  # cythonize's copies drop the flag: a failed compile
        extension.optional = True  # leaves the pure module, it does not stop the install

# the engines compile side by side, one per core
setup(ext_modules=ext_modules, options={"build_ext": {"parallel": os.cpu_count() or 1}})
