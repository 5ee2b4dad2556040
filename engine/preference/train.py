"""One preference-tuning (DPO) run in this process: a method applied to a language model, trained by the one loop.

``preference_job(...)`` runs the one tuning lifecycle (``lm_workbench.engine.finetune.lifecycle``, as
``finetune_job`` does) with the ``PreferenceTask`` (``lm_workbench.engine.preference.task``): the same events, a
``PreferenceResult``. It yields ``ParametersCounted`` once the method is applied, then the loop's events. Before
the first step the reference model scores every pair once (its DPO loss is ``lm_workbench.engine.preference.dpo``);
dropout is switched off, so at step 0 the policy is the reference: loss log 2, every margin 0.

Reported: every logged step ``loss``, ``reward_margin``, ``preference_accuracy``, ``chosen_reward`` and
``rejected_reward`` of its batch; every evaluation (step 0, each epoch, the end) the validation pairs'
``validation_loss`` (mean DPO loss per pair), ``validation_reward_margin``, ``validation_preference_accuracy``,
``validation_chosen_preferred`` (the fraction of pairs where the model itself gives the chosen answer the
higher log-probability) and ``validation_logp_margin`` (its mean log π(chosen|x) - log π(rejected|x)). At the
end the tuned model scores the training pairs once more (``train``), and ``before``/``after`` hold the
validation pairs' ``preference_accuracy`` and ``logp_margin`` judged by the model itself: the reference
(the model before) and the tuned one, per category too when the data has categories.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.finetune.lifecycle import run_tuning
from lm_workbench.engine.finetune.run_types import FineTuneData, FineTuneSettings
from lm_workbench.engine.instruct.template import ChatTemplate
from lm_workbench.engine.preference.names import DEFAULT_BETA
from lm_workbench.engine.preference.scores import (  # noqa: F401 (this module's names, kept)
    PairScores, choice_summary, dpo_summary, pair_rows, score_pairs,
)
from lm_workbench.engine.preference.task import PreferenceResult, PreferenceTask
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken


def preference_job(model: Any, tokenizer: Any, method: Any, method_config: Any, data: FineTuneData,
                   settings: FineTuneSettings, *, template: ChatTemplate, beta: float = DEFAULT_BETA,
                   checkpoint_dir: Path, cancel: CancelToken = NEVER_CANCELLED,
                   resume_from: Path | None = None) -> Generator[Any, None, PreferenceResult]:
    """DPO-train ``model`` (a causal or sequence-to-sequence LM) with ``method``; see the module."""
    return (yield from run_tuning(PreferenceTask(data, template, beta), model, tokenizer, method, method_config, data,
                                  settings, checkpoint_dir=checkpoint_dir, cancel=cancel, resume_from=resume_from))
