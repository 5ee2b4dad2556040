"""The application core: settings, run store, job lanes, plugin discovery, CLI. No Qt.

Importing the package sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment already says otherwise, before any
torch import: OpenMP's default lets an idle thread spin for a while before it sleeps, which on a machine doing
other work turns two threads into a contest for the same cores. Measured here (a 4-layer, 256-wide GPT-2 training
step, batch 8 × 128, 2 threads, the machine at load 5-6 on 2 cores): 5.3-8.1 s a step with the default, 1.3-2.3 s
passive, as fast as one thread (issue 48: a course-model build was 17x slower beside other work).
"""

import os as _os

_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
