"""The prompting lab's engine: templates, verbalizers, scoring, calibration, few-shot prompts, evaluation
and streaming generation ("pre-train, prompt, predict").

``template``, ``verbalizer``, ``prompt_set`` and ``fewshot`` import no torch, so the workbench can read and
check prompts without loading a model; ``scoring``, ``calibration``, ``evaluate`` and ``generation`` run models.
"""
