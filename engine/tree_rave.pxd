from engine.tree_policy cimport tree_policy_t
from engine.pool cimport NodePool

cdef const tree_policy_t* rave_policy() noexcept nogil
cdef double rave_net_weight(NodePool t) noexcept nogil
cdef void rave_add_net_priors(NodePool t, int node, const float* pr) noexcept nogil
cdef void rave_replace_net_priors(NodePool t, int node, const float* pr) noexcept nogil
