"""placeholder"""

from mine.pipeline.commands.hog import demo as run  # noqa: F401
