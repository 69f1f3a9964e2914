"""Qt-free, pandas-free core: taxonomy trees, noise and mechanisms, the budget ledger, consistency,
range queries and analytic error. Nothing here imports Qt (a test checks it)."""
