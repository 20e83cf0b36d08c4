"""Fitting: situation statistics → lookup tables, and the table file format."""
