"""Docstring entries written once: an ``iter_`` form documents what it shares with its
operation "as for" it (``@pages`` writes those entries), and a result type lists its bases'
attributes in their words (``Model.__init_subclass__``). What ``help()``, the command line
and the agent tools read is still every parameter and every field, each once, in order."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import paperlens
from paperlens.base import _docstrings as docstrings
from paperlens.machinery._operation import paged_doc
from paperlens.results import types as t
from paperlens.schema import AsyncSchema, Schema

PAGED = [
    (owner, name)
    for owner in (paperlens.Client, paperlens.AsyncClient, Schema, AsyncSchema)
    for name in dir(owner)
    if name.startswith("iter_")
]


def test_the_iter_forms_are_all_found() -> None:
    names = {name for _, name in PAGED}
    assert names == {
        "iter_content",
        "iter_meta_search",
        "iter_paper_relations",
        "iter_search",
        "iter_entity_related_papers",
        "iter_search_entities",
        "iter_entities",
        "iter_search_relations",
        "iter_citations",
        "iter_search_evidence",
    }


@pytest.mark.parametrize(("owner", "name"), PAGED)
def test_an_iter_form_documents_each_parameter_once_in_signature_order(owner: type, name: str) -> None:
    method = getattr(owner, name)
    parameters = list(inspect.signature(method).parameters)[1:]  # after ``self``
    assert list(docstrings.arguments(inspect.getdoc(method) or "")) == parameters


def test_an_iter_form_reads_as_for_its_operation_where_it_says_nothing_else() -> None:
    args = docstrings.arguments(inspect.getdoc(Schema.iter_search_entities) or "")
    assert args == {
        "query": "as for :meth:`search_entities`.",
        "filters": "as for :meth:`search_entities`.",
        "hydrate_schema_papers": "as for :meth:`search_entities`.",
        "size": "entities per request, 1-100.",
        "cursor": "a ``next_cursor`` to resume from.",
        "limit": "stop after this many items.",
        "progress": "show a tqdm progress bar (the ``progress`` extra).",
    }
    # Its own words win, where it has them (the paginator's cursor and progress here).
    meta = docstrings.arguments(inspect.getdoc(paperlens.Client.iter_meta_search) or "")
    assert meta["cursor"] == "a ``next_cursor`` to resume from (``paginator.next_cursor`` of a partial run)."
    assert meta["progress"] == "show a tqdm progress bar sized by ``total_count`` (the ``progress`` extra)."
    assert meta["collection"] == "as for :meth:`meta_search`."


def test_a_bound_method_and_the_class_attribute_show_the_same_docstring() -> None:
    with paperlens.Client(api_token="sk-test", base_url="http://127.0.0.1:9") as client:
        assert client.schema.iter_entities.__doc__ == Schema.iter_entities.__doc__
        assert client.iter_paper_relations.__doc__ == paperlens.Client.iter_paper_relations.__doc__
    assert "limit: stop after this many items." in (Schema.iter_entities.__doc__ or "")


def test_paged_doc_adds_an_args_section_before_returns_and_keeps_what_follows() -> None:
    doc = "Every thing.\n\n    Returns:\n        A paginator.\n\n    Examples:\n        >>> x\n    "
    assert paged_doc(doc, ["query", "limit"], "things") == (
        "Every thing.\n\n"
        "    Args:\n"
        "        query: as for :meth:`things`.\n"
        "        limit: stop after this many items.\n\n"
        "    Returns:\n        A paginator.\n\n    Examples:\n        >>> x\n    "
    )


def test_paged_doc_keeps_a_written_entry_with_its_continuation_lines() -> None:
    doc = "Every thing.\n\nArgs:\n    size: things per request,\n        1-100.\n\nReturns:\n    A paginator."
    assert docstrings.entries(paged_doc(doc, ["query", "size", "progress"], "things"), "Args:") == {
        "query": ["    query: as for :meth:`things`."],
        "size": ["    size: things per request,", "        1-100."],
        "progress": ["    progress: show a tqdm progress bar (the ``progress`` extra)."],
    }


def test_paged_doc_indents_a_last_section_as_the_body() -> None:
    doc = "Every thing.\n\n    More about things.\n    "
    assert paged_doc(doc, ["query"], "things") == (
        "Every thing.\n\n    More about things.\n    \n    Args:\n        query: as for :meth:`things`.\n"
    )


def test_arguments_keeps_an_entry_for_several_names_apart_from_the_one_before() -> None:
    doc = "Things.\n\nArgs:\n    top_k: the most,\n        1-100.\n    a, b: as for :func:`f`.\n    *rest: more."
    assert docstrings.arguments(doc) == {"top_k": "the most, 1-100.", "a, b": "as for :func:`f`.", "rest": "more."}


RESULT_TYPES = [getattr(t, name) for name in t.__all__ if dataclasses.is_dataclass(getattr(t, name))]


@pytest.mark.parametrize("cls", RESULT_TYPES, ids=lambda cls: cls.__name__)
def test_a_result_type_documents_every_field_once_in_field_order(cls: type) -> None:
    entries = docstrings.entries(cls.__doc__ or "", "Attributes:")
    assert list(entries) == [field.name for field in dataclasses.fields(cls)]


def test_an_inherited_field_reads_as_its_base_writes_it() -> None:
    base = docstrings.entries(t.SchemaResponse.__doc__ or "", "Attributes:")
    assert base["partial"][0].startswith("    partial: ``True`` when a dependent step failed")
    for cls in (t.PaperSearchPage, t.CitationGraph, t.Materials, t.RelationDetail):
        entries = docstrings.entries(cls.__doc__ or "", "Attributes:")
        assert {name: entries[name] for name in base} == base
    card = docstrings.entries(t.PaperCard.__doc__ or "", "Attributes:")
    node = docstrings.entries(t.GraphNode.__doc__ or "", "Attributes:")
    assert {name: node[name] for name in card} == card
    assert list(node)[: len(card)] == list(card)


def test_inherited_puts_the_bases_entries_first_and_keeps_an_own_rewording_in_place() -> None:
    base = "A base.\n\nAttributes:\n    a: the a.\n    b: the b,\n        at length.\n"
    own = "A child.\n\nAttributes:\n    c: the c.\n    a: the child's a.\n\nExamples:\n    >>> c\n"
    assert docstrings.inherited(own, [base], "Attributes:") == (
        "A child.\n\nAttributes:\n    a: the child's a.\n    b: the b,\n        at length.\n    c: the c.\n\n"
        "Examples:\n    >>> c\n"
    )
    assert docstrings.inherited(own, ["A base with no attributes."], "Attributes:") == own


def test_a_function_with_a_prototype_documents_its_parameters_as_for_it() -> None:
    from paperlens.bibliometrics import bibliographic_coupling, co_citation, direct_citation

    written = docstrings.entries(inspect.getdoc(co_citation) or "", "Args:")
    assert list(written) == ["source", "client", "complete", "min_weight", "checkpoint"]
    for function in (bibliographic_coupling, direct_citation):
        assert docstrings.entries(inspect.getdoc(function) or "", "Args:") == {
            "source, client, complete, min_weight, checkpoint": [
                "    source, client, complete, min_weight, checkpoint: as for :func:`co_citation`."
            ]
        }


def test_as_for_writes_one_entry_first_for_what_the_doc_leaves_out() -> None:
    doc = "A map.\n\n    Returns:\n        A network.\n    "
    assert docstrings.as_for(doc, ["source", "client"], "proto") == (
        "A map.\n\n    Args:\n        source, client: as for :func:`proto`.\n\n    Returns:\n        A network.\n    "
    )
    own = "A map.\n\nArgs:\n    client: its own,\n        at length.\n    extra: more.\n\nReturns:\n    A network.\n"
    assert docstrings.as_for(own, ["source", "client", "min_weight"], "proto") == (
        "A map.\n\nArgs:\n    source, min_weight: as for :func:`proto`.\n    client: its own,\n        at length.\n"
        "    extra: more.\n\nReturns:\n    A network.\n"
    )
    assert docstrings.as_for(own, ["client"], "proto") == own
