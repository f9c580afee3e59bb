# Types for compiling vandtia.py with Cython (setup.py; optional: the same module runs as
# plain Python where no compiler is found). Declarations only: the rules live in the .py.
import cython

cdef dict _PLAY_CARDS, _PLAY_NAMES, _SWAP_CARDS, _SWAP_NAMES, _FLIP_SLOT, _GROUP_PLAYS
cdef dict _CHOICE_PLAYS
cdef tuple _FLIPS, _NAMES, _DRAW, _PICKUP, _ON, _BITS
cdef list _GROUPS

@cython.locals(one=cython.ulonglong, mask=cython.ulonglong, seen=cython.ulonglong,
               on=cython.ulonglong,
               c=cython.int, r=cython.int, m=cython.int, k=cython.int, key=cython.int,
               out=tuple, plays=tuple)
cpdef tuple _plays1(list cards, int top, known)

cpdef _remove_known(list known, played)


@cython.final
cdef class VandtiaState:
    cdef public list hands, faceup, facedown, stock, pile, burned, known, out, swapping
    cdef public list events
    cdef public tuple _legal
    cdef public object variant, suit_order, reason, _ranks, must_include, to_move
    cdef public int n, dealer, moves
    cdef public bint over, single, draw_allowed, transparent7, play_on, starter_must_include

    @cython.locals(r=cython.int, pile=list)
    cpdef int top(self)
    @cython.locals(p=cython.int, hand=list, legal=tuple)
    cpdef legal_actions(self)
    @cython.locals(p=cython.int, legal=tuple, cards=tuple)
    cpdef apply(self, action)
    @cython.locals(n=cython.int, c=cython.int, i=cython.int, p=cython.int, k=cython.int,
                   slot=cython.int, top=cython.int)
    cpdef encode(self, int seat, float[::1] out, signed char[::1] mask, float unit, double deck,
                 int copies)
    @cython.locals(c=cython.int, i=cython.int, used=cython.int, draw=cython.int,
                   card=cython.int, j=cython.int, k=cython.int, q=cython.int,
                   seen=cython.int, cards=tuple, known=list, out=list, legal=tuple)
    cdef list _action_indices(self, int copies, signed char[::1] mask)
    @cython.locals(hand=list, src=list, known=list)
    cpdef _play(self, int p, tuple cards)
    cpdef _draw(self, int p)
    cpdef _flip(self, int p, int slot)
    cpdef _pickup(self, int p)
    @cython.locals(pile=list, r=cython.int)
    cpdef _put(self, cards)
    cpdef _take(self, int p, list cards)
    @cython.locals(hand=list, stock=list, drew=list)
    cpdef list _refill(self, int p)
    cpdef _after_play(self, int p, burn)
    @cython.locals(q=cython.int, out=list)
    cpdef _next(self, int p)

@cython.locals(i=cython.int, n=cython.int, j=cython.long)
cpdef _shuffle(rng, list cards)
