"""The result types and, below them, their conversions (frames, display, citation formats), which
see results only through _result's bases and hooks."""
