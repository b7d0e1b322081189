"""Pure Spanish 21 rules: cards, hands, decisions, payouts and jurisdiction profiles.

No I/O and nothing third-party: every other layer may use this package.
"""
