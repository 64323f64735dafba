"""Full-text corpus harvests: records to Parquet, one Markdown file per document, its figures.

>>> from paperlens.harvest import harvest_corpus
>>> result = harvest_corpus(client, "reefs", query="coral bleaching", figures=True)
>>> result.records, result.texts, result.missing_texts
(97, 68, 29)

The output directory ``out`` holds::

    manifest.json                      the call, its parameters, times, request ids, counts
    records/part-00000.parquet ...     the records, one part per page, with text columns
    documents/<doc_id>/text.md         the whole text of a document, reassembled exactly
    documents/<doc_id>/figures/...     its figures (figures=True), where text.md's links point

and ``<out>.checkpoint.json`` sits beside it, as for :func:`paperlens.harvest.harvest`. Each
record gains ``text_status`` (``"ok"``, ``"no_doc_id"``, ``"forbidden"`` for a 403,
``"not_found"`` for a 404, ``"invalid_doc_id"`` for a ``doc_id`` that ``/content`` cannot be
asked for) and ``text_path`` (relative to ``out``, or null), and with
``figures=True`` ``figure_paths`` (the files written, relative to ``out``) and
``missing_figures`` (the figures the text names that the service refused or lacks, or that
cannot be written). A record without a text is written all the same, never dropped.

A figure link that cannot be a file of the document's folder (a NUL byte, a part over 255
bytes, a path leaving the folder, a name clashing with another figure's file or folder or
with ``text.md``) is never fetched: it is listed with why in ``HarvestResult.skipped_figures``
and the manifest's ``skipped_figures``, and the harvest goes on (a rerun skips it alike).
A ``doc_id`` gets a folder of its own: percent-encoded, hashed to ``sha256-<hex>`` past 200
characters, and a doc_id that is literally such a name escaped, so never another's folder.

Resumable at any moment: a document is written into a temporary folder renamed into place
once its text and figures are on disk, so it is complete or absent; each page of records is
kept in the checkpoint before its documents are fetched, and its part file is renamed into
place before the checkpoint moves on. A run killed anywhere and started again with the same
call ends with the same files as an uninterrupted run, without fetching again a page of
records or a document it already has. Other parameters into the same ``out`` raise
:class:`~paperlens.harvest.HarvestError`.

With ``executor=`` the documents are fetched on worker processes (a Dask cluster, a process
pool; :mod:`paperlens.harvests._executor`) and written by the calling process in the same order, so the
files are those of a run without it. ``out`` may be an fsspec URL (``s3://bucket/prefix``):
see :mod:`paperlens.storage._store` for what stays atomic there.
"""

from paperlens.harvests import corpus as _module
from paperlens.harvests.corpus import *  # noqa: F403

__all__ = _module.__all__
