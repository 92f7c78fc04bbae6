"""Papers x taxonomy -> tags: rules over the taxonomy vocabulary, a learned model, evaluation and review."""
