"""The meeting: items the panel disagrees on, votes side by side, the
discussion, the chair's lock and override, and the agreement panel."""
