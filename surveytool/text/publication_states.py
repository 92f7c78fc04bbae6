"""Words both sides of CSL-JSON agree on for a date that is no date: what export -f csl-json writes and what
reading a CSL-JSON file takes back. Here so that the reader (sources) does not import the writer (output)."""

from __future__ import annotations

import re

# No date at all, as a BibTeX year or CSL's literal date says it.
NO_DATE = re.compile(r"n\.\s?d\.?|no date|undated", re.IGNORECASE)
# The states of publication BibTeX users write as the year of a work not out yet (year = {in press}): CSL's status
# of an item with no date becomes its year only when it is one of these.
STATE_YEAR = re.compile(r"in press|forthcoming|submitted|in preparation", re.IGNORECASE)
# biblatex's pubstate keys (its localisation strings) as the words CSL's status holds.
PUBSTATES = {
    "inpress": "in press",
    "forthcoming": "forthcoming",
    "submitted": "submitted",
    "inpreparation": "in preparation",
    "prepublished": "prepublished",
}
