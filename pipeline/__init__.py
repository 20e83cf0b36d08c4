"""The command line, the stage runner and the polars transformations over the warehouse."""
