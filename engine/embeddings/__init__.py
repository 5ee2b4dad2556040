"""Contextual embeddings over a corpus: occurrences, their vectors per layer, maps and neighbours.

Data side: ``corpus`` (reading files), ``demo_set`` (the built-in polysemy
set), ``occurrences`` (finding words: whole words, or runs between token boundaries in scripts
written without spaces),
``representation`` (layer specs, scalar mix, pooling), ``extract`` (vectors
per occurrence and layer) and ``activation_cache`` (float16 memory maps on
disk). Math side: ``neighbours``, ``projection``, ``layer_sweep``,
``sentence_embeddings`` (plain numpy/sklearn on arrays).

Nothing here imports Qt or the workbench; modules are imported on demand.
"""
