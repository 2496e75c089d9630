## safety/: see DESIGN.md.
