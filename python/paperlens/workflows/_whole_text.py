"""A document's whole text as a plan of ``/content`` pages, as a corpus harvest reads it (and
the harvest's estimate reads its sample texts)."""

from __future__ import annotations

from paperlens.base._contract import CONTENT_PAGE_MAX
from paperlens.errors import ResponseDecodeError
from paperlens.machinery._operation import Call, Plan
from paperlens.machinery._pagination import Trail

__all__ = ["whole_text"]


def whole_text(doc_id: str) -> Plan[tuple[str, tuple[str, ...]]]:
    """The whole text from pages of the largest size, its length checked, and the pages'
    request ids.

    Raises:
        PagingLoopError: a ``next_offset`` that does not advance (nothing of the text is kept).
        ResponseDecodeError: ``more`` without a ``next_offset``, or a length that differs
            from ``text_length``.
    """
    pieces: list[str] = []
    request_ids: list[str] = []
    offset, length = 0, 0
    trail = Trail("next_offset", offset, ordered=True)
    while True:
        page = yield Call("content", (doc_id,), {"offset": offset, "limit": CONTENT_PAGE_MAX})
        if not isinstance(page.text, str):
            raise ResponseDecodeError(
                f"/content of {doc_id} at offset {offset}: text is {type(page.text).__name__}, not a string",
                request_id=page.request_id,
            )
        if page.request_id:
            request_ids.append(page.request_id)
        pieces.append(page.text)
        length += len(page.text)
        if not page.more:
            break
        if page.next_offset is None:
            raise ResponseDecodeError(
                f"the service answered more=true without a next_offset for {doc_id} (request_id={page.request_id})",
                request_id=page.request_id,
            )
        if not trail.follows(page.next_offset, page.request_id):
            trail.check()
        offset = page.next_offset
    if page.text_length is not None and length != page.text_length:
        raise ResponseDecodeError(
            f"reassembled {length} code points of {doc_id} but the service reports text_length={page.text_length}",
            request_id=page.request_id,
        )
    return "".join(pieces), tuple(request_ids)
