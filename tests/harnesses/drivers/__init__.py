"""How each real client is run offline for the parity suite (tests/harnesses/test_parity.py)."""
