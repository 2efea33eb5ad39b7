# The knobs of each tree kernel: one struct a kernel, its fields named as
# the keys of the policy's config table (engine/config.py: RaveConfig,
# UctConfig), filled whole by Tree.set_params (engine/walk.pyx) from that
# table; engine/config.py holds the one default of each.  A new knob of a
# kernel: a field of its config table, a field here, and its use in the
# kernel (docs/HACKING.md, "A knob of a tree kernel").

ctypedef struct rave_params_t:     # engine/tree_rave.pyx; [rave]
    int expand_visits             # real visits of a leaf before it gets all its children
    bint rave                     # blend AMAF values into every child's value
    double rave_equiv             # RAVE equivalence k
    double K                      # UCB1 exploration on total counts
    double prior_scale            # multiplies the prior knowledge's counts
    double net_equiv              # net prior visits at value 1 per sqrt(p)
    double net_grow               # parent visits above which the net prior grows; 0 = fixed
    double net_fade               # the share of net_equiv lost by move net_fade_end * points
    double net_fade_end           # where the fade is complete, in moves per board point
    int net_visits                # real visits before a node asks the net
    double fpu                    # value of a child with no statistics at all
    double virtual_loss           # visits of virtual loss a search thread puts on its path
    double score_utility          # weight of the score head's lead in the root's selection; 0 = off
    double score_scale            # points of lead at which that term is half its weight
    bint score_backup             # that term reads the leads backed up by root move (else the head's at the child)
    bint value_backup             # the value head's evaluations kept apart, each node's mean over its subtree's (AlphaGo)

ctypedef struct uct_params_t:      # engine/tree_uct.pyx; [uct]
    bint puct                     # uct.policy: PUCT (else UCB1)
    double K                      # UCB1 exploration
    double K_prior                # UCB1 exploration at nodes with net priors
    double c_puct                 # PUCT constant
    double fpu_reduction          # PUCT: an unvisited child's value is the parent's less this * sqrt(visited prior)
    bint rave                     # blend AMAF values of expanded children
    double rave_equiv             # RAVE equivalence k
    double cnn_strength           # Gelly-Silver prior visits of the net's priors
    double virtual_loss           # visits of virtual loss a pending leaf of a batch holds
