"""The Runs tab's "About this view" text (HTML)."""

TITLE = "Runs"

HTML = """
<h3>Every run, side by side</h3>
<p>Each pre-training (later also fine-tuning, probing and evaluation) run is recorded in the run store with
its settings, its metrics at every logged step and how it ended: <b>finished</b>, <b>failed</b> (with the
error), <b>cancelled</b>, or <b>interrupted</b> (its process vanished; found at the next start). Click a
column header to sort; select several runs (Ctrl- or Shift-click) to overlay their curves.</p>
<p><b>Smoothing</b> is an exponential moving average with bias correction, as in TensorBoard:
<span class="f">s<sub>t</sub> = w&middot;s<sub>t&minus;1</sub> + (1&minus;w)&middot;v<sub>t</sub>,
shown as s<sub>t</sub> / (1 &minus; w<sup>t</sup>)</span>; it only looks back, so a smoothed curve lags the raw
one (shown faintly behind it). The time axis compares runs by wall-clock seconds, which shows the cost of
a larger model or batch; a <b>log scale</b> makes late, small improvements of the loss visible.</p>
<p>The <b>settings</b> table compares the first two selected runs; differing settings are highlighted.
<b>Run again</b> queues the same settings into a new output folder; <b>Resume</b> continues a cancelled,
failed or interrupted pre-training or fine-tuning run from its last checkpoint, in its own folder, with the
same losses it would have had without the stop; <b>Copy as CLI command</b> gives the
<code>lm-workbench</code> command that repeats the run without the window. <b>Delete</b> removes runs from
the list (Undo for ten seconds); their model and checkpoint files stay on disk.</p>
<p class="ref">Kingma &amp; Ba, <i>Adam: A Method for Stochastic Optimization</i>, ICLR 2015
(<a href="https://arxiv.org/abs/1412.6980">arXiv:1412.6980</a>), on bias-corrected moving averages.</p>
"""
