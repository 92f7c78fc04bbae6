"""Grounded drafting: paragraphs asked of a language model, kept only where every citation is one of the given papers."""
