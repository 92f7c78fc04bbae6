"""Making the next build fast: memos, sealed cache files, the snapshot and the patch of a small edit."""
