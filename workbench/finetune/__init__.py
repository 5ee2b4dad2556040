"""Fine-tuning runs: the spec, the long-run job, the output folder and the CLI's ``finetune``/``predict``.

A fine-tuning output folder (``--out DIR``, also the run's folder in the runs
browser) holds:

- ``finetune.json``: ``{"format": "lm-workbench-finetune/1", "base_model", "task", "method",
  "method_config", "labels", "text_columns", "max_length", "run_id"}``: enough to rebuild the model;
- ``adapter/``: what the method saved (``FineTuneMethod.save``); for ``full``, the whole task model
  (``save_pretrained``, safetensors) and its tokenizer;
- ``summary.json``: ``run_id, task, method, trainable_parameters, total_parameters, trainable_percent,
  validation`` (metric -> value at the end), ``best_validation`` (metric -> best value), ``wall_s``,
  ``peak_memory_mb``, ``adapter_bytes``, ``steps``, ``device``;
- ``validation_predictions.jsonl``: one row per validation example: ``index, text, gold, predicted,
  correct, confidence`` (the task's own extra keys besides);
- ``confusion.json`` (classification tasks): ``{"labels": [...], "matrix": [[gold x predicted counts]]}``.

Metrics go to the run store under the pre-training names (``loss``, ``lr``, ``validation_loss``) plus one
per task metric (``accuracy``, ``f1``, ``mcc``, ``exact_match``, ``rouge1`` ...) at each evaluation
(step 0, every epoch, the end), ``trainable_parameters``/``total_parameters``/``trainable_percent`` at
step 0 before training, and ``wall_s``, ``peak_memory_mb``, ``adapter_bytes`` at the last step.

Where things are: ``spec.FineTuneSpec`` (the run), ``methods.finetune_methods()`` (the plugins),
``job.submit_finetune(lane, spec)`` (queue it on the long-run lane; the run kind is
``workbench.runs.kinds.FINETUNE``), ``run.preflight(spec)`` (every cheap check, raises ``WorkbenchError``),
``run.parameter_counts(spec)`` (trainable/total before training, seconds: off the GUI thread),
``workbench.runs.summary.read_summary(out_dir)``, ``run.open_output(out_dir)`` + ``engine.finetune.saved.predict`` (reload and
predict), ``run.merge_output(out_dir, out)`` (LoRA merged), and ``engine.finetune.validation.PRIMARY_METRIC``
(the metric a comparison ranks by, per task).
"""
