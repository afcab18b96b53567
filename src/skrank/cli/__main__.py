"""``python -m skrank.cli``: the ``skrank`` command."""

from ._eval import command

command()
