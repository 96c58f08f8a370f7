"""ipywidgets for the chapters: one module per topic, each also drivable from plain Python."""
