"""Test helpers shared across the suite (local stand-ins for external servers)."""
