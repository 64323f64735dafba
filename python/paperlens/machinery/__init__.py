"""The client machinery: operations turned into methods, paginators, the sync/async bridge, the
response cache."""
