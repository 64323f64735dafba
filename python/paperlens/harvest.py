"""Resumable bulk harvests of metadata search results to Parquet or JSONL.

>>> from paperlens.harvest import harvest
>>> harvest(client, query="coral bleaching", out="bleaching", format="parquet")
HarvestResult(out=PosixPath('bleaching'), ..., format='parquet', records=97, chunks=1, done=True, ...)

Records are fetched page by page (cursor deep paging, paced to the client's quota) and
written in chunks: Parquet as numbered part files ``part-00000.parquet``... in the ``out``
directory, or JSONL appended to the ``out`` file. After each chunk is durably on disk
(fsync, then an atomic rename for Parquet), a checkpoint next to the output,
``<out>.checkpoint.json``, records where to continue. Run the same call again after an
interruption (Ctrl-C, a crash, an error of the service) and it resumes from the checkpoint:
a chunk written without its checkpoint is discarded and fetched again, so nothing is lost
or written twice. A finished harvest run again returns at once.

Beside the output, ``<out>.manifest.json`` records the call for a methods section: its
parameters, start and end times, the SDK version, the base URL (never the token), the
search's ``total_count``, the request id of every page written and the counts (see
:mod:`paperlens.storage._manifest`). It sits beside the output rather than in it, so that a Parquet
directory holds only part files (``pandas.read_parquet(out)`` reads it whole). Running again
into the same output with other parameters raises :class:`HarvestError`.

Living reviews: the same call with ``update=True`` on a finished output searches again and adds
only the records whose ``unique_id`` the output does not hold, as new parts (JSONL: new lines)
of the same schema; the files already written are not touched. It costs the metadata pages of
the search, every one: the contract has no date of indexing, so no sort or filter proves that
a page holds nothing new (a record published years ago may enter the index today). The
manifest gains a run entry (``run_entries``: kind, times, ``added``, ``requests``, and the
parts or bytes it wrote), ``read_records(out, run=-1)`` reads the records of the latest, and
an update interrupted anywhere resumes like a harvest, ending equal to one never interrupted.

Full-text corpora (records, one Markdown file per document and its figures) are harvested by
:func:`harvest_corpus` (:mod:`paperlens.corpus`).
"""

from paperlens.harvests import harvest as _module
from paperlens.harvests.harvest import *  # noqa: F403

__all__ = _module.__all__
