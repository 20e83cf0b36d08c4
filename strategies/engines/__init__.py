"""Reference engines: the rules of each game in one place, OpenSpiel-style."""
