"""Builder of the LeadGreen v1 data package."""

__version__ = "1.0.0"
