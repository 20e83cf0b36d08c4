"""Code generators: fitted tables → single-file, standard-library-only player modules."""
