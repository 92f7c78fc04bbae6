"""The command line: typed options, one module per command group, and the presentation of results."""
