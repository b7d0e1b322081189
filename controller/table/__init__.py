"""The table procedure: the ``transitions`` state machine, the dealer's prompts, faults and
supervisor resolutions, wagers, the sealed hole card and the rebuild of a round from its
rows.

May import ``controller.rules`` and ``drivers.hal`` (device interfaces and events) only;
it knows nothing of the journal's storage, the daemon or any concrete driver.
"""
