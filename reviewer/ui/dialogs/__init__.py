"""Windows and dialogs around the review: the start screen, a new project, a
model run, the key editor, the analysis report and the demo's first run."""
