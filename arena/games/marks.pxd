# Types for compiling marks.py with Cython (setup.py; optional: the same module runs as
# plain Python where no compiler is found). Declarations only: the code lives in the .py.
import cython

@cython.locals(changed=dict, members=tuple, logs=tuple, before=tuple, names=tuple,
               i=cython.Py_ssize_t, n=cython.Py_ssize_t, m=cython.Py_ssize_t, grown=dict,
               marked=tuple, log=list, was=list)
cpdef tuple delta(state, int seat, tuple mark)
