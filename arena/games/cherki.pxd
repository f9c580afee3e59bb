# Types for compiling cherki.py with Cython (setup.py; optional: the same module runs as
# plain Python where no compiler is found). Declarations only: the rules live in the .py.
import cython

@cython.locals(f=cython.int, k=cython.int, p=cython.int, base=cython.int, hand=list,
               n=cython.int, indices=list, counts=list)
cpdef encode(state, int seat, float[::1] out, signed char[::1] mask)

@cython.locals(i=cython.int, p=cython.int, f=cython.int, record=dict, faces=dict,
               counts=list, kept=list, discards=list, takes=list)
cpdef list _record_counts(state)
