"""Bulk harvests to files: harvest(), harvest_corpus(), their shared result, checkpoint and
writers, and the executor that runs a corpus harvest's work."""
