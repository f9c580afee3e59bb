# Types for compiling deltas.py with Cython (setup.py; optional: the same module runs as
# plain Python where no compiler is found). Declarations only: the code lives in the .py.
import cython

@cython.locals(changed=dict, grown=dict, delta=dict, kept=cython.Py_ssize_t)
cpdef dict diff(dict old, dict new)

@cython.locals(new=dict)
cpdef dict patch(dict old, dict delta)

@cython.locals(out=dict)
cpdef dict fresh(dict observation)

@cython.locals(whole=dict)
cpdef dict rebuild(dict kept, key, dict request)
