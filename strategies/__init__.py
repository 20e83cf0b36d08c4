"""Reference engines, baseline bots, the code generator and the validation harness."""
