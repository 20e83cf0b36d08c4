"""Each game's part of `mine demo`: its whole loop, small, on the demo warehouse."""
