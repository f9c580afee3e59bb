"""Builds the optional compiled engine: arena/games/vandtia.py compiled by Cython, as the
extension ``arena.games._vandtia`` (types in vandtia.pxd). Where it cannot be built (no C
compiler, ``ARENA_PURE=1``) the install goes on without it and the same module runs as plain
Python; ``vandtia`` uses the extension only when it was built from its very source."""

import hashlib
import os
import shutil
from pathlib import Path

from setuptools import Extension, setup

ext_modules = []
try:
    from Cython.Build import cythonize
except ImportError:  # a build without its build requirements (--no-build-isolation)
    cythonize = None
if cythonize is not None and os.environ.get("ARENA_PURE", "") in ("", "0"):
    source = Path("arena/games/vandtia.py")
    build = Path("build/cython/arena/games")
    build.mkdir(parents=True, exist_ok=True)
    text = source.read_text(encoding="utf-8")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    # the copy says which source it was compiled from
    (build / "_vandtia.py").write_text(text + f'\nSOURCE_SHA256 = "{digest}"\n',
                                       encoding="utf-8")
    shutil.copyfile("arena/games/vandtia.pxd", build / "_vandtia.pxd")
    ext_modules = cythonize(
        [Extension("arena.games._vandtia", [str(build / "_vandtia.py")])],
        include_path=["build/cython"],  # where _vandtia.pxd is found as arena/games/_vandtia.pxd
        compiler_directives={"language_level": 3, "annotation_typing": False},
        quiet=True)
    for extension in ext_modules:  # cythonize's copies drop the flag: a failed compile
        extension.optional = True  # leaves the pure module, it does not stop the install

setup(ext_modules=ext_modules)
