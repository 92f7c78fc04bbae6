"""The one BibTeX adapter, both directions: reading values and entries, field layout, writing."""
