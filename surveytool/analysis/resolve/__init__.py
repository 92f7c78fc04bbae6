"""Finding the real paper behind a snippet or id: the local catalog and online services."""
