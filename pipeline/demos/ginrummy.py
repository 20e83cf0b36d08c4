"""placeholder"""

from mine.pipeline.commands.ginrummy import demo as run  # noqa: F401
