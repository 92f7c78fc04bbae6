"""Reading the user's sources: choosing a reader per file; related-paper lists, CSL-JSON, tag overrides."""
