"""Each game's HTML report, drawn with one kit (`kit.py`, `page.html.j2`)."""
