"""The code of :mod:`paperlens.export`, the public module that re-exports it and documents it."""

from paperlens.results._citable import Citable, RecordList
from paperlens.results._formats import (
    CITATION_FIELDS,
    KINDS,
    Kind,
    Name,
    Work,
    author_name,
    frame_row,
    latex_escape,
    to_bibtex,
    to_csl_json,
    to_ris,
    works,
)

__all__ = ["CITATION_FIELDS", "KINDS", "Citable", "RecordList", "to_bibtex", "to_csl_json", "to_ris"]
__all__ += ["Kind", "Name", "Work", "author_name", "frame_row", "latex_escape", "works"]
