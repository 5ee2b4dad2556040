"""The Guide view's About text."""

TITLE = "Guide"
HTML = """
<p><b>Guide</b>: pages that walk you through the five lectures on the workbench's own live views. Each page sets
up a view (model, text, settings, as a lecture step does), explains in a few lines what to look at and why, and
most end with an exercise: click a layer, a head or a token, choose an option, type a number or a token.</p>
<p>The right answer is never stored in the page: it is computed from the model loaded at that moment, by the same
function the view uses, so an exercise holds for any model of the right family. A wrong answer gets a hint; the
third shows the answer and why. Your progress is kept for your user account in the data folder; a teacher
can export it as CSV or reset it. Teachers write their own guides as folders of page files
(see docs/guide.md).</p>
<p>A page whose view trains or sweeps (probing with the control task, ELMo's scalar mix, the tuned lens,
fine-tuning) records its run the first time, with progress; opened again with the same model, settings and data
it shows that recorded run at once instead of computing it again (the view says which run).</p>
"""
