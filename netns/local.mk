## netns/: see DESIGN.md.
