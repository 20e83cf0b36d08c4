"""placeholder"""

from mine.pipeline.commands.twentyone import demo as run  # noqa: F401
