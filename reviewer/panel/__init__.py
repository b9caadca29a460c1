"""The panel: votes, final decisions, phases and agreement (headless)."""
