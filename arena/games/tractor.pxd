# Types for compiling tractor.py with Cython (setup.py; optional: the same module runs as
# plain Python where no compiler is found). Declarations only: the rules live in the .py.
import cython

@cython.locals(strength=cython.int, at=cython.int, team=cython.int, f=cython.int,
               k=cython.int, i=cython.int, s=cython.int, base=cython.int, level=cython.int,
               hand=list, indices=list, counts=list)
cpdef encode(state, int seat, float[::1] out, signed char[::1] mask)

@cython.locals(i=cython.int, s=cython.int, f=cython.int, by_name=dict, counts=list,
               kept=list, tricks=list)
cpdef list _played_counts(state)

@cython.locals(f=cython.int, g=cython.int, k=cython.int, suit=cython.int, faces=list)
cpdef int action_index(str action, int level) except? -1

@cython.locals(f=cython.Py_ssize_t, k=cython.Py_ssize_t, out=list)
cpdef list _held(list hand, list faces, list names)
