"""The evaluation protocol: a registered config loaded into its standard parts (``protocol``), the
tabular configs' cross-validation (``tabular_protocol``, ``cv``), the labels' noise floor
(``label_noise``) and the MLflow record of a scored run (``mlflow_log``). Scoring itself is
:class:`perfgraphs.evaluation.evaluator.Evaluator`; running baselines through the protocol is the
leaderboard's (:mod:`perfgraphs.leaderboard.runner`)."""
