"""Text at the boundaries: normalisation for matching, identifiers, LaTeX in and out, citations, file encodings."""
