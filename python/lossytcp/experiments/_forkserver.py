"""Imported by the local pool's forkserver alone (its preload), before the forkserver
records the signal handlers its children start with: so the workers it forks ignore Ctrl-C
from their first instruction, not only once their own code runs (a terminal sends SIGINT to
the whole process group; the pool's owner stops the workers itself)."""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
