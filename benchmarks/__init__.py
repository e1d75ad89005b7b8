"""Speed and memory targets, as ratios and throughputs (``python -m perfgraphs.benchmarks.<script>``)
and the results tables of the reference baselines (``make_results``). Scripts on top of every
layer: nothing in the library imports them. The evaluation protocol is
:mod:`perfgraphs.evaluation`."""
