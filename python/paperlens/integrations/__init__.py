"""Adapters of paperlens to agent frameworks, each behind its extra.

- :mod:`paperlens.integrations.langchain` (extra ``langchain``): a LangChain retriever and the
  default agent tools as LangChain tools.
- :mod:`paperlens.integrations.llamaindex` (extra ``llamaindex``): a LlamaIndex retriever and a
  reader of full texts.

``import paperlens`` imports none of them, nor their frameworks.
"""
