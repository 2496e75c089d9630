## sandbox/: see DESIGN.md.
