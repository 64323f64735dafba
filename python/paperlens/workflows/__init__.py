"""The research workflows: plans of client calls that the clients' methods run (lookup, matching,
snowball, deduplication, estimate, verification) and what they read."""
