"""pandas and polars frames of paperlens results (the ``pandas`` and ``polars`` extras).

>>> import paperlens
>>> frame = client.iter_meta_search("coral reef", limit=500).to_pandas()
>>> frame.shape
(163, 52)
>>> page = client.meta_search("coral bleaching")
>>> frame = paperlens.to_pandas(page)  # a result, a list of results or a paginator

One row per item. Every field of the item type is a column, even when no row carries it (frames
of different pages concatenate), but for the paper card a Structured Paper search attaches only
when asked for (``schema_paper`` of entities and evidence, with
``hydrate_schema_papers=True``): without it, no ``schema_paper.*`` columns. The fields are
followed by the properties the spec does not name (``extra``). Ids and titles come first.
Integers are nullable (``Int64``), ``*_date`` fields are datetimes, booleans are nullable
(``boolean``), lists stay lists, and nested objects are flattened one level with dotted names
(``primary_topic.display_name``); deeper objects stay dicts. Last, ``extra_json``: per row, the
JSON text of what its columns cannot give back exactly (a property whose name cannot be a
column, a flattened object that is empty or holds a null, a date other than a ``yyyy-MM-dd``
day, in polars a value that its column's type changes, such as a struct given every key any row
has), each under its own name, as the Parquet harvest writes it. So each record's ``to_dict()``
reads back from its row: the non-null cells (``field.key`` gathered into ``field``), then
``extra_json`` over them; a null property reads as absent.

Columns are built in one pass over the records' wire dicts (for a page's rows, straight from
their JSON text, the string fields of a pandas frame as Arrow arrays), then handed to a
single DataFrame constructor. pandas, pyarrow and polars are imported only when a frame is asked
for: ``import paperlens`` never imports them.
"""

from paperlens.results import pandas as _module
from paperlens.results.pandas import *  # noqa: F403

__all__ = _module.__all__
