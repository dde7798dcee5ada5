"""Pieces of experiment files shared by the tests of this folder."""

#: A PFTK overlay on the sack points of a sweep over p (a [[models]] table).
PFTK_OVERLAY = """
[[models]]
name = "pftk"
variants = ["sack"]
metric = "throughput_pps"
sim_metric = "goodput_pps"
params = {rtt_s = 0.02, p = "{p}", timeout_s = 0.2}
"""
