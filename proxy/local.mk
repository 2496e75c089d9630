## proxy/: see DESIGN.md.
