"""Files written whole: local and fsspec stores, output locks and guards, manifests, checkpointed
records and their Parquet layout."""
