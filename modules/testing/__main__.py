"""``python -m modules.testing --port 8099``: the fake assistant as a stand-in AI provider, for
trying ``sleuth collect`` and ``sleuth monitor`` offline."""

from .fake_assistant import main

main()
