"""Fine-tuning runs: the spec, the recorded run (``runs``), the run in this process (``train``), the tab's short tasks (``view_tasks``), the output folder and the CLI's ``finetune``/``predict``.

The output folder's format is in ``docs/finetune-outputs.md``.

Where things are: ``spec.FineTuneSpec`` (the run), ``methods.finetune_methods()`` (the plugins),
``runs.submit_finetune(lane, spec)`` (queue it on the long-run lane; the run kind is
``runs.FINETUNE``, registered in the ``lm_workbench.run_kinds`` entry points), ``train.preflight(spec)`` (every cheap check, raises ``WorkbenchError``),
``train.parameter_counts(spec)`` (trainable/total before training, seconds: off the GUI thread),
``lm_workbench.runs.summary.read_summary(out_dir)``, ``train.open_output(out_dir)`` + ``lm_workbench.engine.finetune.saved.predict``
(reload and predict), ``train.merge_output(out_dir, out)`` (LoRA merged), ``merge_runs.MergeRun`` / ``MergeSpec``
(several runs combined or one folded, recorded as a ``finetune-merge`` run; the work is
``lm_workbench.engine.finetune.merging``), ``outputs.bench_columns`` (checkpoint bytes, memory, tokens/s, forgetting in
each summary), ``state.FineTuneState`` (the tab's
Qt-free state), and ``lm_workbench.engine.finetune.names.PRIMARY_METRIC`` (the metric a comparison ranks by, per task).
"""

from lm_workbench.callable_packages import make_callable as _make_callable

_make_callable(__name__)  # lm_workbench.finetune(...) is the public API's function (lm_workbench.api)
