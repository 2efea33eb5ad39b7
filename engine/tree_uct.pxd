from engine.tree_policy cimport tree_policy_t

cdef const tree_policy_t* uct_policy() noexcept nogil
