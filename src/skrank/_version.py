"""skrank's version: one string, for the package facade, the command line and the reports."""

__version__ = "0.1.0.dev0"
