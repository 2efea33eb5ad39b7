# See memkernel.pyx for details.
from libc.stdint cimport int32_t, uint8_t, uint32_t

cdef class MemoryIndex:
    # -- constant (set at construction)
    cdef readonly int capacity        # |M|, slots [0, capacity)
    cdef readonly int D               # dimension of phi
    cdef readonly double last_max_cos  # best cosine of the last query (-2: none found)
    cdef readonly int n_live          # coordinates the feature hash can reach
    cdef readonly int n_dead          # D - n_live
    cdef readonly int stride          # floats per live row: n_live rounded up to 16
    cdef readonly int T               # SimHash tables (hash_tables)
    cdef readonly int b               # bits per code (hash_bits), 1..32
    cdef readonly int M               # neighbours a query combines
    cdef readonly double tau          # temperature of equation (8)
    cdef readonly int center_after    # add() reports reaching this size uncentred
    cdef double inv_tau               # 1 / tau, float64 (tiny tau stays finite)
    cdef readonly int sd              # SimHash input dim (fold of phi); divides D
    cdef int nbits                    # T * b hyperplanes
    cdef int nblk                     # ceil(nbits / 64) blocks of the plane matrix
    cdef int n_masks                  # probe masks (Hamming ball of probe_radius)
    cdef int hbits                    # log2 of the heads per table
    cdef readonly bint dense_bins     # heads indexed by the code itself (hbits == b)
    cdef uint32_t code_mask           # (1 << b) - 1
    cdef int32_t* live_idx            # [n_live] natural index of stored coordinate j
    cdef int32_t* dead_idx            # [n_dead] same for the dead part
    cdef float* planes                # [nblk][sd][64] hyperplanes, zero-padded rows
    cdef float* fold_signs            # [D] signs of the fold D -> sd (all 1 when sd == D)
    cdef uint32_t* masks              # [n_masks] XOR masks of the probed bins, 0 first
    cdef readonly object live_index   # int32 (n_live,): live_idx as numpy
    cdef readonly object dead_index   # int32 (n_dead,): dead_idx as numpy
    cdef uint32_t* dead_mask          # [D] 0x7fffffff on dead coordinates, 0 on live
    cdef object _keep                 # numpy arrays behind the raw pointers
    # -- stored entries (numpy arrays owned here, raw pointers into them)
    cdef readonly object live_rows    # float32 (capacity, n_live) view: phi[live_idx];
                                      # rows are stride apart, zero-padded, 64-byte aligned
    cdef readonly object dead_rows    # float32 (capacity, n_dead): phi[dead_idx]; zero unless full
    cdef readonly object stats        # float64 (capacity, 3): N, N*V, V
    cdef readonly object full         # uint8 (capacity,): 1 if the dead part may be nonzero
    cdef float* live
    cdef float* dead
    cdef double* st
    cdef uint8_t* fullp
    # -- SimHash bins: intrusive doubly linked lists of entries e = slot*T + t
    cdef int32_t* heads               # [T << hbits] first entry of a bin, -1 if empty
    cdef int32_t* enext               # [capacity*T] next entry in the same bin, -1 at the end
    cdef int32_t* eprev               # [capacity*T] previous entry, -1 at the head
    cdef uint32_t* ecode              # [capacity*T] code of slot in table t
    # -- SimHash centre (deviation of engine/memory.py: centred after 64 entries)
    cdef readonly bint centred
    cdef float* fold_c                # [sd] fold of the centre; zero until centred
    # -- LRU: doubly linked list of the stored slots, most recent at lru_head
    cdef int32_t* lru_prev
    cdef int32_t* lru_next
    cdef int32_t lru_head, lru_tail   # -1 when empty
    # -- mutable
    cdef readonly Py_ssize_t size     # stored entries, slots [0, size)
    cdef readonly dict key_to_slot    # key -> slot, for the size stored entries
    cdef readonly list slot_key       # [capacity] slot -> key, None if never used
    cdef uint32_t* mark               # [capacity] dedupe stamps of a query
    cdef uint32_t qstamp              # current query's stamp
    cdef int32_t* cand                # [capacity] candidate slots of a query
    cdef float* csim                  # [capacity] their cosines
    cdef float* qbuf                  # [stride + n_dead] query, laid out like the rows
    cdef Py_ssize_t* probe_bins       # [T * n_masks] heads[] index of each probe
    cdef uint32_t* probe_codes        # [T * n_masks] code of each probe
    cdef float* xbuf                  # [D] scratch phi in natural order
    cdef float* fbuf                  # [sd] fold
    cdef float* pbuf                  # [nblk*64] projections
    cdef uint32_t* cbuf               # [T] codes
    cdef readonly long long queries, hits, candidates, evictions

    cdef Py_ssize_t _bin(self, int t, uint32_t code) noexcept nogil
    cdef void _codes(self, const float* phi, uint32_t* out) noexcept nogil
    cdef void _link(self, Py_ssize_t slot) noexcept nogil
    cdef void _unlink(self, Py_ssize_t slot) noexcept nogil
    cdef void _lru_remove(self, Py_ssize_t slot) noexcept nogil
    cdef void _lru_push(self, Py_ssize_t slot) noexcept nogil
    cdef void _touch(self, Py_ssize_t slot) noexcept nogil
    cdef Py_ssize_t _candidates(self, const uint32_t* codes,
                                Py_ssize_t excluded) noexcept nogil
    cdef Py_ssize_t _rank(self, const float* phi, Py_ssize_t n) noexcept nogil
    cdef void _load_codes(self, object codes) except *
    cdef Py_ssize_t _insert(self, const float* p, bint given, double V,
                            double N) noexcept
    cdef void _set_stats(self, Py_ssize_t slot, double V, double N) noexcept
    cdef Py_ssize_t _slot_of(self, object key) except -2
