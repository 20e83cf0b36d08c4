"""The DuckDB warehouse: schema, ingest, query, connection settings."""
