"""What a run concludes from its records: merging, keys, taxonomy, checks, tags and resolution."""
