"""Writing a run's results: chapter view and rendering, notes regions, entries.json, exports, in-place edits."""
