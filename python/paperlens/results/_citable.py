"""The mixin that gives results holding records their citation exports, and the list of
records that has them; the formats themselves (``paperlens.results._formats``, public as
:mod:`paperlens.export`) are imported on first use: ``import paperlens`` stays light, and the
import runs downward, from the result types to a conversion."""

from __future__ import annotations

from typing import Any


class Citable:
    """``to_bibtex()``, ``to_ris()`` and ``to_csl_json()`` for a result that holds records."""

    __slots__ = ()

    def to_bibtex(self) -> str:
        """The records as BibTeX entries (see :func:`paperlens.to_bibtex`)."""
        from paperlens.results._formats import to_bibtex

        return to_bibtex(self)

    def to_ris(self) -> str:
        """The records as RIS references (see :func:`paperlens.to_ris`)."""
        from paperlens.results._formats import to_ris

        return to_ris(self)

    def to_csl_json(self) -> list[dict[str, Any]]:
        """The records as CSL-JSON items (see :func:`paperlens.to_csl_json`)."""
        from paperlens.results._formats import to_csl_json

        return to_csl_json(self)


class RecordList(list[Any], Citable):
    """A plain list of records (``Deduped.kept``) that also exports itself."""

    __slots__ = ()
