"""The command line, the stage runner and the polars transformations over the warehouse."""

import signal

INTERRUPTED = 128 + signal.SIGINT  # the shell's exit code for a command Ctrl-C stopped
