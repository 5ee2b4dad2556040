"""The Probing tab: layer-wise linear probes with their control task, and STS per layer."""
