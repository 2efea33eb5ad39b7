# See priors.pyx for details.
from board_ext.board cimport board_t

cdef void move_prior(const board_t* b, int p, float* n0, float* w0, double scale) noexcept nogil
