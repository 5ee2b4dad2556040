"""Parameter-efficient fine-tuning methods that ``peft`` lacks, built in its shape (config / layer / model).

``bottleneck`` holds Houlsby (2019) and Pfeiffer (2021) bottleneck adapters,
``bitfit`` trains biases only (Ben Zaken et al. 2022), ``saving`` writes and
reads the trained weights apart from the base model (an ``adapter_config.json``
plus ``adapter_model.safetensors``), ``counting`` counts trainable parameters.
"""
