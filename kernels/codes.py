"""Every small integer code that crosses the kernel boundary, in one place.

Kernels dispatch on these codes by equality, and every dispatch ends in an
error for a code it does not know (never a silent fall-through). The Python
layer reads the codes from the declarations of :mod:`bandsim.registry`; no
other module defines one.
"""

# Reward models (kernels.rewards): a per-arm float64 parameter row travels with each.
BERNOULLI = 0
CLIPPED_GAUSSIAN = 1
CATEGORICAL = 2
REWARD_MODELS = {"bernoulli": BERNOULLI, "gaussian": CLIPPED_GAUSSIAN,
                 "categorical": CATEGORICAL}

# Mechanisms (kernels.protocols): what the analyzer learns from one batch.
NONE = 0               # the exact sum (non-private baselines)
LAPLACE = 1            # continuous Laplace on the sum (DP-SE)
DIST_DP = 2            # SecAgg protocols of Chowdhury & Zhou (kernels.secagg)
DIST_RDP = 3
DIST_CDP = 4
CENTRAL = 5
LOCAL = 6
DIST_DP_SHUFFLE = 7
SHUFFLE_BINARY = 10    # shuffle binary summation of Tenenbaum et al. (kernels.shuffle)
# Plug-in mechanisms: the engines call the plug-in's first-class kernels (kernels.hooks).
PLUGIN = 100           # SecAgg protocol with the plug-in's total_noise / user_noise
PLUGIN_SUM = 101       # exact sum + the plug-in's sum_noise
RELEASE = 102          # data-dependent release from the batch's true count (release)
#: The kernel code of each plug-in mechanism family.
PLUGIN_CODES = {"secagg": PLUGIN, "sum": PLUGIN_SUM, "release": RELEASE}

SECAGG = (DIST_DP, DIST_RDP, DIST_CDP, CENTRAL, LOCAL, DIST_DP_SHUFFLE)

# Pull orders inside a stage (kernels.regret).
ROUND_ROBIN = 0
BLOCKS = 1

# Laws of a recorded release (kernels.record): how its value was drawn from its statistic.
LAW_EXACT = 0          # the statistic itself (non-private)
LAW_LAPLACE = 1        # statistic + continuous Laplace of the recorded scale
LAW_SVT_THRESHOLD = 2  # an SVT instance's noisy threshold (statistic: the threshold)
LAW_SVT_QUERY = 3      # an SVT instance's noisy query (tag: the instance)
LAW_BATCH = 4          # one batch of the registered mechanism (tag: precision g, or 0)
LAWS = {"exact": LAW_EXACT, "laplace": LAW_LAPLACE, "svt-threshold": LAW_SVT_THRESHOLD,
        "svt-query": LAW_SVT_QUERY, "batch": LAW_BATCH}

# Modes of a recorder (kernels.record).
RECORD = 1
REPLAY = 2
