"""The graph pool: which graphs make up the DIPPM / TraPPM graph sets (``suites``), their storage
as checksummed Parquet (``graph_pool``) and the encoding and ids of a stored structure
(``structures``). Below the collectors (a plan is generated from the pool) and the datasets (a
build selects graphs from it)."""
