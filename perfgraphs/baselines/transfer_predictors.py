"""The reference transfer predictors of leave-one-platform-out by name (the registry's
``TRANSFER_BASELINES`` names which variants each runs on): a factory of a fresh estimator per draw."""

from __future__ import annotations

from perfgraphs.baselines.lowrank_transfer import LowRankTransfer
from perfgraphs.baselines.physics_transfer import PriorResidualTransfer, RooflinePrior
from perfgraphs.baselines.transfer import PROFILE_CORRECTIONS, RatioTransfer, SourceModelTransfer

TRANSFER_PREDICTORS = {
    "ratio-transfer": lambda seed: RatioTransfer(),
    "profile-transfer": lambda seed: RatioTransfer(corrections=PROFILE_CORRECTIONS),
    # the ratio rule plus a ridge on the sources' top latent factors (issue 34)
    "lowrank-transfer": lambda seed: LowRankTransfer(),
    "static-gbm-transfer": lambda seed: SourceModelTransfer(use_labels=False, random_state=seed),
    # physics alone: the roofline prior scaled by the shots (issue 27)
    "roofline-prior": lambda seed: RooflinePrior(),
    "prior-gbm-transfer": lambda seed: PriorResidualTransfer(random_state=seed),
}
