"""The Fine-tune tab's Instruct page actions (a mixin of ``FineTuneView``): mark what the loss covers in the
training file, choose or save the chat template, and what an instruct lecture step shows."""

from __future__ import annotations

from pathlib import Path

from typing import Any

from lm_workbench.result_origin import GONE, ResultOrigin
from lm_workbench.runs.summary import default_out_dir
from lm_workbench.instruct.preview import preview_job


class InstructActions:
    """Needs the view's ``ctx``, ``state``, ``message_bar``, ``instruct`` (the page), ``tabs``, ``form_button``,
    ``active``, ``start_run`` and ``_job_failed``."""

    def preview_instruct(self) -> bool:
        """Mark what the loss covers in the training file, for the loaded model's tokenizer (off the Qt thread);
        False with the reason shown when it cannot start."""
        loaded = self.ctx.loaded
        if self.state.task != "instruct":
            self.message_bar.show_error("Choose the instruction tuning task first.", source="instruct")
            return False
        family = str(getattr(loaded.family, "value", loaded.family)) if loaded is not None else ""
        if family not in ("decoder", "encoder-decoder"):
            self.message_bar.show_error("Load a decoder (GPT-2, Llama-style) or an encoder-decoder (BART, T5): "
                                        "instruction tuning trains its language-model head.", source="instruct")
            return False
        if not Path(self.state.train).is_file():
            self.message_bar.show_error(f"The training file {self.state.train or '(none)'} does not exist.",
                                        source="instruct")
            return False
        self.message_bar.clear()
        encoder_decoder = family == "encoder-decoder"
        self.ctx.jobs.run(preview_job(loaded.tokenizer, self.state.train, self.state.template, self.state.max_length,
                                      self.state.batch_size, encoder_decoder),
                          self.instruct.show_preview, step="instruct-preview", label="Marking the trained tokens…",
                          on_error=self._job_failed)
        return True

    def _template_chosen(self, choice: str) -> None:
        self.state.set_form(template=choice)
        if self.state.task == "instruct" and self.ctx.loaded is not None:
            self.preview_instruct()

    def use_edited_template(self) -> str | None:
        """Save the template box's text as a file and train with it (the form's ``--template``)."""
        text = self.instruct.template_text()
        if not text.strip():
            self.message_bar.show_error("The template is empty.", source="instruct")
            return None
        folder = default_out_dir("templates", "chat-template", time_first=True)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "chat_template.jinja"
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.message_bar.show_error(f"Cannot save the template: {exc}", source="instruct")
            return None
        self.instruct.set_template_choice(str(path))
        self._template_chosen(str(path))
        return str(path)

    def _show_instruct(self, show: str) -> None:
        """``data``: the Instruct page's Demonstration data (categories, prompts and answers); ``trained``: its
        What is trained (the template and the coloured tokens); ``before_after``:
        the form's method trains (unless an instruct run already finished) and the page shows the table."""
        self.tabs.setCurrentWidget(self.instruct)
        self.form_button.setChecked(False)
        if show in ("data", "trained"):  # two screens: the categories and examples; the tokens the loss covers
            self.instruct.pages.setCurrentWidget(self.instruct.data_page if show == "data"
                                                 else self.instruct.trained_page)
            if self.instruct.preview is None:
                self.preview_instruct()
            return
        if not self.show_last_run("instruct") and not self.active:
            self.start_run(reuse=True)

    # ------------------------------------------------------ finished runs, named (issue 49.5)
    def remember_origin(self, run_id: int, loaded: Any, method_name: str | None) -> None:
        """What run ``run_id`` is trained from (the loaded model, the form's data and task): its results name it."""
        self._origins[run_id] = ResultOrigin.of(loaded, run_id, self._run_summary(method_name), run_id)

    def show_finished(self, result: Any) -> None:
        """Show a finished run's results (the results table, an instruct run's answers), named by its origin line."""
        self.results.show_result(result)
        self.run_origin.set_origin(self._origins.get(result.run_id))
        if result.summary.get("task") == "instruct":
            self.instruct.show_before_after(result.summary)

    def show_last_run(self, task: str) -> bool:
        """Show this tab's last finished run of ``task`` again, named (a lecture step returned to: the DPO step
        showed the instruct run's answers unnamed, and the instruct step trained again after a DPO run); False when
        there is none for the loaded model (another model's runs are gone)."""
        for result in reversed(list(self.state.results.values())):
            origin = self._origins.get(result.run_id)
            if result.summary.get("task") == task and origin is not None \
                    and origin.state(self.ctx.loaded, result.run_id) != GONE:
                self.show_finished(result)
                return True
        return False
