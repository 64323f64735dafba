"""Helpers that know nothing of results: contract facts, argument checks, identifiers, citation
parsing, progress, optional imports, text, docstrings, shared signatures, filters, the sandbox."""
