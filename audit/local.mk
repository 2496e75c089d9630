## audit/: see DESIGN.md.
