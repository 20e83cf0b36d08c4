"""The players' own code: real, standard-library-only modules, one per game.

What a generated player file does lives here as code (linted, covered, tested against the
engine), not in string literals: a code generator embeds a module's source into the file
and writes the fitted table beside it as literals. These modules import nothing but the
standard library (a test holds them to it), so every layer may import them.
"""
