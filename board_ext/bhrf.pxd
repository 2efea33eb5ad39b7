# See bhrf.pyx for details.
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from board_ext.board cimport board_t, rng_t
from board_ext.playout cimport policy_fn

# One reply of a context as the rollout reads it; a context's replies lie in
# one contiguous block of these, sorted by reply, so a draw or a scan reads
# consecutive memory and reply r sits at the rank of r in the context's
# reply bitset.
ctypedef struct rec_t:
    float mean              # w / n of the reply's pattern node
    float isq               # 1 / sqrt(n)
    int32_t reply           # the reply move (never pass)

# A context (the last d moves, newest first) and its replies; the records
# themselves are the slots of an open-addressing table keyed by h.
ctypedef struct ctx_t:
    uint64_t h              # context hash; meaningful when len > 0
    int32_t start           # replies in rec[start .. start + len)
    int32_t len             # replies stored; 0 = empty slot
    int32_t cap             # block capacity (len <= cap)
    int32_t last            # reply of the node updated last (last-reply)
    float tot               # sum of n over the replies (equation 1's sum)
    float lg                # sqrt(ln max(tot, 1)), kept with tot

# Slot of the node table: pattern node by (context hash, reply).
ctypedef struct nslot_t:
    uint64_t key            # h ^ RZ[reply]; meaningful when node >= 0
    int32_t node            # -1 = empty slot
    int32_t pad

ctypedef struct forest_t:
    int nn                  # board points; nn = pass
    int capacity            # node arrays' length
    int n_nodes             # nodes in use (roots are implicit: reply r is root r)
    int n_ctx               # contexts in use (occupied ctx slots)
    int nw                  # uint64 words of a reply bitset: ceil(nn / 64)
    int max_depth           # longest context stored and matched (<= 7)
    int selection           # 0 soft-UCT, 1 last-reply
    int legal_first         # match: the longest context with a playable reply (the paper's prose), not the longest
    int accept_p            # soft-UCT plays the drawn reply with probability P(r|c), not min(1, u_r)
    int accept_mean         # ... or with probability mean_r, the reply's win rate
    int trials              # > 0: soft-UCT draws from the whole reply block in at most this many
                            # trials, then the default policy plays (deviation); 0: the exact draw
    double epsilon          # probability of asking the forest in a rollout move
    float b                 # soft-UCT exploration constant (equation 1)
    policy_fn fallback      # default policy (random, expert or moggy)
    void* fallback_ctx      # its ctx (moggy: the tree's MoggyRates table; NULL: defaults)
    long asked, suggested, played   # counters for the rollout profile
    int root_context        # 1: the moves before the root are context (never replies)
    int skip_expansion      # 1: the move into the node a simulation added is no reply
    int n_prefix            # moves before the root kept as context, <= max_depth
    int16_t prefix[8]       # those moves, oldest first (pass = nn)
    int horizon             # > 0: the forest is asked only in positions fewer than
                            # horizon moves past the root (deviation); 0: everywhere
    float horizon_share     # > 0: and only fewer than horizon_share x (empty points at the
                            # root) moves past it (deviation); with horizon, the smaller
    int stop_at             # move_count from which the default policy plays alone
    # pattern nodes (update path only), index i < n_nodes
    uint64_t* h             # hash of node i's whole context
    int16_t* reply          # the reply (tree root) node i belongs to
    int16_t* move           # oldest move of node i's context (its tree edge)
    int32_t* parent         # node one move shorter, same reply; -1 at depth 1
    uint32_t* n             # visits
    double* w               # wins for the player of the reply
    # context table: ctx_mask + 1 slots (a power of two, load <= 1/2)
    ctx_t* ctx
    uint64_t* cbits         # replies of the context in slot s: bits [s*nw, s*nw + nw)
    int32_t* ctx1           # [nn + 1] slot of the depth-1 context (m,), -1 none
    uint64_t* cfilt         # presence bits, 8 per slot: bit h & (8 slots - 1) set for
                            # every stored context h (a clear bit: h is absent)
    uint64_t ctx_mask
    int ctx_shift           # slot of h = h >> ctx_shift (its top bits)
    # node table, same scheme
    nslot_t* ntab
    uint64_t ntab_mask
    int ntab_shift
    # reply blocks; a block that outgrows its capacity moves to the end
    rec_t* rec
    long rec_used, rec_cap

cdef int bhrf_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil
cdef void bhrf_update(void* ctx, const int16_t* moves, int n, int n_tree,
                      int first_color, double black_reward) noexcept nogil

cdef class Forest:
    cdef forest_t f
