"""``python -m skrank.cli``: the ``skrank`` command."""

from ._entry import command

command()
