# See bhrf.pyx for details.
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from board_ext.board cimport board_t, rng_t
from board_ext.playout cimport policy_fn

# What the rollout lookup reads of a node, packed in one record (one cache
# line fetch per candidate reply instead of one per field).
ctypedef struct look_t:
    int32_t ctx_next        # next node with the same context, -1 none
    int16_t reply           # the reply this node's tree is for
    int16_t pad
    float n                 # visits
    float mean              # w / n
    float isq               # 1 / sqrt(n)

ctypedef struct forest_t:
    int nn                  # board points; nn = pass
    int capacity            # node arrays' length
    int n_nodes             # nodes in use (roots are implicit: reply r is root r)
    int max_depth           # longest context stored and matched (<= 7)
    int selection           # 0 soft-UCT, 1 last-reply
    double epsilon          # probability of asking the forest in a rollout move
    double b                # soft-UCT exploration constant (equation 1)
    uint32_t clock          # update counter for last-reply recency
    policy_fn fallback      # default policy (random or expert)
    long asked, suggested, played   # counters for the rollout profile
    int16_t* move           # context move of node i
    int16_t* reply          # the reply (tree root) node i belongs to
    int32_t* child          # first child (deeper context), -1 none
    int32_t* sibling        # next sibling, -1 none
    int32_t* ctx_next       # next node with the same context (same chash)
    uint64_t* chash         # hash of the node's whole context, newest move first
    float* n                # visits
    float* w                # wins for the player of the reply
    uint32_t* stamp         # clock of the last update (last-reply)
    int32_t* last           # at a chain head: the chain's most recently updated node
    look_t* look            # lookup records, mirrors reply/ctx_next/n/w
    # per context (indexed by its chain head): the chain's nodes in one
    # contiguous block of cidx, so a reply can be drawn by index
    int32_t* cstart         # block start in cidx
    int32_t* clen           # nodes in the block
    int32_t* ccap           # block capacity
    float* ctot             # sum of n over the chain
    int32_t* cidx           # the blocks
    long cidx_used, cidx_cap
    int32_t* root_child     # [nn+1] first child of reply tree r
    int32_t* table          # open addressing: context hash -> first node, -1 empty
    uint64_t table_mask     # table length - 1 (a power of two >= 2 capacity)

cdef int bhrf_move(board_t* b, rng_t* rng, void* ctx) noexcept nogil
cdef void bhrf_update(void* ctx, const int16_t* moves, int n, int n_tree,
                      int first_color, double black_reward) noexcept nogil

cdef class Forest:
    cdef forest_t f
